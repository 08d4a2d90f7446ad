package signal

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAddTracesGrowsOnce makes a mesh of 5,000 traces and wants its
// arrays and map of them made at their size (6.6 traces' worth allocated
// per trace in all), not outgrown by appending one by one (10.2), which
// left a site build's collector 30 MB for 20,000 traces.
func TestAddTracesGrowsOnce(t *testing.T) {
	const n = 5000
	traces := make([]*ledger.Trace, n)
	for i := range traces {
		traces[i] = &ledger.Trace{Agent: "ada", AgentURL: "https://ada.example.org/", Seq: manifest.Seq(i + 1), Hash: manifest.Hash(fmt.Sprintf("sha256:%064x", i))}
	}
	rules, _ := RulesNamed(DefaultRules)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m := newMesh(Input{Traces: traces}, rules)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	per := float64(after.TotalAlloc-before.TotalAlloc) / float64(n*int(unsafe.Sizeof(ledger.Trace{})))
	t.Logf("%.2f traces' worth allocated per trace", per)
	if per > 8 {
		t.Errorf("a mesh of %d traces allocated %.1f times their size, want at most 8", n, per)
	}
}

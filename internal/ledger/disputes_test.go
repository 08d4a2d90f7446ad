package ledger

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

func sampleDispute(reporter, reporterURL string, source manifest.Hash) *Dispute {
	d := DisputeOf(&dispute.Dispute{Reporter: "claimed-name", ReporterURL: "https://claimed/", Agent: "jolt37", AgentURL: jolt,
		FileURL: jolt + "traces/c.md", Seq: 43, ClaimedHash: "sha256:cc", ServedHash: "sha256:dd",
		ObservedAt: day2.In(time.FixedZone("X", 7200))})
	d.Reporter, d.ReporterURL, d.SourceURL, d.SourceHash = reporter, reporterURL, reporterURL+"disputes/dispute-cc.md", source
	return &d
}

func TestDisputesAreKeptInTheReportersFileAndLoadBack(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := sample()
	l.AddDispute(sampleDispute("axon37", axon, "sha256:d1"))
	l.AddDispute(sampleDispute("axon37", axon, "sha256:d1")) // the same file read again
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	files, err := l.Files()
	if err != nil {
		t.Fatal(err)
	}
	axonFile := string(files[statefile.PeerFileName(axon)])
	if want := `"disputes": {`; !strings.Contains(axonFile, want) {
		t.Errorf("axon's ledger file holds no disputes:\n%s", axonFile)
	}
	if joltFile := string(files[statefile.PeerFileName(jolt)]); strings.Contains(joltFile, "disputes") {
		t.Errorf("the disputed agent's file holds the dispute:\n%s", joltFile)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	got := back.SortedDisputes()
	want := sampleDispute("axon37", axon, "sha256:d1")
	want.ObservedAt = day2
	if len(got) != 1 || !reflect.DeepEqual(*got[0], *want) {
		t.Fatalf("disputes loaded back: %+v, want one: %+v", got, want)
	}
	if changed, err := back.Save(p); err != nil || changed {
		t.Fatalf("resave: changed=%v err=%v, want unchanged", changed, err)
	}
}

func TestDisputesAreCountedForgottenAndRenamedWithTheirReporter(t *testing.T) {
	const from, to = "https://a.example:0443/x/", "https://a.example/x/"
	l := New()
	l.AddDispute(sampleDispute("a", from, "sha256:d1"))
	l.AddDispute(sampleDispute("a", from, "sha256:d2"))
	l.AddDispute(sampleDispute("b", "https://b.example/", "sha256:d3"))
	if n := l.DisputesBy(from); n != 2 {
		t.Errorf("DisputesBy = %d, want 2", n)
	}
	l.Rename(from, to)
	if d := l.Disputes[to+" sha256:d1"]; d == nil || d.SourceURL != to+"disputes/dispute-cc.md" || l.DisputesBy(to) != 2 {
		t.Errorf("after rename: %v", l.Disputes)
	}
	if got, want := l.Forget(to), []manifest.Hash{"sha256:d1", "sha256:d2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("forgot %v, want %v", got, want)
	}
	if len(l.Disputes) != 1 || l.DisputesBy("https://b.example/") != 1 {
		t.Errorf("left %v", l.Disputes)
	}
}

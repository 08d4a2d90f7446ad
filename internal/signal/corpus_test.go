package signal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

// corpusInput builds SIGNAL's input from the real snapshot: every MANIFEST
// row with a hash is a trace, and the host's own tally of who validated
// what (memory/reciprocity.json, agent/seq lists) gives passing votes.
func corpusInput(t *testing.T) Input {
	t.Helper()
	dir := corpustest.Dir(t)
	manifests, err := filepath.Glob(filepath.Join(dir, "agents-hosted", "*", "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(manifests)
	var in Input
	bySeq := map[string]manifest.Hash{} // "agent/seq" → hash
	for _, f := range manifests {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := manifest.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		agent := filepath.Base(filepath.Dir(f))
		for _, e := range m.Entries {
			if e.Hash == "" {
				continue
			}
			in.Traces = append(in.Traces, &ledger.Trace{Agent: agent, Hash: e.Hash, Seq: e.Seq, Type: e.Type, Category: e.Category, File: e.File,
				URL: "https://mycelnet.ai/basecamp/agents-hosted/" + agent + "/" + e.File})
			bySeq[fmt.Sprintf("%s/%d", agent, e.Seq)] = e.Hash
		}
	}
	var rec map[string]map[string]struct{ Traces []string }
	data, err := os.ReadFile(filepath.Join(dir, "memory", "reciprocity.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	for _, validator := range sortedKeys(rec) {
		for _, author := range sortedKeys(rec[validator]) {
			for _, ref := range rec[validator][author].Traces {
				if h := bySeq[normalizeRef(ref)]; h != "" {
					in.Validations = append(in.Validations, &ledger.Validation{Validator: validator, TraceHash: h, Result: "pass"})
				}
			}
		}
	}
	return in
}

func normalizeRef(ref string) string {
	agent, seq, ok := strings.Cut(ref, "/")
	n, err := strconv.Atoi(seq)
	if !ok || err != nil {
		return ref
	}
	return fmt.Sprintf("%s/%d", strings.ToLower(agent), n)
}

func TestCorpusSignalIsReproducible(t *testing.T) {
	in := corpusInput(t)
	first := Compute(in)
	// Same files, listed in another order: the same numbers.
	rev := Input{Founders: in.Founders}
	for i := len(in.Traces) - 1; i >= 0; i-- {
		rev.Traces = append(rev.Traces, in.Traces[i])
	}
	for i := len(in.Validations) - 1; i >= 0; i-- {
		rev.Validations = append(rev.Validations, in.Validations[i])
	}
	if again := Compute(rev); !reflect.DeepEqual(again, first) {
		t.Fatal("the corpus gave different reports for the same files")
	}
	if len(first.Traces) < 800 {
		t.Errorf("only %d traces resolved from the corpus", len(first.Traces))
	}
	counts := map[manifest.Status]int{}
	for _, tr := range first.Traces {
		counts[tr.Status]++
	}
	t.Logf("%d traces, %d votes, %d rounds, statuses %v", len(first.Traces), len(in.Validations), first.Rounds, counts)
	for _, a := range first.Agents {
		t.Logf("%-16s %6.1f %-11s validated %3d authored %3d", a.Agent, a.Signal, a.Tier, a.TracesValidated, a.ValidationsAuthored)
	}
}

// TestCorpusVotesCountOnlyWithStanding: in the real snapshot nobody is
// named a founder, so no vote counts and nobody earns anything; naming
// abernath37 (one of the two agents that opened the mesh) a founder lets
// only its votes, and those of agents they lift to 50, count.
func TestCorpusVotesCountOnlyWithStanding(t *testing.T) {
	in := corpusInput(t)
	for _, a := range Compute(in).Agents {
		if a.Signal != 0 || a.Standing || a.ValidationsAuthored != 0 {
			t.Errorf("%s without founders: %+v, want SIGNAL 0 and no standing", a.Agent, a)
		}
	}
	in.Founders = []Founder{{Name: "abernath37"}}
	r := Compute(in)
	for _, a := range r.Agents {
		t.Logf("%-16s %6.1f %-11s standing %-5v validated %3d counted %3d uncounted %3d", a.Agent, a.Signal, a.Tier, a.Standing, a.TracesValidated, a.ValidationsAuthored, a.ValidationsUncounted)
		if !a.Standing && a.ValidationsAuthored != 0 {
			t.Errorf("%s has no standing but %d counted validations", a.Agent, a.ValidationsAuthored)
		}
		if a.Standing != (a.Tier != TierProvisional) {
			t.Errorf("%s: standing %v but tier %s", a.Agent, a.Standing, a.Tier)
		}
	}
	if ab := agentByName(r, "abernath37"); !ab.Founder || ab.ValidationsAuthored == 0 {
		t.Errorf("abernath37: %+v, want a founder whose validations count", ab)
	}
}

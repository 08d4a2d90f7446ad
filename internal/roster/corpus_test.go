package roster

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshnode/meshnode/internal/corpustest"
)

func TestCorpusAgentsFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpustest.Dir(t), "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	agents, problems := Parse(data)
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	if len(agents) != 15 {
		t.Fatalf("%d agents, want 15", len(agents))
	}
	if a := agents[2]; a.Name != "noobagent" || a.URL != "https://mycelnet.ai/basecamp/agents-hosted/noobagent/" || a.Joined != "2026-02-25" {
		t.Errorf("third agent %+v", a)
	}
	back, _ := Parse(Format(agents))
	if len(back) != len(agents) {
		t.Errorf("round trip kept %d of %d", len(back), len(agents))
	}
}

// TestCorpusNamesBindAsGossip: the look-alike rule must not refuse a real
// mesh learned by gossip.
func TestCorpusNamesBindAsGossip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpustest.Dir(t), "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := Parse(data)
	b := NewBinding()
	for _, a := range agents {
		if err := b.BindGossip(a.Name, a.URL); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
	}
	if b.Len() != len(agents) {
		t.Errorf("bound %d of %d", b.Len(), len(agents))
	}
}

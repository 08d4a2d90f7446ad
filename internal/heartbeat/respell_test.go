package heartbeat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestListedAgentKeepsItsCursorUnderAnEarlierSpelling: a cursor kept under
// an earlier spelling of an agent's URL (here an escaped letter, "%61da"
// for "ada") is moved to the URL AGENTS.md gives, with how far it read and
// the hashes seen from it, and the ledger's records of the agent with it,
// so the agent's files are not fetched again and nothing lingers under
// the old spelling.
func TestListedAgentKeepsItsCursorUnderAnEarlierSpelling(t *testing.T) {
	p := newFakePeer(t)
	m := manifest.Manifest{Agent: "ada", Sequence: 3}
	for seq := 1; seq <= 3; seq++ {
		name := fmt.Sprintf("traces/%d.md", seq)
		body := []byte(fmt.Sprintf("# Trace %d\n\nMeasured %d ms.\n", seq, 10*seq))
		m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(seq), Hash: manifest.HashBytes(body), File: name, Type: "knowledge", Status: "validated"})
		p.serve("/ada/"+name, body)
	}
	p.handle("/ada/MANIFEST.md", staticManifest(m.Format()))
	canon, old := p.URL+"/ada/", p.URL+"/%61da/"
	dir := newNode(t, [][2]string{{"ada", canon}}, "gossip:\n  enabled: false\n")
	beat(t, dir, testNow)

	respellRecords(t, dir, canon, old)
	beat(t, dir, testNow.Add(cursorStep))

	st := loadState(t, dir)
	if c, ok := st.Cursors[canon]; !ok || c.LastSeenSeq != 3 {
		t.Errorf("cursor under %s: %+v, want the one read up to seq 3", canon, c)
	}
	if _, ok := st.Cursors[old]; ok {
		t.Errorf("a cursor still lingers under %s", old)
	}
	for _, tr := range loadLedger(t, dir).Traces {
		if tr.AgentURL != canon || !strings.HasPrefix(tr.URL, canon) {
			t.Errorf("ledger keeps %s at %s under %s", tr.Hash, tr.URL, tr.AgentURL)
		}
	}
	if hits := p.hitsOf("/ada/traces/1.md"); hits != 1 {
		t.Errorf("traces/1.md fetched %d times, want once", hits)
	}
}

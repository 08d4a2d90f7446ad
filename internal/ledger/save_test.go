package ledger

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
)

const bolt = "https://bolt.example/traces/"

func TestSaveRewritesOnlyTheFilesWhoseRecordsChanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	if _, err := sample().Save(p); err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	// axon's records, rewritten compact behind the ledger's back: a Save
	// that re-encodes them would put them back in the canonical form.
	axonKey := statefile.PeerFileName(axon)
	compact := compactJSON(t, p, axonKey)
	if changed, err := l.Save(p); err != nil || changed {
		t.Fatalf("save of an unchanged ledger: changed=%v err=%v", changed, err)
	}
	l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 44, Hash: "sha256:ee", FirstSeen: day2})
	if changed, err := l.Save(p); err != nil || !changed {
		t.Fatalf("save after a new trace: changed=%v err=%v", changed, err)
	}
	if got, _ := statefile.ReadOne(p, axonKey); string(got) != string(compact) {
		t.Errorf("a file whose records did not change was rewritten:\n%s", got)
	}
	back, err := Load(p)
	if err != nil || back.Traces["sha256:ee"] == nil {
		t.Fatalf("the new trace did not reach the disk: %v", err)
	}
}

// compactJSON rewrites the JSON contents of key in the split state at p
// without indentation and returns its new bytes.
func compactJSON(t *testing.T, p, key string) []byte {
	t.Helper()
	data, err := statefile.ReadOne(p, key)
	if err != nil || data == nil {
		t.Fatalf("%s: %q, %v", key, data, err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	if _, err := statefile.WriteSome(p, map[string][]byte{key: out}, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSaveOfEachChangeWritesWhatAFullSaveWould(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(l *Ledger)
	}{
		{"trace of a new peer", func(l *Ledger) { l.AddTrace(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 1, Hash: "sha256:01"}) }},
		{"trace that moves to another agent", func(l *Ledger) { l.AddTrace(&Trace{Agent: "bolt", AgentURL: bolt, Hash: "sha256:aa"}) }},
		{"validation", func(l *Ledger) {
			l.AddValidation(&Validation{Validator: "bolt", ValidatorURL: bolt, TraceHash: "sha256:bb", Result: "fail", SourceHash: "sha256:v1"})
		}},
		{"rejection", func(l *Ledger) {
			l.AddRejection(bolt+"traces/x.md", &Rejection{Agent: "bolt", AgentURL: bolt, ClaimedHash: "sha256:c1", ServedHash: "sha256:d1", At: day2})
		}},
		{"forget a peer", func(l *Ledger) { l.Forget(axon) }},
		{"rename a peer", func(l *Ledger) { l.Rename(jolt, bolt) }},
		{"nothing", func(*Ledger) {}},
		{"copy", func(l *Ledger) { l.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 3, Hash: "sha256:bb"}) }},
		{"dispute", func(l *Ledger) {
			l.AddDispute(&Dispute{Reporter: "bolt", ReporterURL: bolt, Agent: "jolt37", AgentURL: jolt, Seq: 43, ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", SourceHash: "sha256:d9"})
		}},
		{"take a trace down", func(l *Ledger) { l.TakeDown("sha256:bb", Withdrawn) }},
		{"forget a peer whose trace another lists", func(l *Ledger) { l.Forget(jolt) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ledger.json")
			before := sample()
			// bolt's copy of jolt's trace is on disk before the change:
			// forgetting jolt moves it into bolt's traces.
			before.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 2, Hash: "sha256:bb"})
			if _, err := before.Save(p); err != nil {
				t.Fatal(err)
			}
			l, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(l)
			if _, err := l.Save(p); err != nil {
				t.Fatal(err)
			}
			want, err := l.Files()
			if err != nil {
				t.Fatal(err)
			}
			_, got, err := statefile.Read(p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(stringsOf(got), stringsOf(want)) {
				t.Errorf("on disk:\n%v\nwant what a full save writes:\n%v", stringsOf(got), stringsOf(want))
			}
		})
	}
}

func stringsOf(files map[string][]byte) map[string]string {
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = string(v)
	}
	return out
}

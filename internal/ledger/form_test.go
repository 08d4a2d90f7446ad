package ledger

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// formHash is a well-formed trace hash, as the poller records them.
const formHash manifest.Hash = "sha256:016abbfde5069b3816d3b24a8992faf0c0bb3f0bd395016ae53d018ba2528fad"

// olderForm is a peer's file as nodes before partForm encoded it: every
// record whole.
func olderForm(t *testing.T, p *Ledger) []byte {
	t.Helper()
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// savedFiles saves l at p and returns the bytes of each peer's file.
func savedFiles(t *testing.T, l *Ledger, p string) map[string][]byte {
	t.Helper()
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	_, files, err := statefile.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestALedgerRecordLeavesOutTheHashAndURLItsKeyAndPeerGiveBack(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := New()
	want := &Trace{Agent: "jolt37", AgentURL: jolt, Seq: 3, Hash: formHash, File: "traces/3.md", URL: jolt + "traces/3.md",
		Type: "knowledge", Title: "Three", Status: "pending", FirstSeen: day1, Verified: true}
	l.AddTrace(want)
	data := savedFiles(t, l, p)[statefile.PeerFileName(jolt)]
	if strings.Contains(string(data), `"hash"`) || strings.Contains(string(data), `"url"`) {
		t.Errorf("the file repeats what the record's key and peer give back:\n%s", data)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Traces[formHash]; got == nil || got.Hash != formHash || got.URL != want.URL {
		t.Errorf("the record read back is %+v, want hash %s and URL %s", got, formHash, want.URL)
	}
}

func TestALedgerRecordKeepsWhatItsKeyAndPeerDoNotGiveBack(t *testing.T) {
	cases := []struct {
		name string
		rec  Trace
		keep []string // what the file must still hold
	}{
		{"a URL that is not its peer's URL and file",
			Trace{AgentURL: jolt, Hash: formHash, File: "traces/3.md", URL: "https://cdn.example/3.md"},
			[]string{`"url": "https://cdn.example/3.md"`}},
		{"a hash that is not its key",
			Trace{AgentURL: jolt, Hash: "sha256:other", File: "traces/3.md", URL: jolt + "traces/3.md"},
			[]string{`"hash": "sha256:other"`}},
		{"a file without a URL keeps the older form",
			Trace{AgentURL: jolt, Hash: formHash, File: "traces/3.md"},
			[]string{`"hash": "` + string(formHash) + `"`}},
		{"a row without a file has no URL to give back",
			Trace{AgentURL: jolt, Hash: formHash},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
			l := New()
			l.Traces[formHash] = &c.rec
			data := string(savedFiles(t, l, p)[statefile.PeerFileName(jolt)])
			for _, s := range c.keep {
				if !strings.Contains(data, s) {
					t.Errorf("the file lost %s:\n%s", s, data)
				}
			}
			back, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := back.Traces[formHash]; got == nil || !reflect.DeepEqual(*got, c.rec) {
				t.Errorf("read back %+v, want %+v", got, c.rec)
			}
		})
	}
}

func TestAnOlderNodesLedgerFileReadsTheSameAndKeepsItsBytesUntilItsPeerChanges(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	older := New()
	older.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 3, Hash: formHash, File: "traces/3.md", URL: jolt + "traces/3.md", FirstSeen: day1})
	// A file column without a URL: an older file says so by leaving
	// the URL out, which partForm reads as its peer's URL and file.
	older.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 4, Hash: "sha256:04", File: "traces/4.md", FirstSeen: day1})
	name := statefile.PeerFileName(jolt)
	was := olderForm(t, older)
	if _, err := (*statefile.Cache)(nil).Update(p, map[string][]byte{name: was}, nil, nil); err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Traces, older.Traces) {
		t.Fatalf("the older file reads as\n%+v\nwant\n%+v", l.Traces, older.Traces)
	}
	l.AddTrace(&Trace{Agent: "axon37", AgentURL: axon, Seq: 1, Hash: "sha256:a1", File: "traces/1.md", URL: axon + "traces/1.md"})
	if got := savedFiles(t, l, p)[name]; string(got) != string(was) {
		t.Errorf("a save that changed another peer rewrote the older file:\n%s", got)
	}
	l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 5, Hash: "sha256:05", File: "traces/5.md", URL: jolt + "traces/5.md"})
	// The record with a file and no URL keeps the peer's file whole.
	if got := savedFiles(t, l, p)[name]; strings.Contains(string(got), `"form"`) {
		t.Errorf("a file with a record partForm cannot tell apart took the new form:\n%s", got)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Traces, l.Traces) {
		t.Errorf("after the change, read back\n%+v\nwant\n%+v", back.Traces, l.Traces)
	}
}

func TestALedgerFileOfAnUnknownFormIsRefusedAndKept(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	name := statefile.PeerFileName(jolt)
	newer := []byte(`{"form": 3, "traces": {"` + string(formHash) + `": {"agent_url": "` + jolt + `", "file": "traces/3.md"}}, "validations": {}, "rejected": {}}` + "\n")
	if _, err := (*statefile.Cache)(nil).Update(p, map[string][]byte{name: newer}, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	var corrupt *statefile.CorruptError
	if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "form 3") {
		t.Fatalf("Load of a file of form 3: %v, want a corrupt file naming its form", err)
	}
	if _, files, _ := statefile.Read(p); string(files[name]) != string(newer) {
		t.Errorf("the refused file changed:\n%s", files[name])
	}
}

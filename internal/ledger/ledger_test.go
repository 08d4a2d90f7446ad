package ledger

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

var update = flag.Bool("update", false, "rewrite golden files")

var (
	day1 = time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC)
	day2 = day1.Add(24 * time.Hour)
)

const (
	jolt = "https://jolt37.hive37.ai/traces/"
	axon = "https://axon37.hive37.ai/traces/"
)

func sample() *Ledger {
	l := New()
	l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 42, Hash: "sha256:bb", File: "traces/b.md", URL: jolt + "traces/b.md",
		Type: "capability", Status: "pending", Submitted: day1.In(time.FixedZone("X", 7200)), FirstSeen: day1, Cites: []string{"axon37/3"}, Verified: true})
	l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 41, Hash: "sha256:aa", Type: "knowledge", FirstSeen: day1})
	l.AddValidation(&Validation{Validator: "axon37", ValidatorURL: axon, TraceURL: jolt + "traces/b.md", TraceHash: "sha256:bb",
		Result: "pass", Total: 22, Scores: validation.Scores{4, 3, 4, 4, 4, 3}, HasScores: true, ValidatedAt: day1, SourceHash: "sha256:vb"})
	l.AddRejection(jolt+"traces/c.md", &Rejection{Agent: "jolt37", AgentURL: jolt, Seq: 43, ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", At: day2})
	return l
}

func TestSaveIsDeterministicAndLoadsBack(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	changed, err := sample().Save(p)
	if err != nil || !changed {
		t.Fatalf("save: changed=%v err=%v", changed, err)
	}
	golden(t, "split.golden.txt", splitText(t, p))
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := back.Save(p); err != nil || changed {
		t.Fatalf("resave of loaded ledger: changed=%v err=%v, want unchanged", changed, err)
	}
}

// splitText is every file of the split ledger at p, each after its name.
func splitText(t *testing.T, p string) []byte {
	t.Helper()
	legacy, files, err := statefile.Read(p)
	if err != nil || legacy != nil {
		t.Fatalf("read split: legacy %q, err %v", legacy, err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		b.WriteString("== " + name + "\n")
		b.Write(files[name])
	}
	return []byte(b.String())
}

func TestEachPeersRecordsLiveInItsOwnFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := sample()
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	_, before, _ := statefile.Read(p)
	l.AddTrace(&Trace{Agent: "axon37", AgentURL: axon, Seq: 1, Hash: "sha256:ee", FirstSeen: day2})
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	_, after, _ := statefile.Read(p)
	if string(before[statefile.PeerFileName(jolt)]) != string(after[statefile.PeerFileName(jolt)]) {
		t.Error("a trace of axon37 rewrote jolt37's ledger file")
	}
	if string(before[statefile.PeerFileName(axon)]) == string(after[statefile.PeerFileName(axon)]) {
		t.Error("axon37's ledger file does not hold its new trace")
	}
}

func TestOldSingleFileMigratesOnSave(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	old, err := os.ReadFile(filepath.Join("testdata", "legacy-single-file.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, old, 0o644)
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecords(l, mustLoadSample(t)) {
		t.Fatalf("the single file loads as %+v; want the sample", l)
	}
	if changed, err := l.Save(p); err != nil || !changed {
		t.Fatalf("save: changed=%v err=%v", changed, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("the single file is still there after the split: %v", err)
	}
	back, err := Load(p)
	if err != nil || !sameRecords(back, l) {
		t.Fatalf("after the split: %+v, %v; want what the single file held", back, err)
	}
}

// sameRecords reports whether a and b hold the same records, whatever
// either knows of what changed since it was read.
func sameRecords(a, b *Ledger) bool {
	return reflect.DeepEqual(a.Traces, b.Traces) && reflect.DeepEqual(a.Validations, b.Validations) &&
		reflect.DeepEqual(a.Rejected, b.Rejected) && reflect.DeepEqual(a.Disputes, b.Disputes) &&
		reflect.DeepEqual(a.Copies, b.Copies)
}

// mustLoadSample is sample() as it reads back from disk.
func mustLoadSample(t *testing.T) *Ledger {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	if _, err := sample().Save(p); err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoadMissingGivesEmptyAndCorruptIsLeftAlone(t *testing.T) {
	dir := t.TempDir()
	l, err := Load(filepath.Join(dir, "ledger.json"))
	if err != nil || len(l.Traces) != 0 || l.Traces == nil {
		t.Fatalf("missing file: %+v, %v", l, err)
	}
	p := filepath.Join(dir, "ledger.json")
	bad := "{\n  \"traces\": {\"sha256:aa\": {\"seq\": \"x\"}}\n}\n"
	os.WriteFile(p, []byte(bad), 0o644)
	_, err = Load(p)
	var ce *statefile.CorruptError
	if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), "ledger.json:2:") {
		t.Fatalf("err = %v, want *statefile.CorruptError at line 2", err)
	}
	if got, _ := os.ReadFile(p); string(got) != bad {
		t.Fatal("corrupt ledger was rewritten")
	}
}

func TestAddTraceKeepsFirstSeenAndVerification(t *testing.T) {
	l := sample()
	l.AddTrace(&Trace{Agent: "jolt37", AgentURL: jolt, Seq: 42, Hash: "sha256:bb", Status: "validated", FirstSeen: day2})
	got := l.Traces["sha256:bb"]
	tests := []struct {
		name string
		ok   bool
	}{
		{"status takes the new value", got.Status == "validated"},
		{"first seen stays the first", got.FirstSeen.Equal(day1)},
		{"verified stays verified", got.Verified},
		{"fields left empty keep old values", got.File == "traces/b.md" && got.Type == "capability" && len(got.Cites) == 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Fatalf("trace after re-add: %+v", got)
			}
		})
	}
}

// TestEachValidationFileIsItsOwnRecord: records are keyed by publisher
// and file hash, so files that name no trace hash (real validation traces
// on the mesh) never share a key, and reading one file again replaces it.
func TestEachValidationFileIsItsOwnRecord(t *testing.T) {
	l := New()
	for _, src := range []manifest.Hash{"sha256:f1", "sha256:f2", "sha256:f3", "sha256:f1"} {
		l.AddValidation(&Validation{Validator: "axon37", ValidatorURL: axon, SourceHash: src, Result: "pass"})
	}
	l.AddValidation(&Validation{Validator: "jolt37", ValidatorURL: jolt, SourceHash: "sha256:f1"})
	if n := len(l.ValidationsBy(axon)); n != 3 {
		t.Errorf("axon37 has %d records, want one per file (3)", n)
	}
	if n := len(l.Validations); n != 4 {
		t.Errorf("ledger holds %d validations, want 4", n)
	}
}

func TestOlderKeysAreReadAsOneRecordPerFile(t *testing.T) {
	old := `{"validations": {
  "` + axon + ` ": {"validator": "axon37", "validator_url": "` + axon + `", "trace_hash": "", "source_hash": "sha256:f1"},
  "` + axon + ` sha256:bb": {"validator": "axon37", "validator_url": "` + axon + `", "trace_hash": "sha256:bb", "source_hash": "sha256:f2"}
}}`
	l, err := decode([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{axon + " sha256:f1", axon + " sha256:f2"} {
		if l.Validations[k] == nil {
			t.Errorf("no record under %q: %v", k, l.Validations)
		}
	}
}

func TestQueriesAreSorted(t *testing.T) {
	l := sample()
	l.AddValidation(&Validation{ValidatorURL: jolt, TraceHash: "sha256:zz", ValidatedAt: day1})
	l.AddValidation(&Validation{ValidatorURL: jolt, TraceHash: "sha256:aa", ValidatedAt: day1})
	tr := l.TracesBy(jolt)
	if len(tr) != 2 || tr[0].Seq != 41 || tr[1].Seq != 42 || len(l.TracesBy(axon)) != 0 {
		t.Fatalf("TracesBy = %+v", tr)
	}
	by := l.ValidationsBy(jolt)
	if len(by) != 2 || by[0].TraceHash != "sha256:aa" || by[1].TraceHash != "sha256:zz" {
		t.Fatalf("ValidationsBy = %+v", by)
	}
	if all := l.SortedTraces(); len(all) != 2 || all[0].Hash != "sha256:aa" {
		t.Fatalf("SortedTraces = %+v", all)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("bytes differ from %s (run with -update and review the diff):\n%s", p, got)
	}
}

func FuzzDecode(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "legacy-single-file.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"traces":{"x":null},"validations":{"a b":{"scores":[1,2,3,4,5,6,7]}}}`))
	f.Add([]byte(`{"disputes":{"k":{"reporter_url":"https://a/","claimed_hash":"sha256:c","observed_at":"2026-02-23T18:00:00+02:00"},"n":null}}`))
	f.Add([]byte(`{"form":2,"traces":{"sha256:aa":{"agent_url":"https://a/","file":"t/1.md"},"sha256:bb":{"agent_url":"https://a/","hash":"sha256:cc","url":""}}}`))
	f.Add([]byte(`{"traces":{"sha256:aa":{"agent_url":"https://a/","hash":"sha256:aa","file":"t/1.md"}}}`))
	f.Add([]byte(`{"form":3,"traces":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := decode(data)
		if err != nil {
			return
		}
		files, err := l.Files()
		if err != nil {
			t.Fatal(err)
		}
		again := New()
		for name, data := range files {
			if err := again.merge(data); err != nil {
				t.Fatalf("ledger file %s written by Files does not decode: %v", name, err)
			}
		}
		// What a file's form leaves out of a record comes back whole.
		for k, tr := range l.Traces {
			if got := again.Traces[k]; got == nil || got.Hash != tr.Hash || got.URL != tr.URL {
				t.Fatalf("trace %q read back as %+v, want hash %q and URL %q", k, got, tr.Hash, tr.URL)
			}
		}
		files2, _ := again.Files()
		if !reflect.DeepEqual(files, files2) {
			t.Fatal("files are not stable")
		}
	})
}

func TestForgetRemovesOneAgentsRecordsOnly(t *testing.T) {
	l := New()
	l.AddTrace(&Trace{Agent: "good1", AgentURL: "https://good/", Hash: "sha256:aa", Verified: true})
	l.AddTrace(&Trace{Agent: "good1", AgentURL: "https://evil/", Hash: "sha256:bb", Verified: true})
	l.AddValidation(&Validation{Validator: "good1", ValidatorURL: "https://evil/", TraceHash: "sha256:aa", SourceHash: "sha256:cc"})
	l.AddValidation(&Validation{Validator: "good1", ValidatorURL: "https://good/", TraceHash: "sha256:bb", SourceHash: "sha256:dd"})
	l.AddRejection("https://evil/x.md", &Rejection{Agent: "good1", AgentURL: "https://evil/"})
	got := l.Forget("https://evil/")
	if want := []manifest.Hash{"sha256:bb", "sha256:cc"}; !reflect.DeepEqual(got, want) {
		t.Errorf("forgot %v, want %v", got, want)
	}
	if len(l.Traces) != 1 || l.Traces["sha256:aa"] == nil || len(l.Validations) != 1 || len(l.Rejected) != 0 {
		t.Errorf("left %d traces, %d validations, %d rejections", len(l.Traces), len(l.Validations), len(l.Rejected))
	}
}

func TestRenameMovesAnAgentsRecordsToItsOtherSpelling(t *testing.T) {
	const from, to = "https://a.example:0443/x/", "https://a.example/x/"
	l := New()
	l.AddTrace(&Trace{Agent: "a", AgentURL: from, Hash: "sha256:t", URL: from + "traces/t.md", Verified: true})
	l.AddValidation(&Validation{Validator: "a", ValidatorURL: from, TraceHash: "sha256:o", SourceURL: from + "validations/v.md"})
	l.AddRejection(from+"traces/bad.md", &Rejection{Agent: "a", AgentURL: from, ClaimedHash: "sha256:c"})
	l.AddTrace(&Trace{Agent: "b", AgentURL: "https://b.example/", Hash: "sha256:b", URL: "https://b.example/traces/b.md"})
	l.Rename(from, to)
	if tr := l.Traces["sha256:t"]; tr.AgentURL != to || tr.URL != to+"traces/t.md" {
		t.Errorf("trace: %+v", tr)
	}
	if v := l.Validations[to+" trace sha256:o"]; v == nil || v.ValidatorURL != to || v.SourceURL != to+"validations/v.md" || len(l.Validations) != 1 {
		t.Errorf("validations: %v", l.Validations)
	}
	if r := l.Rejected[to+"traces/bad.md"]; r == nil || r.AgentURL != to || len(l.Rejected) != 1 {
		t.Errorf("rejections: %v", l.Rejected)
	}
	if b := l.Traces["sha256:b"]; b.AgentURL != "https://b.example/" {
		t.Errorf("another agent's trace moved: %+v", b)
	}
}

// TestACopyIsRecordedBesideTheFirstListing: the same bytes listed by two
// agents are two records, each saved in its lister's file and read back;
// forgetting the first lister leaves the other's record in Traces.
func TestACopyIsRecordedBesideTheFirstListing(t *testing.T) {
	const mirror, author = "https://mirror.example/", "https://author.example/"
	h := manifest.Hash("sha256:" + strings.Repeat("ab", 32))
	l := New()
	l.AddTrace(&Trace{Agent: "mirror", AgentURL: mirror, Seq: 1, Hash: h, URL: mirror + "traces/a.md", Verified: true})
	l.AddCopy(&Trace{Agent: "author", AgentURL: author, Seq: 7, Hash: h, URL: author + "traces/a.md", Verified: true})
	path := filepath.Join(t.TempDir(), "ledger.json")
	if _, err := l.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr := got.Traces[h]; tr == nil || tr.AgentURL != mirror {
		t.Fatalf("first listing: %+v", tr)
	}
	if c := got.Copies[CopyKey(author, h)]; c == nil || c.Seq != 7 || c.URL != author+"traces/a.md" {
		t.Fatalf("copy after a load: %+v", c)
	}
	if len(got.CopiesBy(author)) != 1 || len(got.CopiesBy(mirror)) != 0 {
		t.Errorf("copies by the author %d, by the mirror %d; want 1, 0", len(got.CopiesBy(author)), len(got.CopiesBy(mirror)))
	}
	if got.CopiedBy(mirror) != 1 || got.CopiedBy(author) != 1 || got.CopiedBy("https://other.example/") != 0 {
		t.Errorf("copied by the mirror %d, the author %d; want 1 each", got.CopiedBy(mirror), got.CopiedBy(author))
	}
	if hashes := got.Forget(mirror); !slices.Equal(hashes, []manifest.Hash{h}) {
		t.Errorf("forgot %v", hashes)
	}
	if tr := got.Traces[h]; tr == nil || tr.AgentURL != author || len(got.Copies) != 0 {
		t.Errorf("after forgetting the mirror: trace %+v, copies %v", tr, got.Copies)
	}
}

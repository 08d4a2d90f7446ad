package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

const bolt2 = "https://bolt.example/b/"

// everyField is a ledger with a record of each kind, each field set, in
// both the forms a summary writes short (a file's URL under its peer's)
// and not.
func everyField(t *testing.T) *Ledger { return everyFieldOf(t) }

// everyFieldOf is everyField, for a test or a fuzz target.
func everyFieldOf(t testing.TB) *Ledger {
	t.Helper()
	l := New()
	t1 := &Trace{Agent: "jolt37", AgentURL: jolt, Seq: 42, Hash: "sha256:bb", File: "traces/b.md", URL: jolt + "traces/b.md",
		Type: "capability", Category: "ops", Title: "B", Status: "validated", Submitted: day1, FirstSeen: day2,
		Cites: []string{"axon37/3"}, Fingerprint: 0xfeed, Verified: true, Verdicts: []Verdict{{Agent: "axon37", Seq: 3, Result: "valid"}},
		TakenDown: Withdrawn}
	l.AddTrace(t1)
	l.AddTrace(&Trace{Agent: "Jolt", AgentURL: jolt, Seq: 41, Hash: "sha256:aa", File: "traces/a.md", URL: "https://mirror.example/a.md", FirstSeen: day1})
	l.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt2, Seq: 2, Hash: "sha256:bb", File: "c.md", URL: bolt2 + "c.md", Title: "Copy",
		Category: "x", Fingerprint: 1, Verified: true, FirstSeen: day1})
	v := &Validation{Validator: "axon37", ValidatorURL: axon, TraceURL: jolt + "traces/b.md", TraceHash: "sha256:bb",
		Result: "pass", Total: 22, Scores: validation.Scores{4, 3, 4, 4, 4, 3}, HasScores: true, ValidatedAt: day1,
		SourceURL: axon + "validations/b.md", SourceHash: "sha256:vb"}
	l.AddValidation(v)
	l.AddValidation(&Validation{Validator: "Axon", ValidatorURL: axon, TraceHash: "sha256:aa", Result: "fail", ValidatedAt: day2,
		SourceURL: "https://elsewhere.example/v.md", SourceHash: "sha256:va"})
	r := &Rejection{Agent: "jolt37", AgentURL: jolt, Seq: 43, ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", At: day2}
	l.AddRejection(jolt+"traces/c.md", r)
	d := &Dispute{Reporter: "bolt", ReporterURL: bolt2, Agent: "jolt37", AgentURL: jolt, FileURL: jolt + "traces/c.md", Seq: 43,
		ClaimedHash: "sha256:cc", ServedHash: "sha256:dd", ObservedAt: day2, SourceURL: bolt2 + "d.md", SourceHash: "sha256:d9"}
	l.AddDispute(d)
	for _, rec := range []any{t1, v, r, d} {
		rv := reflect.ValueOf(rec).Elem()
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Fatalf("%T.%s is unset: set it, so the summary is seen to keep it", rec, rv.Type().Field(i).Name)
			}
		}
	}
	return l
}

// sealedEveryField saves everyField, every record sealed, at a new path.
func sealedEveryField(t *testing.T) (string, *Ledger) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := everyField(t)
	compacted(t, l, later)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	return p, l
}

// summarizedCopy is l with its sealed traces and copies as a summary
// holds them.
func summarizedCopy(l *Ledger) *Ledger {
	c := New()
	c.add(l)
	c.Copies = map[string]*Trace{}
	for k, t := range l.Traces {
		if l.seal.holds(t) {
			c.Traces[k] = summarized(t)
		}
	}
	for k, t := range l.Copies {
		if l.seal.holds(t) {
			c.Copies[k] = summarized(t)
		} else {
			c.Copies[k] = t
		}
	}
	if len(c.Copies) == 0 {
		c.Copies = l.Copies
	}
	return c
}

func TestSummaryHoldsEveryFieldButATracesTitleAndCitations(t *testing.T) {
	p, _ := sealedEveryField(t)
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	partial := 0
	for _, ps := range got.seal.peers {
		partial += len(ps.partial)
	}
	if len(got.seal.dirty) != 0 || partial != len(listSegments(t, p)) {
		t.Fatalf("%d groups stale, %d segments read from summaries: the records were not read from their summaries", len(got.seal.dirty), partial)
	}
	if want := summarizedCopy(full); !sameRecords(got, want) {
		t.Errorf("through the summaries:\n%v\nwant:\n%v", whole(t, got), whole(t, want))
	}
}

func TestDamagedSummaryIsReadFromItsSegmentsAndWrittenAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(data []byte) []byte
	}{
		{"missing", func([]byte) []byte { return nil }},
		{"truncated", func(data []byte) []byte { return data[:len(data)/2] }},
		{"a byte of its records changed", func(data []byte) []byte {
			return bytes.Replace(data, []byte("\t42\t"), []byte("\t52\t"), 1)
		}},
		{"of a segment of another size", func(data []byte) []byte {
			return bytes.Replace(data, []byte(`"size":`), []byte(`"size":1`), 1)
		}},
		{"of another segment", func(data []byte) []byte {
			return bytes.Replace(data, []byte(`"rel":"`), []byte(`"rel":"x`), 1)
		}},
		{"another version", func(data []byte) []byte {
			return bytes.Replace(data, []byte(`{"version":2,`), []byte(`{"version":9,`), 1)
		}},
		{"no header", func([]byte) []byte { return []byte("{}") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := sealedEveryField(t)
			fp := joltSummary(t, p)
			good, err := os.ReadFile(fp)
			if err != nil {
				t.Fatal(err)
			}
			bad := tc.damage(good)
			if bytes.Equal(bad, good) {
				t.Fatal("the damage changed nothing")
			}
			if bad == nil {
				os.Remove(fp)
			} else if err := os.WriteFile(fp, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			full, _ := Load(p)
			got, err := LoadCompact(p)
			if err != nil {
				t.Fatal(err)
			}
			// jolt's records are read whole, with their citations.
			if !reflect.DeepEqual(got.Traces["sha256:bb"], full.Traces["sha256:bb"]) {
				t.Errorf("trace read as %+v, want %+v, from its segment", got.Traces["sha256:bb"], full.Traces["sha256:bb"])
			}
			if changed, err := got.Save(p); err != nil || !changed {
				t.Fatalf("save: changed=%v err=%v", changed, err)
			}
			if again, _ := os.ReadFile(fp); !bytes.Equal(again, good) {
				t.Errorf("summary written again as\n%s\nwant\n%s", again, good)
			}
		})
	}
}

// joltSummary is the file of the summary that holds jolt's segment in
// the ledger at p.
func joltSummary(t *testing.T, p string) string {
	t.Helper()
	return filepath.Join(statefile.SegmentsDir(p), summaryGroup(segmentOf(t, p, jolt).Rel)+".summary")
}

// segmentOf is the segment that holds the sealed records of the peer at
// url in the ledger at p: its own, or its shard's.
func segmentOf(t *testing.T, p, url string) statefile.SegmentFile {
	t.Helper()
	dir := peerDir(statefile.PeerFileName(url))
	for _, f := range listSegments(t, p) {
		if d := path.Dir(f.Rel); d == dir || d == "shard-"+shardOf(dir) {
			return f
		}
	}
	t.Fatalf("no segment of %s", url)
	return statefile.SegmentFile{}
}

func listSegments(t *testing.T, p string) []statefile.SegmentFile {
	t.Helper()
	segs, err := statefile.ListSegments(p)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments %v: %v", segs, err)
	}
	return segs
}

func FuzzDecodeSummary(f *testing.F) {
	withCopy := sample()
	withCopy.AddCopy(&Trace{Agent: "bolt", AgentURL: bolt, Seq: 2, Hash: "sha256:bb", FirstSeen: day2})
	for _, l := range []*Ledger{withCopy, everyFieldOf(f), oddStrings()} {
		p := filepath.Join(f.TempDir(), "ledger.json")
		if err := l.Compact(later); err != nil {
			f.Fatal(err)
		}
		if _, err := l.Save(p); err != nil {
			f.Fatal(err)
		}
		segs, err := statefile.ListSegments(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range segs {
			data, err := statefile.ReadSummary(p, summaryGroup(s.Rel), 1<<30)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// As it is, and with its body's sum made right, so that mutations
		// of the records get past the header's checksum to their decoder.
		roundTrips(t, data)
		roundTrips(t, resealed(data))
	})
}

// resealed is data, a summary, with the body's sha256 in its header
// made that of its body.
func resealed(data []byte) []byte {
	line, body, ok := bytes.Cut(data, []byte{'\n'})
	var h summaryHeader
	if !ok || json.Unmarshal(line, &h) != nil {
		return data
	}
	sum := sha256.Sum256(body)
	h.Body = hex.EncodeToString(sum[:])
	head, err := json.Marshal(h)
	if err != nil {
		return data
	}
	return append(append(head, '\n'), body...)
}

// roundTrips checks that a summary that decodes, summarized again, reads
// back the same.
func roundTrips(t *testing.T, data []byte) {
	// The segments on disk are those the header names, so that a
	// well-formed summary gets past it to its records.
	var h summaryHeader
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	json.Unmarshal(line, &h)
	var files []statefile.SegmentFile
	for _, m := range h.Segments {
		files = append(files, statefile.SegmentFile{Rel: m.Rel, Size: m.Size})
	}
	got, err := decodeSummary(files, data, nil)
	if err != nil {
		return
	}
	// What it holds, summarized again, reads back the same.
	segs := make([]sealedSegment, len(files))
	for i, f := range files {
		segs[i] = sealedSegment{rel: f.Rel, size: f.Size, peers: fullParts(got[i])}
	}
	again, err := encodeSummary(segs)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeSummary(files, again, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if !reflect.DeepEqual(back[i], got[i]) {
			t.Errorf("segment %d read back as %+v, want %+v", i, whole(t, flat(back[i])), whole(t, flat(got[i])))
		}
	}
}

// TestSummaryOfSegmentsAllGoneIsRemoved: an older node, which knows no
// summaries, removed every segment of a group (Forget); the next save
// removes the group's summary.
func TestSummaryOfSegmentsAllGoneIsRemoved(t *testing.T) {
	p, _ := sealedEveryField(t)
	fp := joltSummary(t, p)
	for _, f := range listSegments(t, p) {
		if err := statefile.RemoveSegment(p, f.Rel); err != nil {
			t.Fatal(err)
		}
	}
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := l.Save(p); err != nil || !changed {
		t.Fatalf("save: changed=%v err=%v", changed, err)
	}
	if _, err := os.Stat(fp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("summary of no segment left: %v", err)
	}
}

// TestSegmentEditedToTheSameSizeIsCorruptForEveryReader: a summary is
// matched to its segments by name and size, so an edit of a segment that
// keeps its size would have the heartbeat (through the summary) and every
// reader of whole records (verify, the site) compute from different
// records, and a change of the peer's sealed records fail every save
// after. A segment's name carries its sha256, so such bytes are corrupt:
// Load says so, and so does the first change that reads the segment.
func TestSegmentEditedToTheSameSizeIsCorruptForEveryReader(t *testing.T) {
	p, _ := sealedEveryField(t)
	fp := filepath.Join(statefile.SegmentsDir(p), filepath.FromSlash(segmentOf(t, p, jolt).Rel))
	data, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"seq":42`), []byte(`"seq":52`), 1)
	if bytes.Equal(edited, data) || len(edited) != len(data) {
		t.Fatal("the edit did not keep the segment's size")
	}
	if err := os.WriteFile(fp, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "restore it from git") {
		t.Errorf("Load of the edited segment: %v, want it corrupt", err)
	}
	compact, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	compact.TakeDown("sha256:bb", "")
	if _, err := compact.Save(p); err == nil || !strings.Contains(err.Error(), "restore it from git") {
		t.Errorf("a change of the peer's sealed records saved with: %v, want the segment corrupt", err)
	}
}

// TestWholeTraceReadsATitleASummaryLeftOut: what shows a sealed trace
// to a person (a queue item) gets its title from the segment.
func TestWholeTraceReadsATitleASummaryLeftOut(t *testing.T) {
	p, _ := sealedEveryField(t)
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if l.Traces["sha256:bb"].Title != "" {
		t.Fatal("the summary held the sealed trace's title: nothing to test")
	}
	if got := l.WholeTrace("sha256:bb"); got == nil || got.Title != "B" || len(got.Cites) != 1 {
		t.Fatalf("WholeTrace gave %+v, want the title and citations of the segment", got)
	}
	if l.WholeTrace("sha256:none") != nil {
		t.Error("WholeTrace of a hash the ledger does not hold is not nil")
	}
}

// TestHugeSummaryIsNeitherReadNorTrusted: a summary far larger than its
// segments could give (a damaged or hostile file, here a sparse 64 GiB
// one) is refused before it is read, which would take that much memory;
// its segments are read whole instead and the summary written again.
func TestHugeSummaryIsNeitherReadNorTrusted(t *testing.T) {
	p, _ := sealedEveryField(t)
	fp := joltSummary(t, p)
	good, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(fp, 64<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	read := false
	restore := statefile.SetReadHook(func(path string) { read = read || path == fp })
	l, err := LoadCompact(p)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if read {
		t.Error("the huge summary was read")
	}
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Traces["sha256:bb"], full.Traces["sha256:bb"]) {
		t.Errorf("trace read as %+v, want %+v, from its segment", l.Traces["sha256:bb"], full.Traces["sha256:bb"])
	}
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(fp); err != nil || info.Size() != int64(len(good)) {
		t.Fatalf("the summary was not written again: %v, %v", info, err)
	}
	if again, _ := os.ReadFile(fp); !bytes.Equal(again, good) {
		t.Errorf("summary written again as\n%s\nwant\n%s", again, good)
	}
}

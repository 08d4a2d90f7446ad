package ledger

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// groupSegments is the segments on disk of the group of the summary
// file fp in the ledger at p, read whole, as the summary writer takes
// them.
func groupSegments(t *testing.T, p, fp string) []sealedSegment {
	t.Helper()
	var segs []sealedSegment
	for _, f := range listSegments(t, p) {
		if summaryGroup(f.Rel)+".summary" != filepath.Base(fp) {
			continue
		}
		data, err := statefile.ReadSegment(p, f.Rel)
		if err != nil {
			t.Fatal(err)
		}
		peers, err := decodeSegment(f.Rel, data)
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, sealedSegment{rel: f.Rel, size: f.Size, peers: fullParts(peers)})
	}
	if len(segs) == 0 {
		t.Fatalf("no segment of %s", fp)
	}
	return segs
}

// forgeJolt writes the summary of jolt's group in the ledger at p with a
// header that is whole but jolt's records as lie makes them of its
// segment's, as a forged or damaged-then-rehashed summary would; it
// returns the summary's file.
func forgeJolt(t *testing.T, p string, lie func(*Ledger)) string {
	t.Helper()
	return forgeJoltSegment(t, p, func(peers map[string]*Ledger) {
		held := peers[statefile.PeerFileName(jolt)]
		if held == nil {
			t.Fatal("jolt's group holds no record of jolt to lie about")
		}
		lie(held)
	})
}

// forgeJoltSegment is forgeJolt, lie given the records of every peer of
// jolt's segment by peer file name.
func forgeJoltSegment(t *testing.T, p string, lie func(peers map[string]*Ledger)) string {
	t.Helper()
	fp := joltSummary(t, p)
	segs := groupSegments(t, p, fp)
	for _, s := range segs {
		if s.peers[statefile.PeerFileName(jolt)].l != nil {
			peers := map[string]*Ledger{}
			for name, p := range s.peers {
				peers[name] = p.l
			}
			lie(peers)
			s.peers = fullParts(peers)
		}
	}
	data, err := encodeSummary(segs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return fp
}

// lyingSummary saves everyField sealed at a new path and forges the
// summary of jolt's group to give a trace's seq that is not its
// segment's; it returns the ledger's path and the summary's file.
func lyingSummary(t *testing.T) (p, fp string) {
	t.Helper()
	p, _ = sealedEveryField(t)
	return p, forgeJolt(t, p, func(l *Ledger) { l.Traces["sha256:bb"].Seq = 52 })
}

// segmentBytesOn is every segment of the ledger at p, by rel.
func segmentBytesOn(t *testing.T, p string) map[string][]byte {
	t.Helper()
	segs, err := statefile.ReadSegments(p)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments %d: %v", len(segs), err)
	}
	return segs
}

// peerFilesOn is the peers' files of the ledger at p, by name.
func peerFilesOn(t *testing.T, p string) map[string][]byte {
	t.Helper()
	_, files, err := statefile.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// joltSealed is everyField with more records of jolt of every kind, two
// validations and a dispute among them, a trace of a neighbour (a peer of
// jolt's shard) and one of axon a quarter before, sealed at a new path.
func joltSealed(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := everyField(t)
	l.AddTrace(&Trace{Agent: "near", AgentURL: neighbour(t), Seq: 1, Hash: "sha256:n1", File: "n.md", FirstSeen: day1})
	l.AddTrace(&Trace{Agent: "axon37", AgentURL: axon, Seq: 1, Hash: "sha256:01", File: "o.md", FirstSeen: day1.AddDate(0, -3, 0)})
	for _, h := range []string{"sha256:v1", "sha256:v2"} {
		l.AddValidation(&Validation{Validator: "jolt37", ValidatorURL: jolt, TraceURL: axon + "x.md", TraceHash: "sha256:xx",
			Result: "pass", Total: 20, ValidatedAt: day1, SourceURL: jolt + "validations/" + h[7:] + ".md", SourceHash: manifest.Hash(h)})
	}
	l.AddDispute(&Dispute{Reporter: "jolt37", ReporterURL: jolt, Agent: "axon37", AgentURL: axon, FileURL: axon + "y.md", Seq: 7,
		ClaimedHash: "sha256:c1", ServedHash: "sha256:d1", ObservedAt: day1, SourceURL: jolt + "d.md", SourceHash: "sha256:dj"})
	compacted(t, l, later)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// neighbour is the URL of a peer of jolt's shard (shardMate), and ghost
// that of another, which the ledger never holds.
func neighbour(*testing.T) string { return shardMate() }
func ghost(t *testing.T) string {
	t.Helper()
	want := shardOf(peerDir(statefile.PeerFileName(jolt)))
	for i := range 1000 {
		u := fmt.Sprintf("https://ghost%d.example/", i)
		if shardOf(peerDir(statefile.PeerFileName(u))) == want {
			return u
		}
	}
	t.Fatal("no peer of jolt's shard among 1000")
	return ""
}

// takeDownThroughSummaries loads the ledger at p through its summaries,
// takes down a sealed trace of jolt, which reads jolt's segments whole,
// and saves; it returns the ledger.
func takeDownThroughSummaries(t *testing.T, p string) *Ledger {
	t.Helper()
	l, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	l.TakeDown("sha256:bb", "")
	if _, err := l.Save(p); err != nil {
		t.Fatalf("save: %v", err)
	}
	return l
}

// TestSummaryThatLiesIsRepairedFromItsSegment: a summary whose header is
// whole but whose records of a peer are not its segment's, of any kind,
// is found when a change reads the peer's segments whole; the segment,
// which its name verifies, is trusted, so the save succeeds and leaves
// exactly what a twin that never had the lie leaves after the same
// change: the same records, the same peers' files, the summary as the
// writer gives it of the segments, which no step rewrites. Edits changes
// and Repaired names the summary. Before, the save failed with nothing
// written, and every save with news after it on a fresh checkout.
func TestSummaryThatLiesIsRepairedFromItsSegment(t *testing.T) {
	jv := func(h string) string { return jolt + " sha256:" + h }
	lies := []struct {
		name string
		lie  func(*Ledger)
	}{
		{"changed trace field", func(l *Ledger) { l.Traces["sha256:bb"].Seq = 52 }},
		{"phantom trace", func(l *Ledger) {
			l.Traces["sha256:ee"] = &Trace{Agent: "jolt37", AgentURL: jolt, Seq: 9, Hash: "sha256:ee", FirstSeen: day1}
		}},
		{"missing trace", func(l *Ledger) { delete(l.Traces, "sha256:aa") }},
		{"phantom trace of a key an earlier segment holds", func(l *Ledger) {
			l.Traces["sha256:01"] = &Trace{Agent: "jolt37", AgentURL: jolt, Seq: 3, Hash: "sha256:01", FirstSeen: day1}
		}},
		{"phantom validation", func(l *Ledger) {
			v := *l.Validations[jv("v1")]
			v.SourceHash, v.SourceURL = "sha256:v9", jolt+"validations/v9.md"
			l.Validations[v.Key()] = &v
		}},
		{"missing validation", func(l *Ledger) { delete(l.Validations, jv("v2")) }},
		{"changed validation", func(l *Ledger) { l.Validations[jv("v1")].Total = 30 }},
		{"changed rejection", func(l *Ledger) { l.Rejected[jolt+"traces/c.md"].ServedHash = "sha256:ff" }},
		{"changed dispute", func(l *Ledger) { l.Disputes[jv("dj")].ServedHash = "sha256:ff" }},
		{"every lie at once", func(l *Ledger) {
			l.Traces["sha256:bb"].Seq = 52
			delete(l.Traces, "sha256:aa")
			delete(l.Validations, jv("v2"))
			l.Rejected[jolt+"traces/c.md"].ServedHash = "sha256:ff"
			l.Disputes[jv("dj")].ServedHash = "sha256:ff"
		}},
	}
	for _, c := range lies {
		t.Run(c.name, func(t *testing.T) {
			p, twin := joltSealed(t), joltSealed(t)
			fp := forgeJolt(t, p, c.lie)
			segs := segmentBytesOn(t, p)
			l, honest := takeDownThroughSummaries(t, p), takeDownThroughSummaries(t, twin)
			heldAsTwin(t, l, honest)
			if l.Edits() == honest.Edits() {
				t.Errorf("edits %d, as the twin's: what was computed from the lie is kept", l.Edits())
			}
			if got := l.Repaired(); !reflect.DeepEqual(got, []string{fp}) || len(honest.Repaired()) != 0 {
				t.Errorf("repaired %v (the twin %v), want %s", got, honest.Repaired(), fp)
			}
			sameAsTwin(t, p, twin, fp)
			if after := segmentBytesOn(t, p); !reflect.DeepEqual(after, segs) {
				t.Error("a segment was written because its summary lied")
			}
		})
	}
}

// TestRepairPutsRightEveryPeerOfTheSummary: the summary that lied about
// jolt lies about its neighbour in the same segment too, or names a
// peer the segment does not hold; the change that reads jolt's segments
// whole, or forgets that peer, puts every peer of the group right, so the
// summary written again is the segments' and no record of the lie stays.
func TestRepairPutsRightEveryPeerOfTheSummary(t *testing.T) {
	cases := []struct {
		name   string
		lie    func(t *testing.T, peers map[string]*Ledger)
		change func(t *testing.T, l *Ledger)
	}{
		{"a neighbour's trace changed", func(t *testing.T, peers map[string]*Ledger) {
			peers[statefile.PeerFileName(jolt)].Traces["sha256:bb"].Seq = 52
			peers[statefile.PeerFileName(neighbour(t))].Traces["sha256:n1"].Seq = 7
		}, func(_ *testing.T, l *Ledger) { l.TakeDown("sha256:bb", "") }},
		{"a peer the segment does not hold", func(t *testing.T, peers map[string]*Ledger) {
			g := ghost(t)
			peers[statefile.PeerFileName(g)] = &Ledger{Traces: map[manifest.Hash]*Trace{
				"sha256:g1": {Agent: "ghost", AgentURL: g, Seq: 1, Hash: "sha256:g1", FirstSeen: day1}}}
		}, func(t *testing.T, l *Ledger) { l.Forget(ghost(t)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, twin := joltSealed(t), joltSealed(t)
			fp := forgeJoltSegment(t, p, func(peers map[string]*Ledger) { c.lie(t, peers) })
			segs := segmentBytesOn(t, p)
			var held []*Ledger
			for _, q := range []string{p, twin} {
				l := mustLoad(t, q, LoadCompact)
				c.change(t, l)
				if _, err := l.Save(q); err != nil {
					t.Fatalf("save: %v", err)
				}
				held = append(held, l)
			}
			heldAsTwin(t, held[0], held[1])
			sameAsTwin(t, p, twin, fp)
			if after := segmentBytesOn(t, p); !reflect.DeepEqual(after, segs) {
				t.Error("a segment was written because its summary lied")
			}
		})
	}
}

// heldAsTwin checks that l, whose summary lied, holds in the run what
// honest, its twin's, holds, but for the title and citations of sealed
// traces one of them read whole: what SIGNAL and every other reader of a
// heartbeat compute from.
func heldAsTwin(t *testing.T, l, honest *Ledger) {
	t.Helper()
	if got, want := summarizedCopy(l), summarizedCopy(honest); !sameRecords(got, want) {
		t.Errorf("held in the run:\n%v\nwant the twin's:\n%v", whole(t, got), whole(t, want))
	}
}

// sameAsTwin checks that the ledger at p, whose summary fp lied, loads
// as the ledger at twin does, whole and through the summaries, holds the
// same peers' files, and that fp is the summary the writer gives of its
// segments; then that a save with no news changes nothing.
func sameAsTwin(t *testing.T, p, twin, fp string) {
	t.Helper()
	got, want := mustLoad(t, p, Load), mustLoad(t, twin, Load)
	if !sameRecords(got, want) {
		t.Errorf("loaded whole:\n%v\nwant the twin's:\n%v", whole(t, got), whole(t, want))
	}
	if !reflect.DeepEqual(peerFilesOn(t, p), peerFilesOn(t, twin)) {
		t.Error("the peers' files are not the twin's")
	}
	fresh, err := encodeSummary(groupSegments(t, p, fp))
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(fp); err != nil || string(data) != string(fresh) {
		t.Errorf("summary written again as\n%s (%v)\nwant\n%s", data, err, fresh)
	}
	quiet := mustLoad(t, p, LoadCompact)
	if !sameRecords(quiet, mustLoad(t, twin, LoadCompact)) {
		t.Error("loaded through the summaries: not the twin's records")
	}
	if changed, err := quiet.Save(p); err != nil || changed {
		t.Errorf("a save with no news after: changed=%v err=%v", changed, err)
	}
}

// mustLoad is load of p.
func mustLoad(t *testing.T, p string, load func(string) (*Ledger, error)) *Ledger {
	t.Helper()
	l, err := load(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRepairedSummaryLeavesThePeersFileItsRecord: a record of jolt that
// its file holds over its segment's (a take-down after the seal) keeps
// the file's when the summary lies about that key, whether the lie is
// another record or the file's own (which the load then took as the
// sealed one, dropping it from the file): a whole Load reads the file
// after the segment, and the file's record must never be lost.
func TestRepairedSummaryLeavesThePeersFileItsRecord(t *testing.T) {
	lies := []struct {
		name string
		lie  func(l, file *Ledger)
	}{
		{"another record", func(l, _ *Ledger) { l.Traces["sha256:aa"].Seq = 99 }},
		{"the file's record", func(l, file *Ledger) { l.Traces["sha256:aa"] = file.Traces["sha256:aa"] }},
	}
	for _, c := range lies {
		t.Run(c.name, func(t *testing.T) {
			p, twin := joltSealed(t), joltSealed(t)
			var file *Ledger
			for _, q := range []string{p, twin} {
				l := mustLoad(t, q, Load)
				l.TakeDown("sha256:aa", "gone")
				if _, err := l.Save(q); err != nil {
					t.Fatal(err)
				}
				file = l
			}
			if file.seal.holds(file.Traces["sha256:aa"]) || file.Traces["sha256:aa"].TakenDown != "gone" {
				t.Fatal("the take-down is not in jolt's file")
			}
			fp := forgeJolt(t, p, func(l *Ledger) {
				c.lie(l, file)
				l.Traces["sha256:bb"].Seq = 52
			})
			takeDownThroughSummaries(t, p)
			takeDownThroughSummaries(t, twin)
			sameAsTwin(t, p, twin, fp)
			if got := mustLoad(t, p, Load).Traces["sha256:aa"]; got.TakenDown != "gone" || got.Seq != 41 {
				t.Errorf("aa after the repair: %+v, want the file's", got)
			}
		})
	}
}

// TestUnreadableSegmentStillFailsTheSave: a segment whose bytes are not
// those its name was written for cannot be trusted over its summary, so
// the change that reads it whole fails its save, which writes nothing,
// and leaves the summary for git to restore the segment.
func TestUnreadableSegmentStillFailsTheSave(t *testing.T) {
	p, fp := lyingSummary(t)
	rel := segmentOf(t, p, jolt).Rel
	seg := filepath.Join(statefile.SegmentsDir(p), filepath.FromSlash(rel))
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-2] ^= 1 // same size, so the summary still names it
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	before := peerFilesOn(t, p)
	l := mustLoad(t, p, LoadCompact)
	l.TakeDown("sha256:bb", "")
	if _, err := l.Save(p); err == nil {
		t.Fatal("saved over a segment that does not verify")
	}
	if len(l.Repaired()) != 0 {
		t.Errorf("repaired %v from a segment that does not verify", l.Repaired())
	}
	if after := peerFilesOn(t, p); !reflect.DeepEqual(after, before) {
		t.Error("the failed save wrote the peers' files")
	}
	if after, err := os.ReadFile(fp); err != nil || string(after) != string(sum) {
		t.Errorf("the failed save changed the summary: %v", err)
	}
}

// TestRepairKindGivesEachKeyWhatAWholeLoadReadsLast: repairKind, with
// records of one key in two segments (which no node writes, but a forged
// summary and a segment may give), keeps of each key the record a whole
// Load reads last: a segment's over an earlier one's, a later segment's
// or the peer file's over it.
func TestRepairKindGivesEachKeyWhatAWholeLoadReadsLast(t *testing.T) {
	v := func(n int) *Validation { return &Validation{Total: n} }
	earlier, lying, later := v(1), v(2), v(3)
	mine, file := v(4), v(5)
	at := segmentPeer{"shard-1/2026-Q2-0-00000000.json", "b.json"}
	s := &sealing{inFile: map[any]struct{}{}, segs: map[string]sealedSegment{
		"shard-1/2026-Q1-0-00000000.json": {peers: fullParts(map[string]*Ledger{"a.json": {Validations: map[string]*Validation{
			"earlier": earlier, "phantom": earlier, "file": earlier}}})},
		at.rel:                            {peers: fullParts(map[string]*Ledger{"b.json": {Validations: map[string]*Validation{"phantom": lying}}})},
		"shard-1/2026-Q3-0-00000000.json": {peers: fullParts(map[string]*Ledger{"a.json": {Validations: map[string]*Validation{"later": later}}})},
	}}
	held := map[string]*Validation{"earlier": earlier, "phantom": lying, "later": later, "file": file}
	part := map[string]*Validation{"phantom": lying}
	seg := map[string]*Validation{"earlier": mine, "later": mine, "file": mine, "new": mine}
	repairKind(s, at, held, part, seg, func(p *Ledger) map[string]*Validation { return p.Validations })
	want := map[string]*Validation{"earlier": mine, "phantom": earlier, "later": later, "file": file, "new": mine}
	if !reflect.DeepEqual(held, want) {
		t.Errorf("held %v, want %v", held, want)
	}
	for k, rec := range want {
		if held[k] != rec {
			t.Errorf("%s holds %+v, want %+v", k, held[k], rec)
		}
	}
}

// TestChangeOfARecordOnlyALyingSummaryGaveFindsItGone: a method about to
// change a sealed record reads its peer's segments whole; when only the
// summary gave that record, the repair takes it away under the method,
// which then finds nothing to change rather than a nil record (each of
// these panicked), and the save that follows writes the ledger a twin
// without the lie holds.
func TestChangeOfARecordOnlyALyingSummaryGaveFindsItGone(t *testing.T) {
	phantom := &Trace{Agent: "jolt37", AgentURL: jolt, Seq: 9, Hash: "sha256:ee", FirstSeen: day1}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, l *Ledger)
	}{
		{"take the trace down", func(t *testing.T, l *Ledger) {
			if l.TakeDown(phantom.Hash, Withdrawn) {
				t.Error("TakeDown of a trace only the lie gave says the ledger holds it")
			}
		}},
		{"read the trace whole", func(t *testing.T, l *Ledger) {
			if got := l.WholeTrace(phantom.Hash); got != nil {
				t.Errorf("WholeTrace of a trace only the lie gave: %+v, want none", got)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, twin := joltSealed(t), joltSealed(t)
			forgeJolt(t, p, func(l *Ledger) { l.Traces[phantom.Hash] = phantom })
			l := mustLoad(t, p, LoadCompact)
			if l.Traces[phantom.Hash] == nil {
				t.Fatal("the forged summary was not read: a poor test")
			}
			tc.change(t, l)
			if l.Traces[phantom.Hash] != nil {
				t.Error("the ledger still holds the trace only the lie gave")
			}
			if _, err := l.Save(p); err != nil {
				t.Fatal(err)
			}
			if got, want := mustLoad(t, p, Load), mustLoad(t, twin, Load); !sameRecords(got, want) {
				t.Error("the ledger after the repair holds other records than its twin without the lie")
			}
		})
	}
	t.Run("forget the trace a lying copy copies", func(t *testing.T) {
		p, twin := joltSealed(t), joltSealed(t)
		forgeJoltSegment(t, p, func(peers map[string]*Ledger) {
			l := peers[statefile.PeerFileName(jolt)]
			l.Copies = map[string]*Trace{CopyKey(jolt, "sha256:01"): {Agent: "jolt37", AgentURL: jolt, Seq: 5, Hash: "sha256:01", File: "z.md", FirstSeen: day1}}
		})
		l := mustLoad(t, p, LoadCompact)
		if len(l.Copies) == 0 {
			t.Fatal("the forged summary was not read: a poor test")
		}
		l.Forget(axon)
		tw := mustLoad(t, twin, LoadCompact)
		tw.Forget(axon)
		for _, q := range []struct {
			p string
			l *Ledger
		}{{p, l}, {twin, tw}} {
			if _, err := q.l.Save(q.p); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := mustLoad(t, p, Load), mustLoad(t, twin, Load); !sameRecords(got, want) {
			t.Error("the ledger after the repair holds other records than its twin without the lie")
		}
	})
}

// TestRepairDropsWhatAStoppedSaveLeftInAPeersFile: a stopped save left a
// sealed record in its peer's file too, equal to its segment's; the
// summary lies about another record of that peer. The repair's save
// leaves the peer's file as the twin's save does, without the leftover.
func TestRepairDropsWhatAStoppedSaveLeftInAPeersFile(t *testing.T) {
	p, twin := joltSealed(t), joltSealed(t)
	for _, q := range []string{p, twin} {
		whole := mustLoad(t, q, Load)
		left := New()
		left.Traces["sha256:aa"] = whole.Traces["sha256:aa"]
		data, err := encodePart(left.normalizedCopy())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := statefile.WriteSome(q, map[string][]byte{statefile.PeerFileName(jolt): data}, nil); err != nil {
			t.Fatal(err)
		}
		if got := mustLoad(t, q, Load); !sameRecords(got, whole) {
			t.Fatal("the leftover changed the records: a poor test")
		}
	}
	forgeJolt(t, p, func(l *Ledger) { l.Traces["sha256:bb"].Seq = 52 })
	for _, q := range []string{p, twin} {
		l := mustLoad(t, q, LoadCompact)
		l.TakeDown("sha256:bb", "")
		if _, err := l.Save(q); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := mustLoad(t, p, Load), mustLoad(t, twin, Load); !sameRecords(got, want) {
		t.Error("records differ from the twin's")
	}
	if got, want := peerFilesOn(t, p), peerFilesOn(t, twin); !reflect.DeepEqual(got, want) {
		t.Errorf("peers' files differ from the twin's:\n%q\nwant\n%q", got, want)
	}
}

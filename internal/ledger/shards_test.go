package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// crowd is a ledger of n peers, each with a trace and a validation of
// its own in 2026-Q1 and a trace in 2026-Q3, and the URLs of the peers
// in the order made: enough peers that shards hold several.
func crowd(n int) (*Ledger, []string) {
	l := New()
	var urls []string
	for i := range n {
		u := fmt.Sprintf("https://p%d.example/traces/", i)
		urls = append(urls, u)
		h := manifest.Hash(fmt.Sprintf("sha256:%04x", i))
		l.AddTrace(&Trace{Agent: fmt.Sprint("p", i), AgentURL: u, Seq: 1, Hash: h, File: "traces/a.md", URL: u + "traces/a.md",
			Title: "T", Cites: []string{"x/1"}, FirstSeen: day1})
		l.AddTrace(&Trace{Agent: fmt.Sprint("p", i), AgentURL: u, Seq: 2, Hash: h + "q3", FirstSeen: day1.AddDate(0, 6, 0)})
		l.AddValidation(&Validation{Validator: fmt.Sprint("p", i), ValidatorURL: u, TraceHash: "sha256:0000", Result: "pass",
			ValidatedAt: day2, SourceURL: u + "v.md", SourceHash: manifest.Hash(fmt.Sprintf("sha256:v%04x", i))})
	}
	return l, urls
}

// sharers are two URLs of urls whose peers fall in one shard.
func sharers(t *testing.T, urls []string) (string, string) {
	t.Helper()
	seen := map[string]string{}
	for _, u := range urls {
		s := shardOf(peerDir(statefile.PeerFileName(u)))
		if o, ok := seen[s]; ok {
			return o, u
		}
		seen[s] = u
	}
	t.Fatal("no two peers share a shard")
	return "", ""
}

// perPeerForm rewrites the shard segments of the ledger at p as the
// segments older nodes sealed, one per peer and quarter, each named by
// its bytes, and removes the summaries: the same history sealed the old
// way.
func perPeerForm(t *testing.T, p string) {
	t.Helper()
	segs, err := statefile.ReadSegments(p)
	if err != nil {
		t.Fatal(err)
	}
	for rel, data := range segs {
		if !isShardSegment(rel) {
			continue
		}
		peers, err := decodeShard(rel, data)
		if err != nil {
			t.Fatal(err)
		}
		for name, part := range peers {
			old := olderForm(t, part.normalizedCopy())
			sum := sha256.Sum256(old)
			if err := statefile.CreateSegment(p, peerDir(name)+"/"+segmentQuarter(rel)+"-"+hex.EncodeToString(sum[:4])+".json", old); err != nil {
				t.Fatal(err)
			}
		}
		if err := statefile.RemoveSegment(p, rel); err != nil {
			t.Fatal(err)
		}
	}
	names, _ := statefile.ListSummaries(p)
	for _, g := range names {
		if _, err := statefile.RemoveSummary(p, g); err != nil {
			t.Fatal(err)
		}
	}
}

// zetaURL is a peer whose directory ("zeta.example-…") sorts after
// "shard-", so that in path order its per-peer segments come after every
// shard segment.
const zetaURL = "https://zeta.example/"

// withZeta adds to l zeta's trace and its rejection of traces/a.md found
// in 2026-Q1.
func withZeta(l *Ledger) {
	l.AddTrace(&Trace{Agent: "z", AgentURL: zetaURL, Seq: 1, Hash: "sha256:zz", FirstSeen: day1})
	l.AddRejection(zetaURL+"traces/a.md", &Rejection{Agent: "z", AgentURL: zetaURL, Seq: 1, ClaimedHash: "sha256:c1",
		ServedHash: "sha256:s1", At: day1})
}

// rejectedAgain replaces zeta's rejection with a later mismatch of the
// same file, found in 2026-Q3.
func rejectedAgain(l *Ledger) {
	l.AddRejection(zetaURL+"traces/a.md", &Rejection{Agent: "z", AgentURL: zetaURL, Seq: 1, ClaimedHash: "sha256:c2",
		ServedHash: "sha256:s2", At: day1.AddDate(0, 6, 0)})
}

// savedAt compacts l at now and saves it at p.
func savedAt(t *testing.T, l *Ledger, now time.Time, p string) {
	t.Helper()
	compacted(t, l, now)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
}

// loads checks that the ledger at p loads, whole and through its
// summaries, to the records of want.
func loads(t *testing.T, p string, want map[string]string) {
	t.Helper()
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := whole(t, full); !reflect.DeepEqual(got, want) {
		t.Errorf("Load gives:\n%v\nwant:\n%v", got, want)
	}
	c, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	// A group without its summary is read whole, titles and all.
	if got, want := whole(t, summarizedCopy(c)), whole(t, summarizedCopy(full)); !reflect.DeepEqual(got, want) {
		for name := range want {
			if got[name] != want[name] {
				t.Errorf("LoadCompact gives %s:\n%s\nwant:\n%s", name, got[name], want[name])
			}
		}
		t.Errorf("LoadCompact gives other records than Load")
	}
}

func TestShardSegmentsHoldAQuarterOfEveryPeerOfTheirShard(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	l, urls := crowd(40)
	want := whole(t, l)
	savedAt(t, l, later, p)
	files := listSegments(t, p)
	for _, f := range files {
		if !isShardSegment(f.Rel) || segmentQuarter(f.Rel) != "2026-Q1" {
			t.Errorf("segment %s: want one shard segment of 2026-Q1 per shard", f.Rel)
		}
	}
	if len(files) > summaryShards || len(files) < 2 {
		t.Errorf("%d segments for 40 peers: want at most one per shard", len(files))
	}
	// A summary writes each peer's name and URL once, not in each of its
	// records: crowd's records all have their peer's.
	groups, _ := statefile.ListSummaries(p)
	for _, g := range groups {
		data, err := statefile.ReadSummary(p, g, 1<<30)
		if err != nil || strings.Contains(string(data), `"u":"`) {
			t.Errorf("summary %s (%v) names a peer's URL in a record:\n%s", g, err, data)
		}
	}
	_, peers, _ := statefile.Read(p)
	if len(peers) != len(urls) {
		t.Errorf("%d peers' files, want each peer's 2026-Q3 trace left in its file", len(peers))
	}
	loads(t, p, want)
}

// TestShardSealedHistoryLoadsAsThePerPeerOne: the same history sealed
// into shard segments and into older nodes' per-peer segments loads to
// the same records, and so does one with both forms (an older node
// sealed its first quarter, this one the next).
func TestShardSealedHistoryLoadsAsThePerPeerOne(t *testing.T) {
	dir := t.TempDir()
	shard, old := filepath.Join(dir, "shard", "ledger.json"), filepath.Join(dir, "old", "ledger.json")
	l, _ := crowd(40)
	withZeta(l)
	want := whole(t, l)
	savedAt(t, l, later, shard)
	l2, _ := crowd(40)
	withZeta(l2)
	savedAt(t, l2, later, old)
	perPeerForm(t, old)
	for _, f := range listSegments(t, old) {
		if isShardSegment(f.Rel) {
			t.Fatalf("%s left in the per-peer form", f.Rel)
		}
	}
	loads(t, shard, want)
	loads(t, old, want)

	// Mixed: the older node's segments of 2026-Q1, then this node's of
	// 2026-Q3 beside them, zeta's later rejection among them: it wins
	// over the earlier one, sealed per peer, whatever their paths' order.
	mixed, err := Load(old)
	if err != nil {
		t.Fatal(err)
	}
	rejectedAgain(mixed)
	rejectedAgain(l)
	want = whole(t, l)
	savedAt(t, mixed, later.AddDate(0, 6, 0), old)
	var perPeer, shards int
	for _, f := range listSegments(t, old) {
		if isShardSegment(f.Rel) {
			shards++
		} else {
			perPeer++
		}
	}
	if perPeer != 41 || shards == 0 {
		t.Fatalf("%d per-peer segments and %d shard segments, want the 41 old ones kept and new ones beside", perPeer, shards)
	}
	if _, peers, _ := statefile.Read(old); len(peers) != 0 {
		t.Errorf("%d peers' files left: every record is sealed", len(peers))
	}
	loads(t, old, want)
}

// TestChangeOfAPeerInAShardSegmentKeepsItsNeighbours: a change that
// returns a peer's sealed records to its file, of a peer that shares
// shard segments (some an older node sealed), writes each shard segment
// again without it, under a new name, and removes the old: the other
// peers keep every record, and no segment is rewritten in place.
func TestChangeOfAPeerInAShardSegmentKeepsItsNeighbours(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(l *Ledger, a, b string)
	}{
		{"forget", func(l *Ledger, a, _ string) { l.Forget(a) }},
		{"rename", func(l *Ledger, a, _ string) { l.Rename(a, "https://renamed.example/traces/") }},
		{"rename onto its neighbour", func(l *Ledger, a, b string) { l.Rename(a, b) }},
		{"forget both", func(l *Ledger, a, b string) { l.Forget(a); l.Forget(b) }},
	} {
		for _, load := range []struct {
			name string
			f    func(string) (*Ledger, error)
		}{{"whole", Load}, {"summaries", LoadCompact}} {
			t.Run(tc.name+" through "+load.name, func(t *testing.T) {
				want := changedShard(t, Load, tc.change)
				if got := changedShard(t, load.f, tc.change); !reflect.DeepEqual(got, want) {
					t.Errorf("got:\n%v\nwant:\n%v", got, want)
				}
			})
		}
	}
}

// TestRenameOfAWholeLoadKeepsTheLaterQuarterRecord: zeta's rejection
// sealed per peer in 2026-Q1 by an older node, and its later one sealed
// into a shard segment in 2026-Q3: a Rename on a ledger Load read (as
// every command but the heartbeat reads it) returns the later one to the
// renamed peer's file, never the earlier.
func TestRenameOfAWholeLoadKeepsTheLaterQuarterRecord(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	l := New()
	withZeta(l)
	sealMixed(t, l, p)
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	l.Rename(zetaURL, "https://zeta2.example/")
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Rejected["https://zeta2.example/traces/a.md"]
	if r == nil || r.ServedHash != "sha256:s2" || r.AgentURL != "https://zeta2.example/" {
		t.Errorf("after the rename the rejection is %+v, want the later one (served sha256:s2) of the renamed peer", r)
	}
}

// sealMixed seals l at p as a history of both forms holds it: its
// 2026-Q1 per peer, as an older node sealed it, then, zeta's later
// rejection among them (rejectedAgain), 2026-Q3 into shard segments.
func sealMixed(t *testing.T, l *Ledger, p string) {
	t.Helper()
	savedAt(t, l, later, p)
	perPeerForm(t, p)
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	rejectedAgain(l)
	savedAt(t, l, later.AddDate(0, 6, 0), p)
}

// changedShard seals crowd(40) and zeta (2026-Q1 the old way, 2026-Q3,
// zeta's later rejection among it, the new) at p, loads it with load, changes it, saves it, and returns what Load
// then reads, checking it against the same change to a ledger never
// sealed and that no segment on disk was rewritten.
func changedShard(t *testing.T, load func(string) (*Ledger, error), change func(l *Ledger, a, b string)) map[string]string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	l, urls := crowd(40)
	withZeta(l)
	a, b := sharers(t, urls)
	sealMixed(t, l, p)
	before, _ := statefile.ReadSegments(p)

	ref, _ := crowd(40)
	withZeta(ref)
	rejectedAgain(ref)
	change(ref, a, b)
	want := whole(t, ref)

	got, err := load(p)
	if err != nil {
		t.Fatal(err)
	}
	change(got, a, b)
	if _, err := got.Save(p); err != nil {
		t.Fatal(err)
	}
	after, _ := statefile.ReadSegments(p)
	for rel, data := range after {
		if old, ok := before[rel]; ok && string(old) != string(data) {
			t.Errorf("segment %s was rewritten", rel)
		}
	}
	dir := peerDir(statefile.PeerFileName(a))
	for rel, data := range after {
		if isShardSegment(rel) && strings.Contains(string(data), `"`+dir+`"`) && before[rel] == nil {
			t.Errorf("new shard segment %s holds %s, whose records went back to its file", rel, dir)
		}
	}
	loads(t, p, want)
	return want
}

// TestUnsealStoppedAnywhereLoadsTheSameRecords: a Save of a change that
// takes a peer out of a shard segment, stopped after it wrote the new
// shard segment, or after the peers' files too, leaves a ledger that
// loads every record of its neighbours as they were (read from the old
// shard segment: the new one, which it holds whole, is redundant), and
// the peer's as today's rules leave a peer's segment that was to be
// removed: stopped before its file, the change is lost; after, its sealed records are read from the segment still
// there (here a Forget keeps the sealed records, not the recent one).
// A Save after either changes no record.
func TestUnsealStoppedAnywhereLoadsTheSameRecords(t *testing.T) {
	for _, stop := range []string{"after the segments", "after the files"} {
		t.Run(stop, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ledger.json")
			l, urls := crowd(40)
			a, _ := sharers(t, urls)
			savedAt(t, l, later, p)
			ref, _ := crowd(40)
			if stop == "after the files" {
				delete(ref.Traces, manifest.Hash(fmt.Sprintf("sha256:%04xq3", slices.Index(urls, a))))
			}
			want := whole(t, ref)

			got, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			got.Forget(a)
			if _, err := got.saveSegments(p); err != nil {
				t.Fatal(err)
			}
			if stop == "after the files" {
				if _, err := got.saveFiles(p); err != nil {
					t.Fatal(err)
				}
			}
			loads(t, p, want)
			again, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := again.Save(p); err != nil {
				t.Fatal(err)
			}
			loads(t, p, want)
		})
	}
}

// TestShardQuarterTooLargeIsSplitByWholePeers: a shard's quarter past
// shardPartBytes goes into numbered parts, each peer whole in one, none
// past the bound but a part of one peer alone.
func TestShardQuarterTooLargeIsSplitByWholePeers(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	l := New()
	big := strings.Repeat("x", 100<<10)
	var inShard []string
	for i := 0; len(inShard) < 12; i++ {
		u := fmt.Sprintf("https://big%d.example/", i)
		if shardOf(peerDir(statefile.PeerFileName(u))) != "0" {
			continue
		}
		inShard = append(inShard, u)
		n := 8 // 800 KB a peer
		if len(inShard) == 1 {
			n = 50 // one peer alone past the bound
		}
		for j := range n {
			l.AddTrace(&Trace{Agent: "b", AgentURL: u, Seq: 1, Hash: manifest.Hash(fmt.Sprintf("sha256:%d-%d", i, j)), Title: big, FirstSeen: day1})
		}
	}
	want := whole(t, l)
	savedAt(t, l, later, p)
	owner := map[string]string{}
	parts := map[string]bool{}
	for _, f := range listSegments(t, p) {
		data, err := statefile.ReadSegment(p, f.Rel)
		if err != nil {
			t.Fatal(err)
		}
		peers, err := decodeShard(f.Rel, data)
		if err != nil {
			t.Fatal(err)
		}
		if f.Size > shardPartBytes && len(peers) > 1 {
			t.Errorf("%s: %d bytes holding %d peers, past the bound", f.Rel, f.Size, len(peers))
		}
		for name := range peers {
			if o, ok := owner[name]; ok {
				t.Errorf("%s in both %s and %s", name, o, f.Rel)
			}
			owner[name] = f.Rel
		}
		parts[segmentParts(f.Rel)[2]] = true
	}
	if len(owner) != len(inShard) || len(parts) < 3 {
		t.Errorf("%d peers in parts %v, want all %d in at least 3 parts", len(owner), parts, len(inShard))
	}
	for i := range len(parts) {
		if !parts[fmt.Sprint(i)] {
			t.Errorf("parts %v are not numbered from 0", parts)
		}
	}
	loads(t, p, want)
}

// TestShardPartClosesOnlyPastTheBound: two peers whose shard segment is
// exactly shardPartBytes long make one part; one byte more, two.
func TestShardPartClosesOnlyPastTheBound(t *testing.T) {
	str := func(n int) json.RawMessage { // a JSON string n bytes long
		return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`)
	}
	// {"peers":{"a":<A>,"b":<B>}} and a newline.
	const a = 1000
	exact := shardPartBytes - len(`{"peers":{"a":,"b":}}`+"\n") - a
	for _, tc := range []struct {
		name  string
		b     int
		parts int
	}{
		{"exactly the bound", exact, 1},
		{"one byte past it", exact + 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := map[string]json.RawMessage{"a": str(a), "b": str(tc.b)}
			size := len(encodeShard(entries))
			parts := shardParts(entries)
			if len(parts) != tc.parts {
				t.Errorf("%d bytes (bound %d) make %d parts, want %d", size, shardPartBytes, len(parts), tc.parts)
			}
			if tc.parts == 1 && (size != shardPartBytes || string(parts[0]) != string(encodeShard(entries))) {
				t.Errorf("the one part is not the %d bytes of both peers", shardPartBytes)
			}
		})
	}
}

// TestShardSegmentWithAStrayPeerIsCorrupt: what a shard segment holds is
// checked as it loads, so that a summary, which keeps no peer, gives each
// record back to the peer that files it.
func TestShardSegmentWithAStrayPeerIsCorrupt(t *testing.T) {
	u := "https://p0.example/traces/"
	dir := peerDir(statefile.PeerFileName(u))
	rec := `{"traces":{"sha256:aa":{"agent":"p","agent_url":"` + u + `","seq":1,"hash":"sha256:aa"}}}`
	other := "https://elsewhere.example/"
	for _, tc := range []struct{ name, shard, body string }{
		{"a peer of another shard", otherShard(dir), `{"peers":{"` + dir + `":` + rec + `}}`},
		{"a record of another peer", shardOf(dir), `{"peers":{"` + dir + `":` + strings.ReplaceAll(rec, u, other) + `}}`},
		{"a peer with no records", shardOf(dir), `{"peers":{"` + dir + `":{}}}`},
		{"no peers", shardOf(dir), `{"peers":{}}`},
		{"not JSON", shardOf(dir), `{"peers":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ledger.json")
			data := []byte(tc.body + "\n")
			rel := shardRel(tc.shard, "2026-Q1", 0, data)
			if err := statefile.CreateSegment(p, rel, data); err != nil {
				t.Fatal(err)
			}
			var ce *statefile.CorruptError
			if _, err := Load(p); !errors.As(err, &ce) {
				t.Errorf("load: %v, want a CorruptError", err)
			}
			if _, err := LoadCompact(p); !errors.As(err, &ce) {
				t.Errorf("load through the summaries: %v, want a CorruptError", err)
			}
		})
	}
}

func otherShard(dir string) string {
	if shardOf(dir) == "0" {
		return "1"
	}
	return "0"
}

func TestShardSegmentNames(t *testing.T) {
	for _, tc := range []struct {
		rel string
		ok  bool
	}{
		{"shard-a/2026-Q1-0-0011aabb.json", true},
		{"shard-a/2026-Q1-12-0011aabb.json", true},
		{"shard-a/2026-Q1-01-0011aabb.json", false},
		{"shard-a/2026-Q1-0011aabb.json", false},
		{"shard-g/2026-Q1-0-0011aabb.json", false}, // a peer's directory, and not a peer segment's name
		{"peer-1a2b3c4d/2026-Q1-0011aabb.json", true},
		{"peer-1a2b3c4d/2026-Q1-0-0011aabb.json", false},
	} {
		if err := checkSegmentName(tc.rel); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.rel, err, tc.ok)
		}
	}
	if g := summaryGroup("shard-a/2026-Q1-0-0011aabb.json"); g != "2026-Q1-a" {
		t.Errorf("group %q, want 2026-Q1-a", g)
	}
	if d := path.Dir(shardRel("3", "2026-Q2", 1, nil)); d != "shard-3" {
		t.Errorf("dir %q", d)
	}
}

// FuzzDecodeShard: a shard segment that decodes, encoded again, decodes
// to the same records, and its entries re-encode to the same bytes.
func FuzzDecodeShard(f *testing.F) {
	p := filepath.Join(f.TempDir(), "ledger.json")
	l, _ := crowd(40)
	if err := l.Compact(later); err != nil {
		f.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		f.Fatal(err)
	}
	segs, err := statefile.ReadSegments(p)
	if err != nil {
		f.Fatal(err)
	}
	for rel, data := range segs {
		f.Add(path.Dir(rel)[len("shard-"):], data)
	}
	f.Fuzz(func(t *testing.T, shard string, data []byte) {
		rel := "shard-" + shard + "/2026-Q1-0-00000000.json"
		peers, err := decodeShard(rel, data)
		if err != nil {
			return
		}
		entries, err := shardEntries(rel, data)
		if err != nil {
			t.Fatalf("decodes, but its entries do not: %v", err)
		}
		again := encodeShard(entries)
		if e2, err := shardEntries(rel, again); err != nil || !reflect.DeepEqual(e2, entries) {
			t.Fatalf("entries encoded again read as %v (%v)", e2, err)
		}
		back, err := decodeShard(rel, again)
		if err != nil {
			t.Fatalf("encoded again: %v", err)
		}
		if !reflect.DeepEqual(whole(t, flat(back)), whole(t, flat(peers))) {
			t.Fatal("encoded again, the records changed")
		}
	})
}

// flat is every record of parts in one ledger.
func flat(parts map[string]*Ledger) *Ledger {
	out := New()
	for _, name := range slices.Sorted(maps.Keys(parts)) {
		out.add(parts[name])
	}
	return out
}

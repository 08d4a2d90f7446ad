package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
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

// history is a ledger saved at p as two years of heartbeats leave it:
// agents' traces over eight quarters, a mirror's copies, rows withdrawn
// before and after their quarter was sealed, a copy withdrawn, one
// promoted in place of a withdrawn author's record, an agent respelled
// and one forgotten after their records were sealed, compacted twice. It
// returns every URL and hash it names, and some it does not.
func history(t testing.TB, p string) (urls []string, hashes []manifest.Hash) {
	t.Helper()
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	l := New()
	const agents, quarters = 12, 8
	url := func(a int) string { return fmt.Sprintf("https://agent-%d.example/traces/", a) }
	mirror := "https://mirror.example/"
	hash := func(a, q int) manifest.Hash { return manifest.Hash(fmt.Sprintf("sha256:%02x%02x%060x", a, q, 0)) }
	for q := range quarters {
		at := start.AddDate(0, 3*q, 0)
		for a := range agents {
			h := hash(a, q)
			l.AddTrace(&Trace{Agent: fmt.Sprint("agent-", a), AgentURL: url(a), Seq: manifest.Seq(q + 1), Hash: h,
				File: fmt.Sprintf("%d.md", q), URL: url(a) + fmt.Sprintf("%d.md", q), Title: "T", FirstSeen: at, Verified: true, Status: "pending"})
			if a%3 == 0 {
				l.AddCopy(&Trace{Agent: "mirror", AgentURL: mirror, Seq: manifest.Seq(q*agents + a + 1), Hash: h, FirstSeen: at.Add(time.Hour), Verified: true})
			}
			hashes = append(hashes, h)
		}
		if q == 1 {
			l.TakeDown(hash(1, 0), Withdrawn) // withdrawn before it is sealed
			l.TakeDownCopy(mirror, hash(3, 0), Withdrawn)
		}
	}
	if err := l.Compact(start.AddDate(1, 0, 0)); err != nil {
		t.Fatal(err)
	}
	save(t, l, p)
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	l.TakeDown(hash(2, 0), Withdrawn) // sealed, then withdrawn: the file's record replaces the segment's
	l.TakeDown(hash(6, 1), Withdrawn)
	l.Promote(hash(6, 1), mirror) // the mirror's copy gives way to nothing: promoted in the author's place
	l.TakeDown(hash(9, 2), Disputed)
	l.Rename(url(4), "https://agent-4.example/moved/")
	l.Forget(url(5))
	if err := l.Compact(start.AddDate(2, 0, 0)); err != nil {
		t.Fatal(err)
	}
	save(t, l, p)
	for a := range agents {
		urls = append(urls, url(a))
	}
	urls = append(urls, mirror, "https://agent-4.example/moved/", "https://stranger.example/", "HTTPS://agent-0.example/traces/")
	hashes = append(hashes, manifest.HashBytes([]byte("never listed")))
	return urls, hashes
}

func save(t testing.TB, l *Ledger, p string) {
	t.Helper()
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
}

// TestListedByAllAnswersAsTheWholeLedger: for every peer and every trace
// of a history with copies, withdrawn rows, a promoted copy, a moved
// agent, a forgotten one and sealed records, ListedByAll answers what
// ListedBy answers on the ledger Load and LoadCompact read whole, among
// them traces sealed long ago and still listed, which only a segment
// holds.
func TestListedByAllAnswersAsTheWholeLedger(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	urls, hashes := history(t, p)
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	var asks []PeerTrace
	for _, u := range urls {
		for _, h := range hashes {
			asks = append(asks, PeerTrace{URL: u, Hash: h})
		}
	}
	got, err := ListedByAll(p, asks)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, a := range asks {
		listed, withdrawn := full.ListedBy(a.URL, a.Hash)
		want := Listing{Listed: listed, Withdrawn: withdrawn}
		if c1, c2 := compact.ListedBy(a.URL, a.Hash); c1 != listed || c2 != withdrawn {
			t.Fatalf("Load and LoadCompact disagree on %v", a)
		}
		if got[a] != want {
			t.Errorf("ListedByAll(%s, %s) = %+v; the whole ledger's ListedBy says %+v", a.URL, a.Hash, got[a], want)
		}
		kinds[kindOf(full, a, want)]++
	}
	// The history holds every case the answer can come from.
	for _, k := range []string{"sealed trace", "file trace", "withdrawn trace", "sealed copy", "file copy", "unlisted"} {
		if kinds[k] == 0 {
			t.Errorf("no ask is a %s: %v", k, kinds)
		}
	}
}

// kindOf says where the answer want to a comes from in l, whole.
func kindOf(l *Ledger, a PeerTrace, want Listing) string {
	t, c := l.Traces[a.Hash], l.Copies[CopyKey(a.URL, a.Hash)]
	switch {
	case !want.Listed:
		return "unlisted"
	case want.Withdrawn:
		return "withdrawn trace"
	case t != nil && t.AgentURL == a.URL && l.seal.holds(t):
		return "sealed trace"
	case t != nil && t.AgentURL == a.URL:
		return "file trace"
	case l.seal.holds(c):
		return "sealed copy"
	}
	return "file copy"
}

// TestListedByAllReadsOnlyItsPeersRecords: asked of a trace its peer's
// file holds, ListedByAll opens that peer's shard of mesh-state/ledger/
// and nothing else; asked of a trace only a segment holds, that shard
// and the segments of the peer's own shard, no other shard's.
func TestListedByAllReadsOnlyItsPeersRecords(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	history(t, p)
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var recent, sealed *Trace
	for _, tr := range full.SortedTraces() {
		switch {
		case sealed == nil && full.seal.holds(tr) && tr.TakenDown == "":
			sealed = tr
		case recent == nil && !full.seal.holds(tr):
			recent = tr
		}
	}
	for _, tc := range []struct {
		name string
		tr   *Trace
	}{{"a trace in its peer's file", recent}, {"a trace sealed long ago", sealed}} {
		t.Run(tc.name, func(t *testing.T) {
			var read []string
			t.Cleanup(statefile.SetReadHook(func(f string) { read = append(read, f) }))
			got, err := ListedByAll(p, []PeerTrace{{URL: tc.tr.AgentURL, Hash: tc.tr.Hash}})
			if err != nil {
				t.Fatal(err)
			}
			if l := got[PeerTrace{URL: tc.tr.AgentURL, Hash: tc.tr.Hash}]; !l.Listed || l.Withdrawn {
				t.Errorf("listed, withdrawn = %v, %v; want true, false", l.Listed, l.Withdrawn)
			}
			shard := "shard-" + shardOf(peerDir(statefile.PeerFileName(tc.tr.AgentURL)))
			files, segs := 0, 0
			for _, f := range read {
				rel, err := filepath.Rel(statefile.SegmentsDir(p), f)
				if err != nil || strings.HasPrefix(rel, "..") {
					files++
					continue
				}
				segs++
				if dir := path.Dir(filepath.ToSlash(rel)); dir != shard {
					t.Errorf("read %s, a segment of another shard than %s", rel, shard)
				}
			}
			if files != 1 {
				t.Errorf("read %d files of mesh-state/ledger/, want its peer's shard only: %v", files, read)
			}
			if wantSegs := tc.tr == sealed; (segs > 0) != wantSegs {
				t.Errorf("read %d segments; want some: %v", segs, wantSegs)
			}
		})
	}
}

// TestListedByAllRefusesADamagedSegmentOfItsPeer: a segment of the asked
// peer's shard whose bytes are not those it was written with fails the
// ask with a *statefile.CorruptError, as Load fails; one of another shard
// is not read, so the answer stands.
func TestListedByAllRefusesADamagedSegmentOfItsPeer(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.json")
	history(t, p)
	full, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var sealed *Trace
	for _, tr := range full.SortedTraces() {
		if full.seal.holds(tr) {
			sealed = tr
			break
		}
	}
	ask := []PeerTrace{{URL: sealed.AgentURL, Hash: sealed.Hash}}
	own := "shard-" + shardOf(peerDir(statefile.PeerFileName(sealed.AgentURL)))
	files, err := statefile.ListSegments(p)
	if err != nil {
		t.Fatal(err)
	}
	var other, mine string
	for _, f := range files {
		if path.Dir(f.Rel) == own {
			mine = f.Rel
		} else {
			other = f.Rel
		}
	}
	damage := func(rel string) {
		fp := filepath.Join(statefile.SegmentsDir(p), filepath.FromSlash(rel))
		data, err := os.ReadFile(fp)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 1
		if err := os.WriteFile(fp, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	damage(other)
	if got, err := ListedByAll(p, ask); err != nil || !got[ask[0]].Listed {
		t.Errorf("with another shard's segment damaged: %+v, %v; want listed", got, err)
	}
	damage(mine)
	var ce *statefile.CorruptError
	if _, err := ListedByAll(p, ask); !errors.As(err, &ce) {
		t.Errorf("with its own shard's segment damaged: %v; want a *statefile.CorruptError", err)
	}
}

// FuzzPeersOf: of a shard segment as encodeShard writes it, whatever
// its entries hold, peersOf gives, for any peer asked, exactly the
// records decodeShard gives of it, or the error decodeShard gives; of any
// bytes, no crash.
func FuzzPeersOf(f *testing.F) {
	p := filepath.Join(f.TempDir(), "ledger.json")
	l, _ := crowd(40)
	if err := l.Compact(later); err != nil {
		f.Fatal(err)
	}
	save(f, l, p)
	segs, err := statefile.ReadSegments(p)
	if err != nil {
		f.Fatal(err)
	}
	for rel, data := range segs {
		entries, err := shardEntries(rel, data)
		if err != nil {
			f.Fatal(err)
		}
		for dir := range entries {
			f.Add(path.Dir(rel)[len("shard-"):], dir, data)
		}
	}
	f.Fuzz(func(t *testing.T, shard, dir string, data []byte) {
		rel := "shard-" + shard + "/2026-Q1-0-00000000.json"
		if checkSegmentName(rel) != nil {
			return
		}
		want := map[string]bool{dir + ".json": true}
		peersOf(rel, data, want) // any bytes: no crash
		entries, err := shardEntries(rel, data)
		if err != nil {
			return
		}
		data = encodeShard(entries)
		got, err := peersOf(rel, data, want)
		all, aerr := decodeShard(rel, data)
		if aerr != nil {
			if err == nil && len(got) > 0 && !inShard(dir, shard) {
				t.Fatalf("peersOf reads a peer of another shard: %v", got)
			}
			return
		}
		if err != nil {
			t.Fatalf("decodeShard reads it, peersOf does not: %v", err)
		}
		exp := map[string]*Ledger{}
		if in, ok := all[dir+".json"]; ok {
			exp[dir+".json"] = in
		}
		if !reflect.DeepEqual(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(exp))) || !reflect.DeepEqual(flat(got), flat(exp)) {
			t.Fatalf("peersOf gives %v, decodeShard %v", got, exp)
		}
	})
}

// TestPeersOfIsNotFooledByARecordKeyedByAPeersName: a record of one peer
// keyed by the directory name of a peer after it in the segment, which no
// node writes, is found by the search first; it is no peer's records, and
// the segment is read whole, which gives the later peer's own.
func TestPeersOfIsNotFooledByARecordKeyedByAPeersName(t *testing.T) {
	var a, b string // two peers of one shard, a sorting first
	for i := 0; b == ""; i++ {
		u := fmt.Sprintf("https://p%d.example/", i)
		d := peerDir(statefile.PeerFileName(u))
		switch {
		case a == "" && shardOf(d) == "3":
			a = u
		case a != "" && shardOf(d) == "3" && d > peerDir(statefile.PeerFileName(a)):
			b = u
		}
	}
	bdir := peerDir(statefile.PeerFileName(b))
	ea, _ := json.Marshal(map[string]any{"traces": map[string]any{ // "0" first, then bdir after its "},"
		"0": map[string]any{"agent_url": a, "hash": "sha256:a0"}, bdir: map[string]any{"agent_url": a, "hash": "sha256:aa"}}})
	eb, _ := json.Marshal(map[string]any{"traces": map[string]any{"sha256:bb": map[string]any{"agent_url": b, "hash": "sha256:bb"}}})
	data := encodeShard(map[string]json.RawMessage{peerDir(statefile.PeerFileName(a)): ea, bdir: eb})
	rel := shardRel("3", "2026-Q1", 0, data)
	want := map[string]bool{bdir + ".json": true}
	got, err := peersOf(rel, data, want)
	if err != nil {
		t.Fatal(err)
	}
	all, err := decodeShard(rel, data)
	if err != nil {
		t.Fatal(err)
	}
	if g := got[bdir+".json"]; g == nil || !reflect.DeepEqual(g.Traces, all[bdir+".json"].Traces) {
		t.Errorf("peersOf gives %v; want b's records %v", g, all[bdir+".json"])
	}
}

// BenchmarkListedBy is what `meshnode score` pays to ask whether each of
// a few queue items' peers still lists its trace, on a two-year history
// of 12 agents: the ledger loaded whole (LoadCompact, then ListedBy), as
// it did, against ListedByAll, for one trace its peer's file holds and
// one only a segment holds:
//
//	go test ./internal/ledger/ -run - -bench ListedBy -benchmem
func BenchmarkListedBy(b *testing.B) {
	p := filepath.Join(b.TempDir(), "ledger.json")
	history(b, p)
	full, err := Load(p)
	if err != nil {
		b.Fatal(err)
	}
	var asks []PeerTrace
	for _, sealed := range []bool{false, true} {
		for _, tr := range full.SortedTraces() {
			if full.seal.holds(tr) == sealed && tr.TakenDown == "" {
				asks = append(asks, PeerTrace{URL: tr.AgentURL, Hash: tr.Hash})
				break
			}
		}
	}
	b.Run("LoadCompact", func(b *testing.B) {
		for b.Loop() {
			l, err := LoadCompact(p)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range asks {
				if listed, _ := l.ListedBy(a.URL, a.Hash); !listed {
					b.Fatal("not listed")
				}
			}
		}
	})
	b.Run("ListedByAll", func(b *testing.B) {
		for b.Loop() {
			got, err := ListedByAll(p, asks)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range asks {
				if !got[a].Listed {
					b.Fatal("not listed")
				}
			}
		}
	})
}

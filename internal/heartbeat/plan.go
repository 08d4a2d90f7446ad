package heartbeat

import (
	"slices"
	"sort"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/state"
)

// plan is what one poll of a peer must do with its manifest.
type plan struct {
	// todo holds the wanted entries, seq ascending: fetched and verified,
	// or, without a file column, recorded unverified.
	todo      []manifest.Entry
	lastSeen  manifest.Seq   // the cursor after this poll
	gaps      []state.Range  // seqs at or below lastSeen still missing
	retry     []manifest.Seq // seqs at or below lastSeen left for the next poll by cut
	backwards bool           // the peer's sequence went below our cursor
	truncated bool           // cut left wanted entries for the next poll
	dups      int            // rows repeating the hash of an earlier row
	floor     manifest.Seq   // the lowest cursor cut may leave: the old one, or 0 going backwards
}

// cursorView is the part of a cursor that planning reads.
type cursorView struct {
	lastSeen manifest.Seq
	gaps     []state.Range
	retry    []manifest.Seq
}

// planPoll decides which entries of m are new for the cursor c.
//
// An entry is wanted when its seq is above the cursor, inside a recorded
// gap (the peer may backfill it) or on the retry list (an earlier fetch of
// it failed). When the peer's sequence went backwards (a reset or a
// rewrite), every entry is wanted again and deduplication by hash keeps
// already processed files from being processed twice; the cursor then
// follows the peer down, so entries it publishes next are not skipped.
func planPoll(c cursorView, m *manifest.Manifest) plan {
	top := m.Sequence
	if s := m.MaxSeq(); s > top {
		top = s
	}
	p := plan{backwards: top < c.lastSeen}
	retry := make(map[manifest.Seq]bool, len(c.retry))
	for _, s := range c.retry {
		retry[s] = true
	}
	entries := append([]manifest.Entry(nil), m.Entries...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Seq < entries[j].Seq })
	present := make(map[manifest.Seq]bool, len(entries))
	// A row repeating an earlier row's hash and file is the same fetch. One
	// at another file is fetched too: the earlier file may be served
	// wrong and this one right, which refutes a dispute of the hash
	// (docs/protocol.md §7.4); processing skips it when the earlier one
	// verified (deduplication by agent and hash, §6.4).
	type fetchKey struct {
		hash manifest.Hash
		file string
	}
	seen := make(map[fetchKey]bool, len(entries))
	for _, e := range entries {
		if e.Seq > 0 {
			present[e.Seq] = true
		}
		k := fetchKey{e.Hash, e.File}
		if seen[k] {
			p.dups++ // the same bytes at the same file listed twice: one fetch is enough
			continue
		}
		seen[k] = true
		wanted := p.backwards || e.Seq <= 0 || e.Seq > c.lastSeen || state.Ranges(c.gaps).Contains(e.Seq) || retry[e.Seq]
		if wanted {
			p.todo = append(p.todo, e)
		}
	}
	p.lastSeen = top
	from := c.lastSeen + 1
	var old []state.Range
	if p.backwards {
		from = 1
	} else {
		old = c.gaps
		p.floor = c.lastSeen
	}
	p.gaps = missing(old, from, top, present)
	return p
}

// cut stops the plan before todo[i], when a budget or the deadline does
// not let the poll take it (docs/decisions.md, "Budgets"): the cursor
// stays below that entry, entries left at or below the cursor (gaps,
// retries) go on the retry list, and truncated tells the next poll to read
// the manifest even when it did not change. Nothing wanted is dropped and
// nothing waits for the peer to publish again.
func (p *plan) cut(i int) {
	if i >= len(p.todo) {
		return
	}
	left := p.todo[i:]
	p.todo = p.todo[:i]
	p.truncated = true
	top := max(p.floor, min(p.lastSeen, left[0].Seq-1))
	p.lastSeen = top
	for _, e := range left {
		if e.Seq > 0 && e.Seq <= top {
			p.retry = append(p.retry, e.Seq)
		}
	}
	var gaps []state.Range
	for _, g := range p.gaps {
		if g.From > top {
			break
		}
		g.To = min(g.To, top)
		gaps = append(gaps, g)
	}
	p.gaps = gaps
}

// missing returns the seqs of the old gaps and of [from, to] that are not
// present, as sorted, merged ranges. It works on ranges, never seq by seq,
// so a hostile "sequence: 999999999" costs nothing.
func missing(old []state.Range, from, to manifest.Seq, present map[manifest.Seq]bool) []state.Range {
	sorted := make([]manifest.Seq, 0, len(present))
	for s := range present {
		sorted = append(sorted, s)
	}
	slices.Sort(sorted)
	var out state.Ranges
	for _, r := range old {
		if r.To >= from {
			r.To = from - 1 // the part above the cursor is covered below
		}
		out = append(out, r.Without(sorted)...)
	}
	out = append(out, state.Range{From: from, To: to}.Without(sorted)...)
	return out.Normalize()
}

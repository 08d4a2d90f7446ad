package heartbeat

import (
	"context"
	"errors"
	"fmt"

	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/state"
)

// maxArchivePagesPerPoll bounds the archive pages (docs/protocol.md §3.3)
// one poll reads: each is a request of at most limits.manifest_bytes, and
// at 5,000 rows a page two of them already hold twice what the poll's
// budget takes (maxEntriesPerPoll). A reader further behind reads on at
// the next heartbeat, from its cursor.
const maxArchivePagesPerPoll = 2

// archiveView is a peer's manifest with the rows of the archive pages the
// cursor needs merged in.
type archiveView struct {
	m *manifest.Manifest
	// read are the ranges of the pages read whole: a seq in one without a
	// row was never published and never will be (a page is immutable), so
	// it is no gap.
	read state.Ranges
	// truncated: pages the cursor needs were left for the next poll, and
	// m ends below them.
	truncated bool
}

// withArchive reads the archive pages m links that hold seqs the cursor
// c still wants, at most maxArchivePagesPerPoll, and returns m with their
// rows: first the pages above the cursor, oldest first, then those
// holding its gaps and retries, so a page that keeps failing never holds
// up newer ones. When it leaves pages above the cursor for later, the view
// ends at the seq before the first of them, so the cursor stops there and
// the next poll reads on. A page that cannot be read or does not verify is
// logged and its seqs stay missing, as gaps.
func (pl *poller) withArchive(ctx context.Context, p peer, c *state.Cursor, requests *int, m *manifest.Manifest) archiveView {
	if len(m.Archives) == 0 || max(m.Sequence, m.MaxSeq()) < c.LastSeenSeq {
		return archiveView{m: m}
	}
	view := *m
	view.Entries = nil
	v := archiveView{m: &view}
	var above, below []manifest.Archive
	for _, a := range m.Archives {
		switch {
		case a.Last > c.LastSeenSeq:
			above = append(above, a)
		case wantsRange(c, a.First, a.Last):
			below = append(below, a)
		}
	}
	pages := 0
	for _, a := range append(above, below...) {
		if pages == maxArchivePagesPerPoll || ctx.Err() != nil {
			if a.Last > c.LastSeenSeq {
				v.truncated = true
				view.Sequence = max(c.LastSeenSeq, a.First-1)
			}
			break
		}
		pages++
		rows, err := pl.readPage(ctx, p, requests, a)
		if err != nil {
			pl.logf("peer %s: archive page %s: %v (its seqs stay missing until it reads)", p.name, a.File, err)
			continue
		}
		view.Entries = append(view.Entries, rows...)
		v.read = append(v.read, state.Range{From: a.First, To: a.Last})
	}
	for _, e := range m.Entries {
		if !v.truncated || e.Seq <= view.Sequence {
			view.Entries = append(view.Entries, e)
		}
	}
	return v
}

// wantsRange reports whether the cursor's gaps or retries hold a seq of
// [from, to].
func wantsRange(c *state.Cursor, from, to manifest.Seq) bool {
	for _, g := range c.Gaps {
		if g.From <= to && g.To >= from {
			return true
		}
	}
	for _, s := range c.Retry {
		if s >= from && s <= to {
			return true
		}
	}
	return false
}

// readPage fetches one archive page within the peer's base URL and
// limits.manifest_bytes, checks it against the hash its link gives, and
// returns its rows inside the link's range.
func (pl *poller) readPage(ctx context.Context, p peer, requests *int, a manifest.Archive) ([]manifest.Entry, error) {
	got, err := verifierOf(pl.client, p).Fetch(ctx, integrity.Claim{Base: p.url, File: a.File, Hash: a.Hash, MaxBytes: pl.limits.manifest})
	var ie *integrity.Error
	if err == nil || errors.As(err, &ie) && ie.Requested {
		*requests++
	}
	if err != nil {
		return nil, err
	}
	weight := min(int64(len(got.Body)), maxParseBytes)
	if err := pl.pages.Acquire(ctx, weight); err != nil {
		return nil, err
	}
	defer pl.pages.Release(weight)
	pm, _, err := manifest.Parse(got.Body)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var rows []manifest.Entry
	for _, e := range pm.Entries {
		if e.Seq >= a.First && e.Seq <= a.Last {
			rows = append(rows, e)
		}
	}
	return rows, nil
}

// withoutRanges returns the seqs of gaps outside every range of read.
func withoutRanges(gaps []state.Range, read state.Ranges) []state.Range {
	out := gaps
	for _, r := range read {
		var next []state.Range
		for _, g := range out {
			if g.To < r.From || g.From > r.To {
				next = append(next, g)
				continue
			}
			if g.From < r.From {
				next = append(next, state.Range{From: g.From, To: r.From - 1})
			}
			if g.To > r.To {
				next = append(next, state.Range{From: r.To + 1, To: g.To})
			}
		}
		out = next
	}
	return out
}

package heartbeat

import (
	"context"
	"fmt"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/source"
	"github.com/meshnode/meshnode/internal/state"
)

// manifestSource reads a peer's entries from its MANIFEST.md and the
// archive pages it links: the source.Source of every peer today.
type manifestSource struct{ pl *poller }

// Read gets MANIFEST.md conditionally, stops at a 304 or at the same bytes
// when nothing waits, parses it and merges in the archive pages c still
// needs. The manifest's parse weight stays held until l.Release.
func (s manifestSource) Read(ctx context.Context, sp source.Peer, c *state.Cursor) (*source.Listing, error) {
	pl := s.pl
	p := peer{name: sp.Name, url: sp.URL, public: sp.Public}
	l := &source.Listing{RateLeft: -1, Requests: 1}
	req := p.request(p.url+manifest.FileName, pl.limits.manifest)
	if !c.Unread() {
		// With entries to retry, or a budget's remainder to read, we need
		// the body even if it did not change.
		req.ETag, req.LastModified = c.ETag, c.LastModified
	}
	resp, err := pl.client.Get(ctx, req)
	if err != nil {
		return l, err
	}
	c.ETag, c.LastModified = resp.ETag, resp.LastModified
	l.RateLeft = resp.RateLimit.Remaining
	sum := state.SumManifest(resp.Body)
	if resp.NotModified || sum == c.ManifestSum && !c.Unread() {
		l.Unchanged = true
		return l, nil
	}
	// Parsing and planning a manifest of 4 MiB takes ten times its size
	// in memory: a few at a time, so many large ones cannot add up.
	weight := min(int64(len(resp.Body)), maxParseBytes)
	if err := pl.parsing.Acquire(ctx, weight); err != nil {
		return l, err
	}
	l.Release = func() { pl.parsing.Release(weight) }
	m, problems, err := manifest.Parse(resp.Body)
	if err != nil {
		return l, fmt.Errorf("parse manifest: %w", err)
	}
	for i, pr := range problems {
		if i == maxProblemLogs {
			pl.logf("peer %s: %d more MANIFEST.md lines skipped", p.name, len(problems)-i)
			break
		}
		pl.logf("peer %s: MANIFEST.md line %d skipped: %s", p.name, pr.Line, pr.Reason)
	}
	c.ManifestSum = sum
	c.ManifestUpdated, c.Rules, c.Pages = m.Updated, m.Rules, m.Pages
	if len(problems) == 0 {
		l.Listed = m
	}
	c.NewestEntry = newestEntry(m, pl.now)
	v := pl.withArchive(ctx, p, c, &l.Requests, m)
	l.Manifest, l.Read, l.Truncated = v.m, v.read, v.truncated
	return l, nil
}

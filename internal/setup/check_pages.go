package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
)

// fixPagesRewrite is the fix when Pages serves other bytes than the
// repository holds.
const fixPagesRewrite = "serve the files unchanged: deploy the site 'meshnode build' writes to _site (it copies them byte for byte, with a .nojekyll), and check no line-ending or LFS filter rewrites them in the repository"

// checkManifest reads the local MANIFEST.md, which every later check of
// the published files relies on.
func (n *doctorRun) checkManifest() Finding {
	f := Finding{Check: "manifest"}
	data, err := os.ReadFile(filepath.Join(n.o.Dir, ManifestFile))
	if err != nil {
		f.Status, f.Message, f.Fix = StatusFail, "cannot read MANIFEST.md: "+unwrapPath(err), "run 'meshnode heartbeat' (or 'meshnode init' on a new node) to write it"
		return f
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		f.Status, f.Message, f.Fix = StatusFail, "MANIFEST.md: "+err.Error(), "run 'meshnode heartbeat' to rewrite it"
		return f
	}
	n.manifest, n.parsed = data, m
	if m.Agent != n.cfg.Agent || m.URL != n.cfg.URL {
		f.Status, f.Fix = StatusWarn, "run 'meshnode heartbeat' to rewrite MANIFEST.md from mesh.yaml"
		f.Message = fmt.Sprintf("MANIFEST.md says agent %q at %q, mesh.yaml says %q at %q", m.Agent, m.URL, n.cfg.Agent, n.cfg.URL)
		return f
	}
	f.Status, f.Message = StatusOK, fmt.Sprintf("MANIFEST.md lists %d file(s)", len(m.Entries))
	return f
}

// checkPages fetches MANIFEST.md from the Pages URL and compares it with
// the local bytes, then samples the files it lists.
func (n *doctorRun) checkPages(ctx context.Context) []Finding {
	if n.parsed == nil {
		return []Finding{{Check: "pages", Status: StatusWarn, Message: "not checked: the local MANIFEST.md must be fixed first"}}
	}
	u := n.pagesURL + ManifestFile
	resp, err := n.fetcher.Get(ctx, fetch.Request{URL: u, MaxBytes: n.cfg.Limits.ManifestBytes})
	if err != nil {
		return []Finding{{Check: "pages", Status: StatusFail, Message: err.Error(), Fix: pagesFetchFix(err)}}
	}
	if string(resp.Body) != string(n.manifest) {
		return []Finding{{Check: "pages", Status: StatusFail,
			Message: fmt.Sprintf("%s serves %s (%d bytes), the local MANIFEST.md is %s (%d bytes)",
				u, manifest.HashBytes(resp.Body), len(resp.Body), manifest.HashBytes(n.manifest), len(n.manifest)),
			Fix: "push the last commit and wait for the Pages deploy to finish; if it persists, " + fixPagesRewrite}}
	}
	ok := Finding{Check: "pages", Status: StatusOK, Message: u + " serves the local MANIFEST.md byte for byte"}
	return []Finding{ok, n.checkServedFiles(ctx)}
}

func pagesFetchFix(err error) string {
	switch fetch.KindOf(err) {
	case fetch.KindNotFound:
		return "enable GitHub Pages (Settings → Pages → Source: GitHub Actions), let the heartbeat workflow deploy the built site, and check mesh.yaml's url"
	case fetch.KindPrivate:
		return "the url is a private address: set allow_private_addresses: true in mesh.yaml for a local mesh"
	case fetch.KindBlocked:
		return "robots.txt on the site disallows meshnode: peers cannot read the node either; allow it"
	}
	return "check mesh.yaml's url and that GitHub Pages is enabled and deployed"
}

// checkServedFiles fetches the newest listed files (at most MaxFiles) and
// checks each hashes to what MANIFEST.md claims.
func (n *doctorRun) checkServedFiles(ctx context.Context) Finding {
	f := Finding{Check: "pages-files"}
	rows := newestWithFile(n.parsed.Entries, n.o.MaxFiles)
	var bad []string
	for _, r := range rows {
		if msg := n.checkServedFile(ctx, r); msg != "" {
			bad = append(bad, msg)
		}
	}
	switch {
	case len(rows) == 0:
		f.Status, f.Message = StatusOK, "no published files yet"
	case len(bad) > 0:
		f.Status, f.Fix = StatusFail, fixPagesRewrite
		f.Message = fmt.Sprintf("%d of %d checked file(s) not served as listed: %s", len(bad), len(rows), strings.Join(firstN(bad, 3), "; "))
	default:
		f.Status = StatusOK
		f.Message = fmt.Sprintf("%d of %d listed file(s) checked, all served byte for byte", len(rows), countWithFile(n.parsed.Entries))
	}
	return f
}

func (n *doctorRun) checkServedFile(ctx context.Context, r manifest.Entry) string {
	u, err := fetch.ResolveWithin(n.pagesURL, r.File)
	if err != nil {
		return fmt.Sprintf("seq %d: %v", r.Seq, err)
	}
	resp, err := n.fetcher.Get(ctx, fetch.Request{URL: u, MaxBytes: n.cfg.Limits.TraceBytes})
	if err != nil {
		return fmt.Sprintf("seq %d: %v", r.Seq, err)
	}
	if got := manifest.HashBytes(resp.Body); got != r.Hash {
		return fmt.Sprintf("seq %d %s: served %s, listed %s", r.Seq, r.File, got, r.Hash)
	}
	return ""
}

func newestWithFile(rows []manifest.Entry, max int) []manifest.Entry {
	var out []manifest.Entry
	for _, r := range rows {
		if r.File != "" {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	return firstN(out, max)
}

func countWithFile(rows []manifest.Entry) int {
	n := 0
	for _, r := range rows {
		if r.File != "" {
			n++
		}
	}
	return n
}

func firstN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

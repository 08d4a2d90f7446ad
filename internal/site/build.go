package site

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/manifest"
)

// DefaultOut is where Build writes when Options.Out is empty, relative to
// the node's directory.
const DefaultOut = "_site"

// markerFile marks a directory as a site this package owns: only such a
// directory (or an empty one) is written into, because Build deletes files
// it did not generate.
const markerFile = ".meshnode-site"

// writers is how many files are rendered and written at once. Without
// fsync, writing a file is CPU work in the kernel under the directory's
// lock, not waiting on the disk; a few writers per core keep both busy,
// and more only queue on that lock.
var writers = 2 * runtime.GOMAXPROCS(0)

// Options configure a build.
type Options struct {
	Dir    string       // the node's directory
	Out    string       // where the site goes; default Dir/_site
	Now    time.Time    // the time presence is judged at; zero means time.Now()
	Logger *slog.Logger // nil discards
}

// Stats says what a build did.
type Stats struct {
	Files     int // files in the site
	Written   int // files whose bytes changed
	Unchanged int // files left untouched, mtime kept
	Removed   int // stale files deleted
	Traces    int // trace pages
}

// Build reads the node at o.Dir and writes its site to o.Out.
func Build(ctx context.Context, o Options) (Stats, error) {
	o = o.withDefaults()
	defer relaxGC()()
	n, err := Load(o.Dir, o.Now)
	if err != nil {
		return Stats{}, err
	}
	st, err := Write(ctx, n, o.Out)
	if err != nil {
		return st, err
	}
	o.Logger.Info("site built", "out", o.Out, "files", st.Files, "written", st.Written, "removed", st.Removed)
	return st, nil
}

// buildGCPercent is the garbage collector's target while a site is built.
// A cold build of 10,000 traces allocates about 1.9 GB against a live
// heap near 100 MB, so at Go's default of 100 the collector ran every
// 100 MB or so and took an eighth of the build's CPU; at 400 it runs a
// quarter as often, for a peak of about 430 MB instead of 210 MB.
const buildGCPercent = 400

// relaxGC raises the collector's target to buildGCPercent, unless GOGC
// already asks for more (or for none), and returns what puts it back.
func relaxGC() (restore func()) {
	old := debug.SetGCPercent(buildGCPercent)
	if old < 0 || old > buildGCPercent {
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

func (o Options) withDefaults() Options {
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Out == "" {
		o.Out = filepath.Join(o.Dir, DefaultOut)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Write renders the site of n into out: published files byte for byte,
// pages beside them. Files whose bytes are unchanged are not rewritten,
// and files of an earlier build that no longer belong are deleted.
func Write(ctx context.Context, n *Node, out string) (Stats, error) {
	fresh, err := claimOut(out)
	if err != nil {
		return Stats{}, err
	}
	outs := siteOutputs(n)
	st := Stats{Files: len(outs) + 1, Traces: len(n.Traces)}
	cached := readCache(out)
	put := func(o output) (bool, error) { return writeOutput(out, o, cached[o.Path]) }
	var stg *stage
	if fresh {
		if stg, err = newStage(out); err != nil {
			return st, err
		}
		defer stg.discard()
		put = stg.write
	}
	written, err := writeAll(ctx, outs, put)
	if err == nil && stg != nil {
		err = stg.publish()
	}
	if err != nil {
		return st, fmt.Errorf("build site in %s: %w", out, err)
	}
	cache := make(map[string]string, len(outs))
	for _, o := range outs {
		if o.Key != "" {
			cache[o.Path] = o.Key
		}
	}
	if err := writeCache(out, cache); err != nil {
		return st, err
	}
	st.Written = written
	st.Unchanged = st.Files - st.Written
	removed, err := removeStale(out, outs)
	st.Removed = removed
	return st, err
}

// writeAll puts every output in place with put, on several writers, and
// counts the files that changed.
func writeAll(ctx context.Context, outs []output, put func(output) (bool, error)) (int, error) {
	var written atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	for _, o := range outs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			changed, err := put(o)
			if changed {
				written.Add(1)
			}
			return err
		})
	}
	err := g.Wait()
	return int(written.Load()), err
}

// siteOutputs lists every file of the site, sorted by path.
func siteOutputs(n *Node) []output {
	idx := prepare(n)
	outs := pageOutputs(n, idx)
	for _, f := range n.Files {
		o := output{Path: f.Path, Render: constant(f.Data), Key: keyOf(manifest.HashBytes(f.Data))}
		if n.Dir != "" {
			o.Source = filepath.Join(n.Dir, filepath.FromSlash(f.Path))
		}
		outs = append(outs, o)
	}
	outs = append(outs,
		// .nojekyll stops GitHub Pages from running Jekyll, which would
		// turn traces/*.md into HTML instead of serving their bytes.
		output{Path: ".nojekyll", Render: constant(nil)},
		output{Path: "style.css", Render: constant(styleCSS)},
		output{Path: "robots.txt", Render: constant(robots(n.URL))},
		output{Path: "404.html", Render: func() ([]byte, error) { return notFound(n, idx) }},
		output{Path: "favicon.svg", Render: constant(favicon)},
		output{Path: "feed.atom", Render: func() ([]byte, error) { return tracesFeed(n, idx) }},
		output{Path: "validations.atom", Render: func() ([]byte, error) { return validationsFeed(n) }},
	)
	if n.URL != "" {
		outs = append(outs, output{Path: "sitemap.xml", Render: constant(sitemap(n.URL, sitemapEntries(n, outs)))})
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Path < outs[j].Path })
	return outs
}

// writeOutput renders o and writes it unless its bytes are already there.
// An output whose key matches the cache and whose file exists is skipped
// without rendering.
func writeOutput(out string, o output, cachedKey string) (bool, error) {
	p := filepath.Join(out, filepath.FromSlash(o.Path))
	if o.Key != "" && o.Key == cachedKey {
		if _, err := os.Lstat(p); err == nil {
			return false, nil
		}
	}
	data, err := o.Render()
	if err != nil {
		return false, err
	}
	if o.Source != "" {
		return linkRegenerable(o.Source, p, data)
	}
	return writeRegenerable(p, data)
}

// sitemapEntries lists the HTML pages of outs, sorted, each with the
// date its content last changed: a trace page when the trace was
// submitted or last validated, any other page when the MANIFEST was
// last updated.
func sitemapEntries(n *Node, outs []output) []sitemapEntry {
	traced := make(map[string]time.Time, len(n.Traces))
	for _, t := range n.Traces {
		last := t.Submitted
		for _, v := range t.Received {
			if v.ValidatedAt.After(last) {
				last = v.ValidatedAt
			}
		}
		traced[pagePath(t.File)] = last
	}
	var entries []sitemapEntry
	for _, o := range outs {
		if filepath.Ext(o.Path) != ".html" || o.Path == "404.html" {
			continue
		}
		last, ok := traced[o.Path]
		if !ok {
			last = n.Updated
		}
		entries = append(entries, sitemapEntry{Path: o.Path, LastMod: last})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries
}

func constant(b []byte) func() ([]byte, error) {
	return func() ([]byte, error) { return b, nil }
}

// Mistakes a person fixes, which the CLI tells apart from failures.
var (
	// ErrTemplate: the directory holds the template's placeholders, not a
	// node: 'meshnode init' makes it one.
	ErrTemplate = errors.New("the template's placeholder, not a node's")
	// ErrNotSite: the output is a file, or a directory meshnode did not
	// build, which a build would overwrite.
	ErrNotSite = errors.New("not a site meshnode built")
)

// claimOut makes sure out is empty, absent or a site of ours, so that
// deleting stale files can never eat someone's work (say, --out .). It
// reports whether out is fresh: absent, or empty but for stages an
// interrupted build left behind.
func claimOut(out string) (bool, error) {
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() {
		return false, fmt.Errorf("refusing to build into %s: it is a file, %w", out, ErrNotSite)
	}
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", out, err)
	}
	fresh := true
	for _, e := range entries {
		fresh = fresh && isStage(e.Name())
	}
	if fresh {
		return true, nil
	}
	if _, err := os.Stat(filepath.Join(out, markerFile)); err != nil {
		return false, fmt.Errorf("refusing to build into %s: it is not empty and holds no %s, so it is %w", out, markerFile, ErrNotSite)
	}
	return false, nil
}

// removeStale deletes files under out that are not in outs, then the
// directories that became empty.
func removeStale(out string, outs []output) (int, error) {
	keep := make(map[string]bool, len(outs)+1)
	keep[markerFile] = true
	for _, o := range outs {
		keep[filepath.FromSlash(o.Path)] = true
	}
	var stale, dirs []string
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if d.IsDir() {
			if rel != "." {
				dirs = append(dirs, p)
			}
			return nil
		}
		if !keep[rel] {
			stale = append(stale, p)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", out, err)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return 0, fmt.Errorf("remove stale %s: %w", p, err)
		}
	}
	// Deepest first, so a parent is tried after its children; a directory
	// that still holds files refuses, which is what we want.
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
	return len(stale), nil
}

package site

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/meshnode/meshnode/internal/roster"
)

// DefaultOut is where Build writes when Options.Out is empty, relative to
// the node's directory.
const DefaultOut = "_site"

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
	// AgentsSkipped are the lines of AGENTS.md that list no agent, for the
	// command to show (every command reading AGENTS.md shows them).
	AgentsSkipped []roster.Problem
}

// Build reads the node at o.Dir and writes its site to o.Out.
func Build(ctx context.Context, o Options) (Stats, error) {
	o = o.withDefaults()
	gc := limitGC()
	defer gc.restore()
	n, err := Load(o.Dir, o.Now)
	if err != nil {
		return Stats{}, err
	}
	gc.relax()
	st, err := write(ctx, n, o.Out, gc.rendering)
	st.AgentsSkipped = n.AgentsSkipped
	if err != nil {
		return st, err
	}
	o.Logger.Info("site built", "out", o.Out, "files", st.Files, "written", st.Written, "removed", st.Removed)
	return st, nil
}

// While a site is built, the collector runs when the heap nears a soft
// memory limit rather than at Go's default GOGC of 100: rendering 10,000
// trace pages allocates over a gigabyte against a live heap of about
// 50 MB, and at GOGC 100 the collector ran every 50 MB and took an eighth
// of the build's CPU, while GOGC 400 alone ran it a quarter as often for
// a peak of 340 MB of RSS. GOGC is buildGCPercent throughout, below a
// limit: buildMemoryFloor while loading (at GOGC 100 the load's growing
// heap took a third of the build's collections, for no lower a peak);
// then twice the live heap the load left, at least the floor. The
// collector then runs as often as GOGC 100 would at most, and a third as
// often for a node of 10,000 traces.
//
// Until the first output is rendered, the floor is quietMemoryFloor: an
// unchanged rebuild renders nothing, and the few megabytes of garbage
// its keys make do not need the room; under the 128 MiB floor the heap
// grew to it all the same, for a peak RSS of 144 MB against the 43 MB
// of heap the load leaves live (docs/performance.md, "Static site"). The
// first render raises the limit to what it was, so a cold build, or a
// rebuild that renders any page, collects as often as before.
const (
	buildGCPercent   = 400
	buildMemoryFloor = 128 << 20
	quietMemoryFloor = 96 << 20
)

// gcSettings are the collector's settings before a build.
type gcSettings struct {
	percent int
	limit   int64
}

// limitGC sets the soft memory limit to quietMemoryFloor, unless
// GOMEMLIMIT asks for less, raises GOGC to buildGCPercent unless it asks
// for more or for none, and returns the settings to restore.
func limitGC() gcSettings {
	s := gcSettings{limit: debug.SetMemoryLimit(-1)}
	s.percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(s.percent)
	if s.percent >= 0 && s.percent < buildGCPercent {
		debug.SetGCPercent(buildGCPercent)
	}
	debug.SetMemoryLimit(min(s.limit, quietMemoryFloor))
	return s
}

// relax, once the node is loaded, collects once to learn the live heap
// and raises the limit to twice it when that is above the quiet floor (a
// limit the heap outgrew would have the collector run without end),
// unless GOMEMLIMIT asks for less.
func (s gcSettings) relax() {
	runtime.GC()
	debug.SetMemoryLimit(min(s.limit, max(quietMemoryFloor, 2*liveHeap())))
}

// rendering, called before the first output is rendered, raises the
// limit to twice the live heap the last collection found, at least
// buildMemoryFloor, unless GOMEMLIMIT asks for less.
func (s gcSettings) rendering() {
	debug.SetMemoryLimit(min(s.limit, max(buildMemoryFloor, 2*liveHeap())))
}

// restore puts the settings back.
func (s gcSettings) restore() {
	debug.SetGCPercent(s.percent)
	debug.SetMemoryLimit(s.limit)
}

// liveHeap is the bytes of heap the last collection found reachable.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
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
	return write(ctx, n, out, func() {})
}

// write is Write calling rendering once, before the first output it
// renders (none on an unchanged rebuild).
func write(ctx context.Context, n *Node, out string, rendering func()) (Stats, error) {
	rendering = sync.OnceFunc(rendering)
	fresh, err := claimOut(out)
	if err != nil {
		return Stats{}, err
	}
	outs := siteOutputs(n)
	st := Stats{Files: len(outs) + 1, Traces: len(n.Traces)}
	ex, err := scanOut(out)
	if err != nil {
		return st, err
	}
	cached := readCache(out)
	put := func(o output, key string) (bool, error) {
		return writeOutput(out, o, key, cached[o.Path], ex.has(o.Path), rendering)
	}
	var stg *stage
	if fresh {
		if stg, err = newStage(out); err != nil {
			return st, err
		}
		defer stg.discard()
		put = func(o output, _ string) (bool, error) { rendering(); return stg.write(o) }
	}
	keys, written, err := writeAll(ctx, outs, put)
	if err == nil && stg != nil {
		err = stg.publish()
	}
	if err != nil {
		return st, fmt.Errorf("build site in %s: %w", out, err)
	}
	cache := make(map[string]string, len(outs))
	for i, o := range outs {
		if keys[i] != "" {
			cache[o.Path] = keys[i]
		}
	}
	// The keys read are the keys made on an unchanged rebuild: then there
	// is nothing to encode, nor a marker to read again to compare.
	if !ex.has(markerFile) || !maps.Equal(cache, cached) {
		if err := writeCache(out, cache); err != nil {
			return st, err
		}
	}
	st.Written = written
	st.Unchanged = st.Files - st.Written
	removed, err := removeStale(out, outs, ex)
	st.Removed = removed
	return st, err
}

// writeAll puts every output in place with put, on several writers, and
// counts the files that changed. The writers also make the outputs' keys
// (a serial phase before them when the build made them first), which it
// returns in the order of outs. Each writer takes the next output until
// none is left: a goroutine for each of 23,000 outputs, and the growth
// of its stack as it made a key, cost more than skipping an unchanged
// output does.
func writeAll(ctx context.Context, outs []output, put func(o output, key string) (bool, error)) ([]string, int, error) {
	var written, next atomic.Int64
	keys := make([]string, len(outs))
	g, ctx := errgroup.WithContext(ctx)
	for range min(writers, len(outs)) {
		g.Go(func() error {
			for i := int(next.Add(1) - 1); i < len(outs); i = int(next.Add(1) - 1) {
				if err := ctx.Err(); err != nil {
					return err
				}
				if outs[i].Key != nil {
					keys[i] = outs[i].Key()
				}
				changed, err := put(outs[i], keys[i])
				if changed {
					written.Add(1)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return keys, int(written.Load()), err
}

// writeOutput renders o and writes it unless its bytes are already there.
// An output whose key matches the cache and whose file was there when
// the build began (present) is skipped without rendering; rendering is
// called before o is rendered.
func writeOutput(out string, o output, key, cachedKey string, present bool, rendering func()) (bool, error) {
	if key != "" && key == cachedKey && present {
		return false, nil
	}
	rendering()
	p := filepath.Join(out, filepath.FromSlash(o.Path))
	buf := getBuffer()
	defer putBuffer(buf)
	data, err := o.Render(buf)
	if err != nil {
		return false, err
	}
	if o.Source != "" {
		return linkRegenerable(o.Source, p, data)
	}
	return writeRegenerable(p, data)
}

// Mistakes a person fixes, which the CLI tells apart from failures.
var (
	// ErrTemplate: the directory holds the template's placeholders, not a
	// node: 'meshnode init' makes it one.
	ErrTemplate = errors.New("the template's placeholder, not a node's")
	// ErrNotSite: the output is a file, or a directory meshnode did not
	// build, which a build would overwrite.
	ErrNotSite = errors.New("not a site meshnode built")
	// ErrOutUnusable: the output directory can be neither read nor
	// created (a path under a file, a read-only or virtual file system).
	ErrOutUnusable = errors.New("cannot use it as the output directory")
)

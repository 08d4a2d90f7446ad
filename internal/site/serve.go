package site

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/meshnode/meshnode/internal/node"
)

// Preview serves a node's site for a local preview, rebuilding it first
// whenever a source file changed since the last build. Raw markdown is
// served as text/markdown, byte for byte.
type Preview struct {
	opts  Options
	files http.Handler

	mu    sync.Mutex
	built [sha256.Size]byte // fingerprint of the sources last built
	ok    bool
	Stats Stats // what the last build did
}

// NewPreview returns a Preview of the node at o.Dir, building into o.Out.
// o.Now, when set, is kept for every build (tests); when zero, each build
// judges presence at the time it runs.
func NewPreview(o Options) *Preview {
	fixed := !o.Now.IsZero()
	o = o.withDefaults()
	if !fixed {
		o.Now = time.Time{}
	}
	return &Preview{opts: o, files: http.FileServer(http.Dir(o.Out))}
}

// Refresh rebuilds the site when its sources changed. It reports whether
// it built.
func (p *Preview) Refresh(ctx context.Context) (bool, error) {
	fp, err := fingerprint(p.opts.Dir, p.opts.Out)
	if err != nil {
		return false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ok && fp == p.built {
		return false, nil
	}
	st, err := Build(ctx, p.opts)
	if err != nil {
		return false, err
	}
	p.built, p.ok, p.Stats = fp, true, st
	for _, a := range st.AgentsSkipped {
		p.opts.Logger.Warn("AGENTS.md line skipped", "line", a.Line, "reason", a.Reason)
	}
	return true, nil
}

// ServeHTTP rebuilds when needed, then serves the file asked for.
func (p *Preview) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := p.Refresh(r.Context()); err != nil {
		p.opts.Logger.Error("rebuild site", "err", err)
		http.Error(w, "meshnode: rebuild failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	switch strings.ToLower(path.Ext(r.URL.Path)) {
	case ".md":
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	case ".atom":
		w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	}
	w.Header().Set("Cache-Control", "no-cache")
	if !p.exists(r.URL.Path) {
		p.notFound(w)
		return
	}
	p.files.ServeHTTP(w, r)
}

// exists reports whether a request path names a file of the site, or a
// directory with an index.html, as GitHub Pages would serve it.
func (p *Preview) exists(urlPath string) bool {
	rel := path.Clean("/" + urlPath)
	fi, err := os.Stat(filepath.Join(p.opts.Out, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	if fi.IsDir() {
		_, err = os.Stat(filepath.Join(p.opts.Out, filepath.FromSlash(rel), "index.html"))
		return err == nil
	}
	return !strings.HasPrefix(path.Base(rel), ".") // the marker and stages are not pages
}

// notFound answers with the site's own 404.html and status 404, as
// GitHub Pages does.
func (p *Preview) notFound(w http.ResponseWriter) {
	page, err := os.ReadFile(filepath.Join(p.opts.Out, "404.html"))
	if err != nil {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(page)
}

// Serve builds the site and serves it on addr until ctx is done. ready,
// when not nil, is called with the site's URL once it listens.
func Serve(ctx context.Context, o Options, addr string, ready func(url string)) error {
	p := NewPreview(o)
	if _, err := p.Refresh(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if ready != nil {
		ready("http://" + ln.Addr().String() + "/")
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", addr, err)
	}
	return nil
}

// fingerprint hashes the name, size and mtime of every file the site is
// built from, skipping the output directory: cheap enough to run on every
// request of a local preview.
func fingerprint(dir, out string) ([sha256.Size]byte, error) {
	h := sha256.New()
	absOut, _ := filepath.Abs(out)
	add := func(p string, fi fs.FileInfo) {
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
	}
	for _, sub := range []string{manifestFile, identityFile, agentsFile, node.FoundersFile, tracesDir, validationsDir, disputesDir, node.StateDir} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if abs, _ := filepath.Abs(p); d.IsDir() && abs == absOut {
				return filepath.SkipDir
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			add(p, fi)
			return nil
		})
		if err != nil {
			return [sha256.Size]byte{}, fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

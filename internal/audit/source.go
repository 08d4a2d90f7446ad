package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/fetch"
)

// source is where the audited node's public files are read from.
type source interface {
	// read returns the file at rel (a slash path under the node's root),
	// at most max bytes; errNotFound when there is none.
	read(ctx context.Context, rel string, max int64) ([]byte, error)
	// String names the source for a report.
	String() string
}

var errNotFound = errors.New("not found")

// ErrNoManifest is a source that serves no MANIFEST.md: not a node, or
// not where its MANIFEST is.
var ErrNoManifest = errors.New("no MANIFEST.md there")

// dirSource reads a node's files from a local directory (a checkout of
// its repository, or its built site).
type dirSource struct{ dir string }

func (d dirSource) String() string { return d.dir }

func (d dirSource) read(_ context.Context, rel string, max int64) ([]byte, error) {
	// OpenInRoot refuses a path, or a symlink, that leaves the directory:
	// a MANIFEST row is the audited node's word, not ours.
	f, err := os.OpenInRoot(d.dir, filepath.FromSlash(rel))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", rel, max)
	}
	return data, nil
}

// urlSource reads a node's files over HTTP with the fetch package's
// client: every read has its timeout, its size cap, and stays under the
// node's base URL.
type urlSource struct {
	base   string
	client *fetch.Client
}

func (u urlSource) String() string { return u.base }

func (u urlSource) read(ctx context.Context, rel string, max int64) ([]byte, error) {
	target, err := fetch.ResolveWithin(u.base, rel)
	if err != nil {
		return nil, err
	}
	resp, err := u.client.Get(ctx, fetch.Request{URL: target, MaxBytes: max, Within: u.base})
	if fetch.IsKind(err, fetch.KindNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// IsURL reports whether s names a node by URL rather than by directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

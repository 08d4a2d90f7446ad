package demo_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/demo"
	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/site"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/validation"
)

// The demo's fixed clock: the first heartbeat runs at round1, the second
// 30 minutes later.
var (
	round1 = time.Date(2026, 2, 12, 12, 0, 0, 0, time.UTC)
	round2 = round1.Add(30 * time.Minute)
)

// run is one demo run in a fresh directory, with what it printed.
type run struct {
	dir string
	res *demo.Result
	out string
}

func start(dir string, build func(ctx context.Context, dir, out string) error) (*run, error) {
	var out bytes.Buffer
	res, err := demo.Run(context.Background(), demo.Options{Dir: dir, Stdout: &out, Build: build})
	if err != nil {
		return nil, fmt.Errorf("demo.Run: %w\noutput:\n%s", err, out.String())
	}
	return &run{dir: dir, res: res, out: out.String()}, nil
}

// Demo runs take seconds, almost all of it waiting (the fetcher retries
// the down peer after 1 s and 2 s in each heartbeat), so the tests share
// two runs, in TestMain's directory: one as the CLI runs it, building the
// site with internal/site, and one with Build nil. Tests only read them.
var (
	sharedDir string

	siteOnce, plainOnce sync.Once
	siteRun, plainRun   *run
	siteErr, plainErr   error
	// buildDir and buildOut are what the site run's Build was called with.
	buildDir, buildOut string
)

// sharedDemo returns the run that built the site.
func sharedDemo(t *testing.T) *run {
	t.Helper()
	siteOnce.Do(func() {
		siteRun, siteErr = start(filepath.Join(sharedDir, "site"), func(ctx context.Context, dir, out string) error {
			buildDir, buildOut = dir, out
			_, err := site.Build(ctx, site.Options{Dir: dir, Out: out})
			return err
		})
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return siteRun
}

// plainDemo returns the run without a Build.
func plainDemo(t *testing.T) *run {
	t.Helper()
	plainOnce.Do(func() { plainRun, plainErr = start(filepath.Join(sharedDir, "plain"), nil) })
	if plainErr != nil {
		t.Fatal(plainErr)
	}
	return plainRun
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "meshnode-demo-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func (r *run) round(t *testing.T, n int) *report.Summary {
	t.Helper()
	if len(r.res.Rounds) != 2 {
		t.Fatalf("demo ran %d heartbeats, want 2", len(r.res.Rounds))
	}
	return r.res.Rounds[n-1]
}

func (r *run) read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (r *run) nodeURL(t *testing.T) string {
	t.Helper()
	cfg, err := config.Load(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.URL
}

func (r *run) cursors(t *testing.T) *state.State {
	t.Helper()
	s, err := state.Load(filepath.Join(r.dir, "mesh-state", "polling-cursors.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// cursorOf returns the cursor of the named agent.
func cursorOf(t *testing.T, s *state.State, agent string) *state.Cursor {
	t.Helper()
	for _, c := range s.Cursors {
		if c.Agent == agent {
			return c
		}
	}
	t.Fatalf("no cursor for %s in polling-cursors.json", agent)
	return nil
}

// validations reads every file in validations/, keyed by the judged
// trace's path under the sample hosts ("ada/traces/001-polling-costs.md").
func (r *run) validations(t *testing.T) map[string]*validation.Validation {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(r.dir, "validations", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*validation.Validation{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := validation.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(name), err)
		}
		if want := validation.FileName(v.TraceHash); filepath.Base(name) != want {
			t.Errorf("%s judges %s, so should be named %s", filepath.Base(name), v.TraceHash, want)
		}
		out[tracePath(v.TraceURL)] = v
	}
	return out
}

// tracePath drops the scheme and host of a URL.
func tracePath(url string) string {
	rest := strings.TrimPrefix(url, "http://")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i+1:]
	}
	return rest
}

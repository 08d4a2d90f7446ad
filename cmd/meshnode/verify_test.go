package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// serveBasicMesh serves conformance/basic's public files on 127.0.0.1,
// ann with the case's AGENTS.md; with founders, ann also serves the mesh's
// FOUNDERS.md, which gives ann
// and bob standing and so validates ann's seq 1, which ann's MANIFEST
// still lists as pending. pages are served as well, by path.
func serveBasicMesh(t *testing.T, founders bool, pages map[string]string) string {
	t.Helper()
	root := filepath.Join(conformanceDir, "basic")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file := filepath.Join(root, "public", filepath.FromSlash(path.Clean(r.URL.Path)))
		switch {
		case r.URL.Path == "/ann/AGENTS.md", founders && r.URL.Path == "/ann/FOUNDERS.md":
			file = filepath.Join(root, "node", path.Base(r.URL.Path))
		}
		if page, ok := pages[r.URL.Path]; ok {
			w.Write([]byte(page))
			return
		}
		data, err := os.ReadFile(file)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(strings.ReplaceAll(string(data), meshPlaceholder, srv.URL)))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestVerifyExitCodes(t *testing.T) {
	tests := []struct {
		name     string
		args     func(url string) []string
		founders bool
		code     int
		stdout   string
		stderr   string
	}{
		{"a node whose files agree", func(u string) []string { return []string{u + "/ann/"} }, false, exitOK,
			"statuses: 1 agree, 0 lag, 0 disagree", ""},
		{"a node whose MANIFEST withholds a status its files give", func(u string) []string { return []string{u + "/ann/"} }, true, exitProblem,
			"disagree  seq 1  traces/001-ann-finding.md  published pending, files give validated", "1 problem(s) found"},
		{"no node given", func(string) []string { return nil }, false, exitUsage, "", "give one node"},
		{"neither a URL nor a directory", func(string) []string { return []string{"no-such-dir"} }, false, exitUsage, "", "neither a URL nor a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := serveBasicMesh(t, tt.founders, nil)
			args := append([]string{"verify", "--allow-private-addresses", "--now", "2026-03-15T00:00:00Z"}, tt.args(url)...)
			code, stdout, stderr := runSetupCLI(t, args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
		})
	}
}

func TestVerifyJSONNamesEachRowsVerdict(t *testing.T) {
	url := serveBasicMesh(t, true, nil)
	code, stdout, stderr := runSetupCLI(t, "verify", "--json", "--allow-private-addresses", "--now", "2026-03-15T00:00:00Z", url+"/ann/")
	if code != exitProblem {
		t.Fatalf("exit %d, want %d: %s", code, exitProblem, stderr)
	}
	var rep struct {
		Agent string `json:"agent"`
		Rows  []struct {
			Seq       int    `json:"seq"`
			Published string `json:"published"`
			Computed  string `json:"computed"`
			Verdict   string `json:"verdict"`
		} `json:"rows"`
		Signal struct {
			Signal float64 `json:"signal"`
		} `json:"signal"`
		Peers []struct {
			Agent string `json:"agent"`
		} `json:"peers"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if rep.Agent != "ann" || len(rep.Rows) != 1 || rep.Rows[0].Verdict != "disagree" || rep.Rows[0].Computed != "validated" ||
		rep.Signal.Signal != 54 || len(rep.Peers) != 2 {
		t.Fatalf("report = %+v", rep)
	}
}

// TestVerifyReportsWhatTheSiteShows serves ann's signal.html beside its
// files: a SIGNAL it does not earn is a problem, a true one is not, and
// no site at all is a note.
func TestVerifyReportsWhatTheSiteShows(t *testing.T) {
	row := func(signal string) string {
		return `<table><tr class="self" data-agent="ann" data-signal="` + signal + `" data-tier="Provisional"><td>ann</td></tr></table>`
	}
	tests := []struct {
		name   string
		pages  map[string]string
		code   int
		stdout string
	}{
		{"a page that shows a SIGNAL the files do not give", map[string]string{"/ann/signal.html": row("9999")}, exitProblem,
			"ann signal  shows 9999, files give 0"},
		{"a page that agrees", map[string]string{"/ann/signal.html": row("0")}, exitOK, "pages: 2 agree, 0 lag, 0 disagree"},
		{"no site", nil, exitOK, "note  signal.html not served: no site to check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := serveBasicMesh(t, false, tt.pages)
			code, stdout, stderr := runSetupCLI(t, "verify", "--allow-private-addresses", "--now", "2026-03-15T00:00:00Z", url+"/ann/")
			if code != tt.code || !strings.Contains(stdout, tt.stdout) {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
		})
	}
}

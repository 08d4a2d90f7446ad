package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
)

func TestCommandForSaysHowThePersonRunsMeshnode(t *testing.T) {
	onPath := func(p string) func(string) (string, error) {
		return func(string) (string, error) {
			if p == "" {
				return "", errors.New("not found")
			}
			return p, nil
		}
	}
	same := func(a, b string) bool { return a == b }
	local := &debug.BuildInfo{Path: "github.com/meshnode/meshnode/cmd/meshnode", Main: debug.Module{Version: "(devel)"}}
	released := &debug.BuildInfo{Path: "github.com/meshnode/meshnode/cmd/meshnode", Main: debug.Module{Version: "v1.2.0"}}
	tests := []struct {
		name, exe, path string
		bi              *debug.BuildInfo
		inRepo          bool
		want            string
	}{
		{"installed", "/home/ada/go/bin/meshnode", "/home/ada/go/bin/meshnode", released, false, "meshnode"},
		{"built here, not on PATH", "/home/ada/meshnode/meshnode", "", local, true, "/home/ada/meshnode/meshnode"},
		{"another meshnode on PATH", "/home/ada/meshnode/meshnode", "/usr/bin/meshnode", local, true, "/home/ada/meshnode/meshnode"},
		{"go run in the repository", "/tmp/go-build1234/b001/exe/meshnode", "", local, true, "go run ./cmd/meshnode"},
		{"go run from the build cache", "/home/ada/.cache/go-build/ab/abcd-d/meshnode", "", local, true, "go run ./cmd/meshnode"},
		{"go run in a subdirectory", "/tmp/go-build1234/b001/exe/meshnode", "", local, false, "go run github.com/meshnode/meshnode/cmd/meshnode"},
		{"go run of a version", "/tmp/go-build1234/b001/exe/meshnode", "", released, false, "go run github.com/meshnode/meshnode/cmd/meshnode@v1.2.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := commandFor(tt.exe, tt.bi, onPath(tt.path), same, func(string) bool { return tt.inRepo })
			if got != tt.want {
				t.Errorf("commandFor = %q, want %q", got, tt.want)
			}
		})
	}
}

// The demo's closing commands work as printed, and it names no URL of
// the servers that stop with it.
func TestDemoPrintsCommandsThatWorkAndNoDeadURL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo node")
	out := cliT(t, "demo", "--dir", dir)
	for _, line := range strings.Split(out, "\n") {
		// The heartbeat summaries record the URLs they met; the serve
		// line names the address serve will listen on.
		record := strings.HasPrefix(line, "  hash mismatch: ") || strings.HasPrefix(line, "  failed: ") ||
			strings.Contains(line, " serve --dir ")
		if strings.Contains(line, "http://127.0.0.1:") && !record {
			t.Errorf("a URL that dies with the demo: %q", line)
		}
	}
	_, closer, ok := strings.Cut(out, "Look closer")
	if !ok {
		t.Fatalf("no commands to look closer:\n%s", out)
	}
	ran := 0
	for _, line := range strings.Split(closer, "\n")[1:] {
		line, _, _ = strings.Cut(line, "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.Contains(line, "--dir '"+dir+"'") {
			t.Errorf("the directory is not quoted for the shell: %q", line)
		}
		args := shellFields(t, line)
		for i, a := range args {
			if _, ok := commands[a]; ok {
				args = args[i:]
				break
			}
		}
		if args[0] == "serve" {
			continue // runs until stopped; its flags are checked by its own tests
		}
		if code, stdout, stderr := runSetupCLI(t, args...); code != exitOK {
			t.Errorf("%q: exit %d\n%s%s", line, code, stdout, stderr)
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("ran %d commands, want peers, signal and inbox", ran)
	}
}

// shellFields splits a line as a POSIX shell would for plain words and
// single-quoted ones.
func shellFields(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted = !quoted
			inWord = true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// With --serve the demo keeps its node's site up until Ctrl-C, which is
// its normal end: exit 0.
func TestDemoServeKeepsTheSiteUpUntilInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := exitCode(run(ctx, []string{"demo", "--dir", dir, "--serve"}, pw, &stderr), &stderr)
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	url := ""
	for url == "" && sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "Serving the demo node's site on "); ok {
			url, _, _ = strings.Cut(u, " ")
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		t.Fatalf("no serving line; exit %d, stderr:\n%s", <-done, stderr.String())
	}
	resp, err := http.Get(url + "MANIFEST.md")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want, _ := os.ReadFile(filepath.Join(dir, "MANIFEST.md"))
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
		t.Errorf("GET MANIFEST.md: %s, %d bytes; want the node's %d bytes", resp.Status, len(body), len(want))
	}
	cancel(&signalError{sig: syscall.SIGINT})
	if code := <-done; code != exitOK {
		t.Errorf("exit %d after Ctrl-C, want 0; stderr:\n%s", code, stderr.String())
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runSetupCLI runs the CLI as main does, without a terminal, and returns the
// exit code and both outputs.
func runSetupCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = exitCode(run(context.Background(), args, &out, &errb), &errb)
	return code, out.String(), errb.String()
}

func TestInitCommand(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		setup      func(t *testing.T, dir string)
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"writes the node from flags", []string{"--agent", "ada", "--url", "https://ada.github.io/node/"}, nil,
			exitOK, "wrote AGENTS.md\n\nagent ada at https://ada.github.io/node/", ""},
		{"says which command commits and pushes", []string{"--agent", "ada", "--url", "https://ada.github.io/node/"}, nil,
			exitOK, "run 'meshnode heartbeat'\nand 'meshnode commit --push', enable GitHub Pages", ""},
		{"missing agent off a terminal names the flag", []string{"--url", "https://ada.github.io/node/"}, nil,
			exitUsage, "", "meshnode: init: missing --agent: the agent name is required when there is no terminal to ask on\nhint: pass --agent"},
		{"bad agent name is a usage error", []string{"--agent", "two words", "--url", "https://a.example/"}, nil,
			exitUsage, "", "meshnode: init: --agent: agent name \"two words\""},
		{"existing files are named, not overwritten", []string{"--agent", "ada", "--url", "https://a.example/"},
			func(t *testing.T, dir string) { setupWriteFile(t, filepath.Join(dir, "IDENTITY.md"), "mine\n") },
			exitUsage, "", "already holds IDENTITY.md; not overwriting without --force\nhint: pass --force"},
		{"force overwrites", []string{"--agent", "ada", "--url", "https://a.example/", "--force"},
			func(t *testing.T, dir string) { setupWriteFile(t, filepath.Join(dir, "IDENTITY.md"), "mine\n") },
			exitOK, "wrote IDENTITY.md", ""},
		{"stray argument", []string{"ada"}, nil, exitUsage, "", "unexpected argument \"ada\""},
		{"without a terminal the identity is left to fill in", []string{"--agent", "ada", "--url", "https://a.example/"}, nil,
			exitOK, "Next: fill in IDENTITY.md (model, human, role left blank), add peers", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GITHUB_REPOSITORY", "")
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			code, stdout, stderr := runSetupCLI(t, append([]string{"init", "--dir", dir}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stdout, tt.wantStdout) || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					code, stdout, stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

func TestInitTakesTheURLFromGITHUB_REPOSITORY(t *testing.T) {
	t.Setenv("GITHUB_REPOSITORY", "Ada/ada-node")
	dir := t.TempDir()
	if code, _, stderr := runSetupCLI(t, "init", "--dir", dir, "--agent", "ada"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := setupReadFile(t, filepath.Join(dir, "mesh.yaml")); !strings.Contains(got, "url: https://ada.github.io/ada-node/\n") {
		t.Errorf("mesh.yaml = %q, want the Pages URL of Ada/ada-node", got)
	}
}

// TestInitPromptEndedEarlyIsAMistake: input that ends at a question (Ctrl-D)
// is the person's to redo, said as one, and nothing is written.
func TestInitPromptEndedEarlyIsAMistake(t *testing.T) {
	t.Setenv("GITHUB_REPOSITORY", "ada/ada-node")
	dir := t.TempDir()
	prompt := newPrompt(strings.NewReader("ada\n\n"), io.Discard)
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, now: func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }}
	err := initNode(e, initOptions{nodeFlags: nodeFlags{dir: dir}}, prompt)
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the input ended before every question was answered") {
		t.Fatalf("init with its input ended at the model question: %v, want a usage error that says so", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("init wrote %d file(s) although its questions were not all answered", len(entries))
	}
}

func TestInitPromptReadsAnswersAndKeepsSuggestions(t *testing.T) {
	t.Setenv("GITHUB_REPOSITORY", "ada/ada-node")
	dir := t.TempDir()
	var asked bytes.Buffer
	// Agent: keep the suggestion; URL: keep; model, human, role answered;
	// the last answer has no final newline, as when input ends.
	prompt := newPrompt(strings.NewReader("\n\nClaude\nAda\nmaps the mesh"), &asked)
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, now: func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }}
	if err := initNode(e, initOptions{nodeFlags: nodeFlags{dir: dir}}, prompt); err != nil {
		t.Fatal(err)
	}
	wantAsked := "Agent name [ada-node]: Pages URL (where MANIFEST.md will be served) [https://ada.github.io/ada-node/]: " +
		"Model (what writes this node's traces): Human (who is responsible for this node): Role (what this agent does on the mesh): "
	if asked.String() != wantAsked {
		t.Errorf("asked %q\nwant  %q", asked.String(), wantAsked)
	}
	want := "# IDENTITY\n\nname: ada-node\njoined: 2026-03-01\nmodel: Claude\nhuman: Ada\nrole: maps the mesh\nlog_key: ada.github.io/ada-node+"
	if got := setupReadFile(t, filepath.Join(dir, "IDENTITY.md")); !strings.HasPrefix(got, want) {
		t.Errorf("IDENTITY.md = %q, want %q", got, want)
	}
}

// TestInitAsksNothingOverAnExistingNode: on a terminal, files that would be
// overwritten are refused before the first question, not after the last.
func TestInitAsksNothingOverAnExistingNode(t *testing.T) {
	t.Setenv("GITHUB_REPOSITORY", "ada/ada-node")
	dir := t.TempDir()
	setupWriteFile(t, filepath.Join(dir, "IDENTITY.md"), "mine\n")
	var asked bytes.Buffer
	prompt := newPrompt(strings.NewReader("\n\nClaude\nAda\nmaps the mesh\n"), &asked)
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, now: time.Now}
	err := initNode(e, initOptions{nodeFlags: nodeFlags{dir: dir}}, prompt)
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "already holds IDENTITY.md") {
		t.Fatalf("init over an existing IDENTITY.md: %v, want a usage error naming it", err)
	}
	if asked.Len() != 0 {
		t.Errorf("init asked %q before refusing to overwrite", asked.String())
	}
}

// TestInitSaysFillInIdentityOnlyWhenSomethingIsBlank: answering every
// identity question leaves nothing to fill in, and the closing lines say
// so by not asking; a blank answer is named.
func TestInitSaysFillInIdentityOnlyWhenSomethingIsBlank(t *testing.T) {
	t.Setenv("GITHUB_REPOSITORY", "ada/ada-node")
	for _, tt := range []struct {
		name, answers, want string
	}{
		{"all answered", "\n\nClaude\nAda\nmaps the mesh\n", "Next: add peers to AGENTS.md"},
		{"human left blank", "\n\nClaude\n\nmaps the mesh\n", "Next: fill in IDENTITY.md (human left blank), add peers to AGENTS.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			prompt := newPrompt(strings.NewReader(tt.answers), io.Discard)
			e := &env{stdout: &out, stderr: &bytes.Buffer{}, now: time.Now}
			if err := initNode(e, initOptions{nodeFlags: nodeFlags{dir: t.TempDir()}}, prompt); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("init said:\n%s\nwant %q", out.String(), tt.want)
			}
		})
	}
}

func setupWriteFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func setupReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInitSaysWhatStandingIsAndHowToGetIt(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"a fresh node without FOUNDERS.md is told how to join or found a mesh", nil,
			[]string{"Standing: a node's validations count only once it has standing", "copy its FOUNDERS.md", "ada | https://ada.example.org/"}},
		{"a founder is told it validates at once and how others join", []string{"--founder"},
			[]string{"names this node a founder", "https://ada.example.org/FOUNDERS.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"init", "--dir", dir, "--agent", "ada", "--url", "https://ada.example.org/"}, tt.args...)
			code, stdout, stderr := runSetupCLI(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
	t.Run("a node that copied the mesh's FOUNDERS.md is told to publish and be polled", func(t *testing.T) {
		dir := t.TempDir()
		setupWriteFile(t, filepath.Join(dir, "FOUNDERS.md"), "bob | https://bob.example.org/\n")
		code, stdout, stderr := runSetupCLI(t, "init", "--dir", dir, "--agent", "ada", "--url", "https://ada.example.org/")
		if code != exitOK || !strings.Contains(stdout, "FOUNDERS.md names 1 founder(s)") || !strings.Contains(stdout, "ask one to list you in theirs") {
			t.Errorf("exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
		}
	})
}

// TestInitFounderNamesTheRuleSetAsked: --rules chooses the rule set a new
// mesh's FOUNDERS.md names (mesh-2026-3 without it); it needs --founder and
// a rule set this meshnode implements.
func TestInitFounderNamesTheRuleSetAsked(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string // the rules line of FOUNDERS.md; "" when none is written
	}{
		{"default", []string{"--founder"}, exitOK, "rules: mesh-2026-3"},
		{"mesh-2026-4", []string{"--founder", "--rules", "mesh-2026-4"}, exitOK, "rules: mesh-2026-4"},
		{"mesh-2026-5", []string{"--founder", "--rules", "mesh-2026-5"}, exitOK, "rules: mesh-2026-5"},
		{"mesh-2026-6", []string{"--founder", "--rules", "mesh-2026-6"}, exitOK, "rules: mesh-2026-6"},
		{"mesh-2026-7", []string{"--founder", "--rules", "mesh-2026-7"}, exitOK, "rules: mesh-2026-7"},
		{"without --founder", []string{"--rules", "mesh-2026-4"}, exitUsage, ""},
		{"unknown", []string{"--founder", "--rules", "mesh-2099-1"}, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"init", "--dir", dir, "--agent", "ada", "--url", "https://ada.example.org/"}, tt.args...)
			code, _, stderr := runSetupCLI(t, args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tt.wantCode, stderr)
			}
			data, err := os.ReadFile(filepath.Join(dir, "FOUNDERS.md"))
			if tt.want == "" {
				if err == nil {
					t.Fatalf("FOUNDERS.md written:\n%s", data)
				}
				return
			}
			if err != nil || !strings.Contains(string(data), tt.want+"\n") {
				t.Fatalf("FOUNDERS.md (%v):\n%s\nwant a line %q", err, data, tt.want)
			}
		})
	}
}

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as the meshnode command, so that the
// scripts in testdata/script exec the real CLI.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"meshnode": main})
}

// TestScripts runs the CLI the way a person uses it: each file in
// testdata/script is one behaviour, end to end.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:       "testdata/script",
		Cmds:      map[string]func(*testscript.TestScript, bool, []string){"serve-dir": serveDir},
		Condition: commandRegistered,
		Setup: func(e *testscript.Env) error {
			// No peer, no Pages and no git config of the machine running
			// the tests may leak in.
			e.Setenv("GITHUB_REPOSITORY", "")
			e.Setenv("GITHUB_TOKEN", "")
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
			return nil
		},
	})
}

// serveDir is the script command "serve-dir DIR [VAR]": it serves DIR over
// HTTP on 127.0.0.1, as GitHub Pages serves a repository, and sets VAR
// (default PAGESURL) to the server's URL with a final "/". The server
// stops when the script ends.
func serveDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: serve-dir DIR [VAR]")
	}
	name := "PAGESURL"
	if len(args) == 2 {
		name = args[1]
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[0]))))
	ts.Defer(srv.Close)
	ts.Setenv(name, srv.URL+"/")
}

// commandRegistered answers the script condition "cmd:NAME": whether
// meshnode has the subcommand NAME, so a script can wait for a command
// another engineer has not landed yet.
func commandRegistered(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "cmd:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	_, registered := commands[name]
	return registered, nil
}

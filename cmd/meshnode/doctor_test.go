package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/setup"
)

var sampleFindings = []setup.Finding{
	{Check: "config", Status: setup.StatusOK, Message: "mesh.yaml: agent ada"},
	{Check: "peers", Status: setup.StatusWarn, Message: "peer bob unreachable", Fix: "check AGENTS.md"},
	{Check: "pages", Status: setup.StatusFail, Message: "served MANIFEST.md differs", Fix: "push"},
}

func TestDoctorPrintsOneLinePerCheckWithItsFix(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		want     string
	}{
		{"plain words when not a terminal", false,
			"ok   config: mesh.yaml: agent ada\nwarn peers: peer bob unreachable\n     fix: check AGENTS.md\nFAIL pages: served MANIFEST.md differs\n     fix: push\n"},
		{"marks on a terminal", true,
			"✓ config: mesh.yaml: agent ada\n! peers: peer bob unreachable\n     fix: check AGENTS.md\n✗ pages: served MANIFEST.md differs\n     fix: push\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			printFindings(&b, sampleFindings, tt.terminal)
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestDoctorJSONCountsFailures(t *testing.T) {
	var b bytes.Buffer
	if err := printFindingsJSON(&b, sampleFindings); err != nil {
		t.Fatal(err)
	}
	var got doctorReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if got.OK || got.Failures != 1 || len(got.Findings) != 3 || got.Findings[1].Fix != "check AGENTS.md" {
		t.Errorf("report = %+v", got)
	}
}

func TestDoctorExitsThreeWhenACheckFails(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "") // doctor reads main's protection only with a token
	code, stdout, stderr := runSetupCLI(t, "doctor", "--dir", t.TempDir())
	if code != exitProblem || !strings.Contains(stdout, "FAIL config: ") || !strings.Contains(stderr, "problem(s) found") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 3 and a failed config", code, stdout, stderr)
	}
}

func TestDoctorRefusesABadPagesURL(t *testing.T) {
	code, _, stderr := runSetupCLI(t, "doctor", "--dir", t.TempDir(), "--pages-url", "ftp://x/")
	if code != exitUsage || !strings.Contains(stderr, "meshnode: doctor: --pages-url: ") {
		t.Errorf("exit %d, stderr %q; want a usage error naming --pages-url", code, stderr)
	}
}

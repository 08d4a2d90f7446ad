package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// FuzzCheckFileList fuzzes the list of changed file names the check
// workflow hands `meshnode check` (NUL-separated, as `git diff -z` prints
// them). The pull request always also adds traces/evil.html, at a position
// the fuzzer picks: whatever the other names are (flags, help, paths that
// leave the node, newlines, control bytes, thousands of them), the gate
// must still exit 3 and report it, and never print its usage instead.
func FuzzCheckFileList(f *testing.F) {
	for _, seed := range []string{
		"", "-h", "--help", "--dir=/tmp\x00-h", "--base=/", "--\x00-h", "-", "--now=x",
		"traces/a\nb.md\x00../../etc/passwd", "/etc/passwd\x00traces/../mesh-state/ledger.json",
		"IDENTITY.md\x00AGENTS.md\x00MANIFEST.md\x00mesh-state/ledger.json",
		"traces\x00validations\x00traces/\x00./traces/x.md\x00traces//y.md",
		strings.Repeat("x/", 200) + "y.md", "\xff\xfe.md\x00\x00\x00",
	} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(255))
	}
	base := hostileBase(f, adaFounder)
	pr := prTreeFS(f, base)
	writeCheckNodeFile(f, pr, "traces/evil.html", "<script>alert(1)</script>")
	f.Chdir(pr)
	f.Fuzz(func(t *testing.T, list string, at uint8) {
		names := strings.Split(list, "\x00")
		if len(names) > 64 {
			names = names[:64]
		}
		i := int(at) % (len(names) + 1)
		names = append(names[:i], append([]string{"traces/evil.html"}, names[i:]...)...)
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"check", "--dir", ".", "--base", base, "--"}, names...), &out, &errOut)
		var pf *problemsFound
		if !errors.As(err, &pf) {
			t.Fatalf("names %q: err = %v, want problems found\nstdout:\n%s\nstderr:\n%s", names, err, out.String(), errOut.String())
		}
		if !hasLinePrefix(out.String(), "traces/evil.html:1: ") || strings.Contains(out.String(), "Usage:") {
			t.Fatalf("names %q: stdout does not report traces/evil.html:\n%s", names, out.String())
		}
	})
}

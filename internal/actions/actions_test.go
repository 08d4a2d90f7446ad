package actions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnnotationEscapesPeerText(t *testing.T) {
	tests := []struct {
		name string
		a    Annotation
		want string
	}{
		{"plain", Annotation{Level: Warning, Title: "peer unreachable", Message: "ghost"}, "::warning title=peer unreachable::ghost"},
		{"no title", Annotation{Level: Error, Message: "boom"}, "::error::boom"},
		{"newline cannot start a new command", Annotation{Level: Error, Title: "x", Message: "a\n::error::forged"}, "::error title=x::a%0A::error::forged"},
		{"percent round-trips", Annotation{Level: Notice, Title: "100%", Message: "50% done\r"}, "::notice title=100%25::50%25 done%0D"},
		{"colon and comma end a property", Annotation{Level: Error, Title: "hash mismatch: a, b", Message: "m"}, "::error title=hash mismatch%3A a%2C b::m"},
		{"at a file's line", Annotation{Level: Error, File: "traces/a.md", Line: 3, Message: "m"}, "::error file=traces/a.md,line=3::m"},
		{"a file name cannot add a property", Annotation{Level: Error, File: "a,b:c\n::x", Line: 1, Message: "a\n::error::b"}, "::error file=a%2Cb%3Ac%0A%3A%3Ax,line=1::a%0A::error::b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCellKeepsATableRowIntact(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"pipe", "a|b", `a\|b`},
		{"newlines", "line one\nline two", "line one line two"},
		{"html", "<script>", "&lt;script&gt;"},
		{"long", strings.Repeat("é", 300), strings.Repeat("é", maxCell) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cell(tt.in); got != tt.want {
				t.Errorf("Cell(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTable(t *testing.T) {
	got := Table([]string{"peer", "error"}, [][]string{{"a", "x|y"}})
	want := "| peer | error |\n|---|---|\n| a | x\\|y |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSetOutputAppendsAndRefusesForgedLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "output")
	if err := SetOutput(p, "changed", "true"); err != nil {
		t.Fatal(err)
	}
	if err := SetOutput(p, "sha", "abc"); err != nil {
		t.Fatal(err)
	}
	if err := SetOutput(p, "sha", "abc\nchanged=false"); err == nil {
		t.Error("a value with a newline was accepted")
	}
	got, _ := os.ReadFile(p)
	if string(got) != "changed=true\nsha=abc\n" {
		t.Errorf("output file = %q", got)
	}
}

func TestAppendSummaryAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "summary.md")
	for _, s := range []string{"# one\n", "two\n"} {
		if err := AppendSummary(p, s); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	if string(got) != "# one\ntwo\n" {
		t.Errorf("summary = %q", got)
	}
	if err := AppendSummary(filepath.Join(p, "not-a-dir", "x"), "y"); err == nil {
		t.Error("append under a file: no error")
	}
}

func TestRunning(t *testing.T) {
	env := map[string]string{EnvActions: "true"}
	if !Running(func(k string) string { return env[k] }) {
		t.Error("GITHUB_ACTIONS=true not seen as a run")
	}
	if Running(func(string) string { return "" }) {
		t.Error("empty environment seen as a run")
	}
}

// FuzzAnnotationRoundTrips checks that any file, title and message come
// back unchanged from the line the way the runner reads it: properties end
// at the first "::" and are split at ",", and the message is the rest.
func FuzzAnnotationRoundTrips(f *testing.F) {
	f.Add("traces/a,b.md", "hash mismatch: a", "https://x.example/t.md claims sha256:1, serves sha256:2\n::error::x")
	f.Add("", "100%25", "%0A")
	f.Fuzz(func(t *testing.T, file, title, msg string) {
		line := Annotation{Level: Error, File: file, Line: 7, Title: title, Message: msg}.String()
		if strings.ContainsAny(line, "\r\n") {
			t.Fatalf("annotation spans lines: %q", line)
		}
		rest, ok := strings.CutPrefix(line, "::error")
		if !ok {
			t.Fatalf("bad prefix: %q", line)
		}
		props, gotMsg, ok := strings.Cut(rest, "::")
		if !ok {
			t.Fatalf("no separator: %q", line)
		}
		got := map[string]string{}
		if props != "" {
			for _, p := range strings.Split(strings.TrimPrefix(props, " "), ",") {
				k, v, _ := strings.Cut(p, "=")
				got[k] = unescape(v)
			}
		}
		if got["title"] != title || got["file"] != file || unescape(gotMsg) != msg {
			t.Fatalf("round trip: file %q title %q msg %q from %q", got["file"], got["title"], unescape(gotMsg), line)
		}
		if file != "" && got["line"] != "7" {
			t.Fatalf("line %q, want 7, from %q", got["line"], line)
		}
	})
}

// unescape is the runner's decoding of workflow command values.
func unescape(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

package pullrequest

import (
	"strings"
	"testing"
)

func TestBodyListsEachTraceOnOneRow(t *testing.T) {
	tests := []struct {
		name string
		d    Draft
		want string
	}{
		{"linked title", Draft{Path: "v/a.md", TraceURL: "https://p.example/t.md", Title: "A", Agent: "p", Suggestion: "20/30 pass"},
			"| [A](https://p.example/t.md) | p | 20/30 pass | `v/a.md` |"},
		{"no title links the url", Draft{Path: "v/b.md", TraceURL: "https://p.example/b.md"},
			"| [https://p.example/b.md](https://p.example/b.md) |  |  | `v/b.md` |"},
		{"not a web url is not linked", Draft{Path: "v/c.md", TraceURL: "javascript:alert(1)", Title: "C"},
			"| C |  |  | `v/c.md` |"},
		{"brackets and parens cannot break the link", Draft{Path: "v/d.md", TraceURL: "https://p.example/a (1).md", Title: "x](evil)"},
			"| [x\\](evil)](https://p.example/a%20%281%29.md) |  |  | `v/d.md` |"},
		{"html and newlines from a peer", Draft{Path: "v/e.md", Title: "<b>\nhi", Agent: "a|b"},
			"| &lt;b&gt; hi | a\\|b |  | `v/e.md` |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if body := Body([]Draft{tt.d}, nil); !strings.Contains(body, tt.want+"\n") {
				t.Errorf("body lacks row\n%s\ngot:\n%s", tt.want, body)
			}
		})
	}
}

// FuzzBodyKeepsOneRowPerTrace checks that no title, agent or URL a peer
// chose can add or split a row of the table.
func FuzzBodyKeepsOneRowPerTrace(f *testing.F) {
	f.Add("Trace | x", "https://p.example/t.md", "peer\nname")
	f.Add("[a](b)", "http://x/(y)", "<img>")
	f.Add("t", "https://x/\n| z", "a")
	f.Fuzz(func(t *testing.T, title, url, agent string) {
		body := Body([]Draft{{Path: "v/a.md", Title: title, TraceURL: url, Agent: agent}}, nil)
		rows := 0
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| trace |") {
				rows++
				if !strings.HasSuffix(line, "| `v/a.md` |") {
					t.Fatalf("row broken: %q", line)
				}
			}
		}
		if rows != 1 {
			t.Fatalf("%d rows for one trace:\n%s", rows, body)
		}
	})
}

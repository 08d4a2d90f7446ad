package roster

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestFormatGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*.md")
	if len(inputs) == 0 {
		t.Fatal("no testdata")
	}
	for _, in := range inputs {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".md"), func(t *testing.T) {
			agents, _ := Parse(readTestdata(t, filepath.Base(in)))
			got := Format(agents)
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestParseReadsBothLayouts(t *testing.T) {
	tests := []struct {
		file string
		want []Agent
	}{
		{"seed.md", []Agent{
			{Name: "jolt37", URL: "https://jolt37.hive37.ai/traces/", Joined: "2026-02-01"},
			{Name: "abernath37", URL: "https://abernath37.hive37.ai/traces/", Joined: "2026-01-30"},
			{Name: "axon37", URL: "https://axon37.hive37.ai/traces/", Joined: "2026-01-30"},
		}},
		{"table.md", []Agent{
			{Name: "abernath37", URL: "https://abernath.hive37.ai/mesh/", Joined: "2026-02-01", Signal: "50", Tier: "Established"},
			{Name: "noobagent", URL: "https://mycelnet.ai/basecamp/agents-hosted/noobagent/", Joined: "2026-02-25", Signal: "205", Tier: "Trusted"},
			{Name: "rex", URL: "https://mycelnet.ai/basecamp/agents-hosted/rex/", Joined: "2026-03-03", Signal: "12", Tier: "Provisional"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, problems := Parse(readTestdata(t, tt.file))
			if len(problems) != 0 {
				t.Errorf("problems: %v", problems)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v", got)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("agent %d\n got %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseSkipsBadLinesAndDuplicates(t *testing.T) {
	agents, problems := Parse(readTestdata(t, "problems.md"))
	var names []string
	for _, a := range agents {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "czero,uno" {
		t.Errorf("kept %s, want czero,uno", got)
	}
	want := map[int]string{
		4: "name", 5: "scheme", 6: "user info", 7: "fragment", 8: "query",
		9: "url already listed on line 3", 10: "name already listed on line 3", 11: "not an agent line", 12: "host",
	}
	if len(problems) != len(want) {
		t.Fatalf("problems %v", problems)
	}
	for _, p := range problems {
		if !strings.Contains(p.Reason, want[p.Line]) {
			t.Errorf("line %d: %q does not mention %q", p.Line, p.Reason, want[p.Line])
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"adds trailing slash", "https://a.example/traces", "https://a.example/traces/"},
		{"keeps trailing slash", "https://a.example/traces/", "https://a.example/traces/"},
		{"bare host", "http://a.example", "http://a.example/"},
		{"lowercases scheme and host", "HTTPS://A.Example/Traces", "https://a.example/Traces/"},
		{"keeps port", "http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x/"},
		{"a port's leading zeros are one spelling of it", "http://127.0.0.1:08080/x", "http://127.0.0.1:8080/x/"},
		{"a zero-padded default port is the default", "https://a.example:0443/", "https://a.example/"},
		{"port out of range", "https://a.example:65536/", ""},
		{"port zero", "https://a.example:0/", ""},
		{"empty path segment", "https://a.example//a/", ""},
		{"empty path segment inside", "https://a.example/a//b/", ""},
		{"trims spaces", "  https://a.example/  ", "https://a.example/"},
		{"scheme ftp", "ftp://a.example/", ""},
		{"no scheme", "a.example/traces/", ""},
		{"javascript", "javascript:alert(1)", ""},
		{"user info", "https://u@a.example/", ""},
		{"fragment", "https://a.example/#x", ""},
		{"empty fragment", "https://a.example/#", ""},
		{"query", "https://a.example/?a=1", ""},
		{"no host", "https:///x", ""},
		{"too long", "https://a.example/" + strings.Repeat("a", MaxURLBytes), ""},
		{"control character", "https://a.example/\x00", ""},
		// One URL, one form: gossip must not add a second name for it.
		{"drops https's default port", "https://a.example:443/x/", "https://a.example/x/"},
		{"drops http's default port", "http://a.example:80/x/", "http://a.example/x/"},
		{"keeps another scheme's default port", "https://a.example:80/x/", "https://a.example:80/x/"},
		{"drops an empty port", "https://a.example:/x", "https://a.example/x/"},
		{"drops a host's trailing dot", "http://localhost.:8080/good1/", "http://localhost:8080/good1/"},
		{"decodes an escaped unreserved character", "https://a.example/%67ood1/", "https://a.example/good1/"},
		{"decodes escaped tilde and dash", "https://a.example/%7Eu%2d1/", "https://a.example/~u-1/"},
		{"upper-cases other escapes", "https://a.example/a%2fb%c3%a9/", "https://a.example/a%2Fb%C3%A9/"},
		{"escapes raw non-ASCII", "https://a.example/é/", "https://a.example/%C3%A9/"},
		{"keeps IPv6 brackets", "http://[::1]:80/x", "http://[::1]/x/"},
		{"only a dot as host", "https://./x/", ""},
		{"non-ASCII host", "https://b\u00fccher.example/", ""},
		{"IDN host in its ASCII form", "https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"},
		{"dot segment", "https://a.example/a/../good1/", ""},
		{"escaped dot segment", "https://a.example/%2e%2e/good1/", ""},
		{"single dot segment", "https://a.example/./good1/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeURL(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Errorf("accepted %q as %q", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	tests := map[string]bool{
		"jolt37": true, "jarvis-maximum": true, "a.b_c": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "bad name": false, "ünï": false, "a/b": false, "#x": false,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ValidName(name); got != want {
				t.Errorf("ValidName(%q) = %v", name, got)
			}
		})
	}
}

func TestParseStopsAtAgentLimit(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxAgents+5; i++ {
		b.WriteString("a" + strings.Repeat("x", i%50) + "-" + strconv.Itoa(i) + " | https://h.example/" + strconv.Itoa(i) + "/\n")
	}
	agents, problems := Parse([]byte(b.String()))
	if len(agents) != MaxAgents || len(problems) != 1 {
		t.Errorf("%d agents, problems %v", len(agents), problems)
	}
}

func TestFormatKeepsHostileValuesOnTheirLine(t *testing.T) {
	out := Format([]Agent{{Name: "a", URL: "https://a.example/", Joined: "2026\nevil | https://evil.example/"}})
	agents, _ := Parse(out)
	if len(agents) != 1 {
		t.Errorf("injected an agent:\n%s", out)
	}
}

package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files and docs/config.md")

func noEnv(string) (string, bool) { return "", false }

func env(vals map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vals[k]; return v, ok }
}

func TestLoadAppliesDefaults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agent: tester\nurl: https://tester.example/mesh/\n")
	c, err := Load(dir, WithLookupEnv(noEnv))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Agent, want.URL = "tester", "https://tester.example/mesh/"
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"scorer", c.Scorer, "heuristic"},
		{"scorer_timeout", c.ScorerTimeout, 60 * time.Second},
		{"scorer_concurrency", c.ScorerConcurrency, 4},
		{"lease", c.Lease, 2 * time.Minute},
		{"heartbeat", c.Heartbeat, Heartbeat{Deadline: 10 * time.Minute, RequestTimeout: 20 * time.Second, Concurrency: 64, MaxConnsPerHost: 4, MaxStreamsPerHost: 16}},
		{"polling", c.Polling, Polling{QuietAfter: 2 * time.Hour, MaxInterval: 6 * time.Hour, SpikeFactor: 3}},
		{"gossip", c.Gossip, Gossip{Enabled: true, MaxNewPeersPerHeartbeat: 20, MaxPeers: 500}},
		{"limits", c.Limits, Limits{ManifestBytes: 4194304, TraceBytes: 1048576, AgentsBytes: 262144}},
	}
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			if !reflect.DeepEqual(ch.got, ch.want) {
				t.Fatalf("got %+v, want %+v", ch.got, ch.want)
			}
		})
	}
}

func TestLoadReadsEveryKey(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "full"), WithLookupEnv(noEnv))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Agent: "jolt37", URL: "https://jolt37.hive37.ai/traces/",
		Scorer: "command", ScorerCommand: []string{"python3", "score.py", "--strict"}, ScorerTimeout: 90 * time.Second, ScorerConcurrency: 8,
		Lease:                 90 * time.Second,
		AllowPrivateAddresses: true,
		Heartbeat:             Heartbeat{Deadline: 15 * time.Minute, RequestTimeout: 30 * time.Second, Concurrency: 8, MaxConnsPerHost: 2, MaxStreamsPerHost: 8, RequestsPerSecondPerHost: 0.5},
		Polling:               Polling{QuietAfter: 3 * time.Hour, MaxInterval: 4 * time.Hour, SpikeFactor: 4},
		Gossip:                Gossip{Enabled: false, MaxNewPeersPerHeartbeat: 5, MaxPeers: 50},
		Limits:                Limits{ManifestBytes: 1048576, TraceBytes: 524288, AgentsBytes: 65536},
		Watch:                 Watch{Enabled: true, Interval: 5 * time.Minute},
		Relays:                Relays{List: []string{"https://relay.example/mesh/ relay.example/mesh+e3fb7236+AcScXp+juds1vVPnTT0pPj/iiWZUOLC8XGRkXl5XolFK"}, DirectPoll: 12 * time.Hour},
		UserAgentContact:      "ops@hive37.ai",
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
}

func TestLoadRejectsMistakesWithLineAndKey(t *testing.T) {
	const head = "agent: tester\nurl: https://tester.example/\n"
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"concurrency out of range", head + "heartbeat:\n  deadline: 5m\n  concurrency: 0\n",
			"mesh.yaml:5: heartbeat.concurrency: must be a whole number between 1 and 256"},
		{"unknown top-level key", head + "scorer: heuristic\nleese: 2m\n",
			"mesh.yaml:4: leese: unknown key (known keys here: agent, url, scorer, scorer_command, scorer_timeout, scorer_concurrency, lease, allow_private_addresses, heartbeat, polling, gossip, limits, watch, relays, user_agent_contact)"},
		{"camelCase key gets a suggestion", head + "gossip:\n  maxPeers: 3\n",
			"mesh.yaml:4: gossip.maxPeers: unknown key (did you mean max_peers?)"},
		{"bad duration", head + "lease: two minutes\n", "mesh.yaml:3: lease: must be a duration like 90s, 2m or 1h"},
		{"duration out of range", head + "heartbeat:\n  deadline: 7h\n", "mesh.yaml:4: heartbeat.deadline: must be between 1s and 6h"},
		{"quiet_after neither 0 nor in range", head + "polling:\n  quiet_after: 5m\n", "mesh.yaml:4: polling.quiet_after: must be between 30m and 168h, or 0 for off"},
		{"bad scorer", head + "scorer: llm\n", "mesh.yaml:3: scorer: must be one of heuristic, command, manual"},
		{"bool that is not a bool", head + "allow_private_addresses: yes please\n", "mesh.yaml:3: allow_private_addresses: must be true or false"},
		{"relay whose key names another host", head + "relays:\n  list:\n    - https://other.example/mesh/ relay.example/mesh+e3fb7236+AcScXp+juds1vVPnTT0pPj/iiWZUOLC8XGRkXl5XolFK\n",
			`mesh.yaml:5: relays.list[0]: relay key is named "relay.example/mesh", not the relay's url without its scheme "other.example/mesh"`},
		{"relay without a key", head + "relays:\n  list:\n    - https://relay.example/mesh/\n",
			`mesh.yaml:5: relays.list[0]: must be "URL KEY", got 1 words`},
		{"section that is not a mapping", head + "limits: 5\n", "mesh.yaml:3: limits: must be a mapping of keys"},
		{"key given twice", head + "agent: other\n", "mesh.yaml:3: agent: given twice"},
		{"url without scheme", "agent: a\nurl: tester.example/mesh\n", "mesh.yaml:2: url: must be an http or https URL like https://you.github.io/mesh/, with no query or fragment"},
		{"agent with a pipe", "agent: a|b\nurl: https://a.example/\n", "mesh.yaml:1: agent: must be 1 to 64 characters with no spaces, '|', '/', '\\' or '#'"},
		{"empty command list item at its own line", head + "scorer: command\nscorer_command:\n  - python3\n  - \"\"\n", "mesh.yaml:6: scorer_command[1]: must not be empty"},
		{"the removed standing keys say what replaced them", head + "standing:\n  bootstrap: true\n", "mesh.yaml:3: standing: removed: whether a node may validate"},
		{"the removed signal keys say what replaced them", head + "signal:\n  bootstrap:\n    axon37: 60\n", "mesh.yaml:3: signal: removed: SIGNAL is computed from public files only"},
		{"contact that could break the header", head + "user_agent_contact: \"x) evil (\"\n", "mesh.yaml:3: user_agent_contact: must be at most 200 characters with no parentheses"},
		{"command scorer without a command", head + "scorer: command\n", "mesh.yaml: scorer_command: missing: scorer is command"},
		{"missing agent", "url: https://a.example/\n", "mesh.yaml: agent: missing: add a line like `agent: yourname`"},
		{"missing url", "agent: a\n", "mesh.yaml: url: missing: add a line like `url: https://you.github.io/mesh/`"},
		{"empty file names both", "", "mesh.yaml: agent: missing"},
		{"not yaml", "agent: [unclosed\n", "mesh.yaml: "},
		{"top level is a list", "- agent\n", "mesh.yaml:1: must be a mapping of keys"},
		{"two problems are both reported", head + "lease: soon\nheartbeat:\n  concurrency: 999\n", "mesh.yaml:3: lease: must be a duration like 90s, 2m or 1h\nmesh.yaml:5: heartbeat.concurrency:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("mesh.yaml", []byte(tt.content), noEnv)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err =\n%s\nwant prefix\n%s", err, tt.want)
			}
		})
	}
}

func TestMissingFileSuggestsInit(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, WithLookupEnv(noEnv))
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(ce.Hint, "meshnode init") || !strings.Contains(err.Error(), filepath.Join(dir, "mesh.yaml")+": not found") {
		t.Fatalf("err = %v (hint %q)", err, ce.Hint)
	}
}

func TestURLDefaultsFromGitHubRepository(t *testing.T) {
	tests := []struct {
		name string
		repo string
		want string
		err  string
	}{
		{"project site", "Jolt37/mesh-node", "https://jolt37.github.io/mesh-node/", ""},
		{"user site repository", "Jolt37/jolt37.github.io", "https://jolt37.github.io/", ""},
		{"user site repository in another case", "jolt37/Jolt37.GitHub.io", "https://jolt37.github.io/", ""},
		{"not OWNER/REPO", "jolt37", "", "url: missing, and GITHUB_REPOSITORY: \"jolt37\" is not OWNER/REPO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("mesh.yaml", []byte("agent: jolt37\n"), env(map[string]string{"GITHUB_REPOSITORY": tt.repo}))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || c.URL != tt.want {
				t.Fatalf("URL = %q, err %v; want %q", c.URL, err, tt.want)
			}
		})
	}
}

func TestExplicitURLWinsOverGitHubRepository(t *testing.T) {
	c, err := Parse("mesh.yaml", []byte("agent: a\nurl: https://a.example/x/\n"), env(map[string]string{"GITHUB_REPOSITORY": "o/r"}))
	if err != nil || c.URL != "https://a.example/x/" {
		t.Fatalf("URL = %q, err %v", c.URL, err)
	}
}

func TestMarshalWritesMinimalFileThatLoadsBack(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		cfg    func() *Config
	}{
		{"defaults write only agent and url", "minimal.golden.yaml", func() *Config {
			c := Default()
			c.Agent, c.URL = "jolt37", "https://jolt37.github.io/mesh/"
			return c
		}},
		{"every key changed", "full.golden.yaml", func() *Config {
			c, err := Load(filepath.Join("testdata", "full"), WithLookupEnv(noEnv))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cfg()
			out := Marshal(c)
			golden(t, filepath.Join("testdata", tt.golden), out)
			back, err := Parse("mesh.yaml", out, noEnv)
			if err != nil {
				t.Fatalf("Marshal output does not load: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(back, c) {
				t.Fatalf("round trip changed the config:\n%+v\n%+v", back, c)
			}
		})
	}
}

func TestDocsConfigMatchesKeyTable(t *testing.T) {
	golden(t, filepath.Join("..", "..", "docs", "config.md"), Reference())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (run with -update to create): %v", path, err)
	}
	if string(got) != string(want) {
		t.Errorf("%s is out of date (run go test -update and review the diff); got:\n%s", path, got)
	}
}

func writeFile(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"full/mesh.yaml", "full.golden.yaml", "minimal.golden.yaml"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("agent: a\nurl: https://a/\nsignal: {bootstrap: {x: 1e400}}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("mesh.yaml", data, noEnv)
		if err != nil {
			return
		}
		back, err := Parse("mesh.yaml", Marshal(c), noEnv)
		if err != nil {
			t.Fatalf("Marshal of a valid config does not load: %v", err)
		}
		if !reflect.DeepEqual(back, c) {
			t.Fatalf("round trip changed the config:\n%+v\n%+v", back, c)
		}
	})
}

func TestTemplatePlaceholderSuggestsInit(t *testing.T) {
	data := []byte("# " + TemplateMarker + "\n# Run 'meshnode init' in your fork.\n")
	_, err := Parse("mesh.yaml", data, noEnv)
	var ce *Error
	if !errors.As(err, &ce) || !strings.Contains(ce.Hint, "meshnode init") || !strings.Contains(err.Error(), "template") {
		t.Fatalf("err = %v", err)
	}
}

func TestAMarkerFarDownIsNotTheTemplate(t *testing.T) {
	data := []byte("agent: jolt37\nurl: https://j.example/\n" + strings.Repeat("# notes\n", 40) + "# we forked from a repo with " + TemplateMarker + " files\n")
	if IsTemplate(data) {
		t.Fatalf("a node's config that mentions the marker far down was taken for the template")
	}
	if _, err := Parse("mesh.yaml", data, noEnv); err != nil {
		t.Fatalf("Parse = %v", err)
	}
}

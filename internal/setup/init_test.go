package setup

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var initNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// noEnv is a Getenv for a machine without GITHUB_REPOSITORY.
func noEnv(string) string { return "" }

func envWith(repo string) func(string) string {
	return func(k string) string {
		if k == "GITHUB_REPOSITORY" {
			return repo
		}
		return ""
	}
}

func remoteIs(remote string) func(string) (string, error) {
	return func(string) (string, error) { return remote, nil }
}

func noRemote(dir string) (string, error) { return "", errors.New("no origin") }

// goldenKey is a log key for jolt37.github.io/node made for the golden
// files alone: public in this test, it signs nothing real.
const goldenKey = "PRIVATE+KEY+jolt37.github.io/node+e4b32a3a+AR58Y0j3OCdyZlp8q9veXu21BDPXjYTVvLXfBn7klRRi"

func TestInitWritesTheNodeFilesFromFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fork")
	if err := os.WriteFile(dir+".log-key", []byte(goldenKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Init(Options{Dir: dir, Agent: "jolt37", URL: "https://jolt37.github.io/node", Now: initNow, Getenv: noEnv, GitRemote: noRemote})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mesh.yaml", "IDENTITY.md", "MANIFEST.md", "AGENTS.md"}; !reflect.DeepEqual(res.Written, want) {
		t.Errorf("Written = %v, want %v", res.Written, want)
	}
	if res.URL != "https://jolt37.github.io/node/" {
		t.Errorf("URL = %q, want the trailing slash added", res.URL)
	}
	for _, f := range res.Written {
		t.Run(f, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "init", f), got)
		})
	}
}

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestInitDerivesTheURL(t *testing.T) {
	tests := []struct {
		name      string
		getenv    func(string) string
		remote    func(string) (string, error)
		flagURL   string
		wantURL   string
		wantAgent string // suggested when prompting with empty answers
	}{
		{"GITHUB_REPOSITORY project site", envWith("Jolt37/trace-node"), noRemote, "", "https://jolt37.github.io/trace-node/", "trace-node"},
		{"GITHUB_REPOSITORY user site", envWith("jolt37/jolt37.github.io"), noRemote, "", "https://jolt37.github.io/", "jolt37"},
		{"GITHUB_REPOSITORY wins over the remote", envWith("a/b"), remoteIs("git@github.com:c/d.git"), "", "https://a.github.io/b/", "b"},
		{"https origin remote", noEnv, remoteIs("https://github.com/Ada/ada-node.git"), "", "https://ada.github.io/ada-node/", "ada-node"},
		{"ssh origin remote", noEnv, remoteIs("git@github.com:ada/meshnode.git"), "", "https://ada.github.io/meshnode/", "ada"},
		{"non-GitHub remote falls through to the flag", noEnv, remoteIs("https://gitlab.com/a/b.git"), "https://example.org/mesh/", "https://example.org/mesh/", ""},
		{"--url wins over everything", envWith("a/b"), remoteIs("git@github.com:c/d.git"), "https://node.example/", "https://node.example/", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			prompt := func(q, def string) (string, error) {
				asked = append(asked, q+"="+def)
				if def == "" && strings.HasPrefix(q, "Agent") {
					return "fallback", nil
				}
				return "", nil
			}
			res, err := Init(Options{Dir: t.TempDir(), URL: tt.flagURL, Now: initNow, Prompt: prompt, Getenv: tt.getenv, GitRemote: tt.remote})
			if err != nil {
				t.Fatal(err)
			}
			if res.URL != tt.wantURL {
				t.Errorf("URL = %q, want %q (asked %q)", res.URL, tt.wantURL, asked)
			}
			wantAgent := tt.wantAgent
			if wantAgent == "" {
				wantAgent = "fallback"
			}
			if res.Agent != wantAgent {
				t.Errorf("Agent = %q, want %q (asked %q)", res.Agent, wantAgent, asked)
			}
		})
	}
}

func TestInitWithoutTerminalNeverPromptsAndNamesTheMissingFlag(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		wantFlag string
	}{
		{"no agent", Options{URL: "https://a.example/"}, "--agent"},
		{"no url and nothing to derive it from", Options{Agent: "ada"}, "--url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Dir, o.Now, o.Getenv, o.GitRemote = t.TempDir(), initNow, noEnv, noRemote
			_, err := Init(o)
			var me *MissingError
			if !errors.As(err, &me) || me.Flag != tt.wantFlag {
				t.Fatalf("Init = %v, want a MissingError for %s", err, tt.wantFlag)
			}
			if !strings.Contains(err.Error(), tt.wantFlag) {
				t.Errorf("error %q does not name %s", err, tt.wantFlag)
			}
			if entries, _ := os.ReadDir(o.Dir); len(entries) != 0 {
				t.Errorf("Init wrote %d file(s) before failing", len(entries))
			}
		})
	}
}

func TestInitRefusesToOverwriteWithoutForce(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "AGENTS.md"), "ada | https://ada.example/ | 2026-01-01\n")
	mustWrite(t, filepath.Join(dir, "mesh.yaml"), "agent: old\n")
	o := Options{Dir: dir, Agent: "jolt37", URL: "https://j.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote}

	_, err := Init(o)
	var ee *ExistsError
	if !errors.As(err, &ee) || !reflect.DeepEqual(ee.Files, []string{"mesh.yaml", "AGENTS.md"}) {
		t.Fatalf("Init = %v, want an ExistsError naming mesh.yaml and AGENTS.md", err)
	}
	if got := mustRead(t, filepath.Join(dir, "AGENTS.md")); !strings.Contains(got, "ada |") {
		t.Errorf("AGENTS.md was changed without --force: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "IDENTITY.md")); err == nil {
		t.Errorf("IDENTITY.md was written although Init refused")
	}

	o.Force = true
	if _, err := Init(o); err != nil {
		t.Fatalf("Init with Force = %v", err)
	}
	if got := mustRead(t, filepath.Join(dir, "mesh.yaml")); !strings.Contains(got, "agent: jolt37") {
		t.Errorf("mesh.yaml not overwritten with Force: %q", got)
	}
}

func TestInitRejectsBadValues(t *testing.T) {
	tests := []struct {
		name, agent, url, want string
	}{
		{"agent with a space", "jarvis maximum", "https://j.example/", "--agent"},
		{"url without scheme", "ada", "ada.github.io/node", "--url"},
		{"url with a query", "ada", "https://ada.example/?x=1", "--url"},
		{"ftp url", "ada", "ftp://ada.example/", "--url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Init(Options{Dir: t.TempDir(), Agent: tt.agent, URL: tt.url, Now: initNow, Getenv: noEnv, GitRemote: noRemote})
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Flag != tt.want || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Init = %v, want a ValueError for %s", err, tt.want)
			}
		})
	}
}

func TestInitFillsIdentityFromPrompts(t *testing.T) {
	dir := t.TempDir()
	answers := map[string]string{"Agent name": "ada", "Model": "Claude", "Human": "Ada L.", "Role": "cartographer"}
	prompt := func(q, def string) (string, error) {
		for k, v := range answers {
			if strings.HasPrefix(q, k) {
				return v, nil
			}
		}
		return "", nil
	}
	if _, err := Init(Options{Dir: dir, URL: "https://ada.example/", Now: initNow, Prompt: prompt, Getenv: noEnv, GitRemote: noRemote}); err != nil {
		t.Fatal(err)
	}
	want := "# IDENTITY\n\nname: ada\njoined: 2026-03-01\nmodel: Claude\nhuman: Ada L.\nrole: cartographer\nlog_key: " + logKeyOf(t, dir) + "\n"
	if got := mustRead(t, filepath.Join(dir, "IDENTITY.md")); got != want {
		t.Errorf("IDENTITY.md = %q, want %q", got, want)
	}
}

func TestInitAllowsPrivateAddressesOnlyForALocalURL(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:8080/", true},
		{"http://localhost:1313/node/", true},
		{"http://10.0.0.7/", true},
		{"https://ada.github.io/node/", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Init(Options{Dir: dir, Agent: "ada", URL: tt.url, Now: initNow, Getenv: noEnv, GitRemote: noRemote}); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.AllowPrivateAddresses != tt.want || cfg.Agent != "ada" || cfg.URL != tt.url {
				t.Errorf("config = %+v, want allow_private_addresses %v", cfg, tt.want)
			}
		})
	}
}

func TestInitQuotesAnAgentNameYAMLWouldMisread(t *testing.T) {
	for _, name := range []string{"true", "1e3", "null", "0x10"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Init(Options{Dir: dir, Agent: name, URL: "https://a.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote}); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(dir)
			if err != nil || cfg.Agent != name {
				t.Errorf("mesh.yaml reads back agent %+v, %v; want %q", cfg, err, name)
			}
		})
	}
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The template repository ships placeholders for the node files; a fresh
// fork must init without --force, and the placeholders must be recognised.
func TestInitReplacesTheTemplatesPlaceholdersWithoutForce(t *testing.T) {
	root := filepath.Join("..", "..")
	dir := t.TempDir()
	for _, f := range initFiles {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if !config.IsTemplate(data) {
			t.Skipf("%s is not the template's placeholder: this repository is an initialised node", f)
		}
		mustWrite(t, filepath.Join(dir, f), string(data))
	}
	if _, err := config.Load(dir); err == nil || !strings.Contains(err.Error(), "template") {
		t.Fatalf("config.Load of the template = %v, want an error saying it is the template's", err)
	}
	o := Options{Dir: dir, Agent: "jolt37", URL: "https://j.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote}
	if _, err := Init(o); err != nil {
		t.Fatalf("Init over the template's placeholders = %v", err)
	}
	for _, f := range initFiles {
		if got := mustRead(t, filepath.Join(dir, f)); config.IsTemplate([]byte(got)) {
			t.Errorf("%s still holds the template marker after init:\n%s", f, got)
		}
	}
	if _, err := config.Load(dir); err != nil {
		t.Fatalf("config after init: %v", err)
	}
}

// TestInitRefusesBeforeAskingAnything: over existing node files, Init
// refuses before the first question, so nobody answers them in vain.
func TestInitRefusesBeforeAskingAnything(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "MANIFEST.md"), "# MANIFEST\n")
	var asked []string
	prompt := func(q, def string) (string, error) {
		asked = append(asked, q)
		return "x", nil
	}
	_, err := Init(Options{Dir: dir, Now: initNow, Prompt: prompt, Getenv: envWith("ada/node"), GitRemote: noRemote})
	var ee *ExistsError
	if !errors.As(err, &ee) || !reflect.DeepEqual(ee.Files, []string{"MANIFEST.md"}) {
		t.Fatalf("Init = %v, want an ExistsError naming MANIFEST.md", err)
	}
	if len(asked) > 0 {
		t.Errorf("Init asked %q before refusing", asked)
	}
}

func TestInitNamesTheIdentityFieldsLeftBlank(t *testing.T) {
	tests := []struct {
		name    string
		answers map[string]string // by question prefix; nil: no terminal
		want    []string
	}{
		{"no terminal", nil, []string{"model", "human", "role"}},
		{"every question answered", map[string]string{"Model": "Claude", "Human": "Ada", "Role": "maps"}, nil},
		{"role left blank", map[string]string{"Model": "Claude", "Human": "Ada", "Role": "  "}, []string{"role"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Dir: t.TempDir(), Agent: "ada", URL: "https://ada.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote}
			if tt.answers != nil {
				o.Prompt = func(q, def string) (string, error) {
					for k, v := range tt.answers {
						if strings.HasPrefix(q, k) {
							return v, nil
						}
					}
					return "", nil
				}
			}
			res, err := Init(o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.IdentityBlank, tt.want) {
				t.Errorf("IdentityBlank = %q, want %q", res.IdentityBlank, tt.want)
			}
		})
	}
}

// An answer that cannot be used is asked again with the reason; one
// refused maxAsks times is a *ValueError naming the flag, as the value
// given as a flag would be, and nothing is written.
func TestInitAsksAgainAfterABadAnswerAndGivesUpAfterMaxAsks(t *testing.T) {
	var asked []string
	prompt := func(q, def string) (string, error) {
		asked = append(asked, q)
		if strings.HasSuffix(q, "Agent name") {
			return "ada", nil
		}
		return "ftp://ada.example/", nil
	}
	dir := t.TempDir()
	_, err := Init(Options{Dir: dir, Now: initNow, Prompt: prompt, Getenv: noEnv, GitRemote: noRemote})
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Flag != "--url" || !strings.Contains(err.Error(), "scheme must be http or https") {
		t.Fatalf("err = %v, want a --url ValueError", err)
	}
	if len(asked) != 1+maxAsks || !strings.HasPrefix(asked[2], `url "ftp://ada.example/": scheme must be http or https: try again`+"\n") {
		t.Errorf("asked %q, want the agent once and the URL %d times, again with the reason", asked, maxAsks)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("init wrote %d file(s) after giving up", len(entries))
	}
}

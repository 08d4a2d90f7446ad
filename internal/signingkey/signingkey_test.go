package signingkey

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/translog"
)

func TestPathPrefersTheFlagThenTheEnvironmentThenTheFileBesideTheNode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	t.Setenv(EnvFile, "")
	if p, _ := Path("", dir); p != "" {
		t.Errorf("no key anywhere: %q, want none", p)
	}
	if err := os.WriteFile(dir+".log-key", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, _ := Path("", dir); p != dir+".log-key" {
		t.Errorf("default: %q", p)
	}
	t.Setenv(EnvFile, "/env/key")
	if p, _ := Path("", dir); p != "/env/key" {
		t.Errorf("environment: %q", p)
	}
	if p, _ := Path("/flag/key", dir); p != "/flag/key" {
		t.Errorf("flag: %q", p)
	}
}

func TestLoadRefusesWhatIsNoKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	skey, _, err := translog.GenerateKey("ada.example")
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "key")
	if err := Write(good, dir, skey); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(good, dir); err != nil || got != skey {
		t.Fatalf("Load = %q, %v", got, err)
	}
	if err := Write(good, dir, skey); err == nil {
		t.Error("Write replaced a key")
	}
	cases := map[string]string{
		"a verifier key":  "ada.example+12345678+AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=",
		"garbage":         "hello",
		"a huge file":     strings.Repeat("x", maxKeyBytes+1),
		"a truncated key": skey[:len(skey)-4],
	}
	for name, text := range cases {
		p := filepath.Join(t.TempDir(), "key")
		os.WriteFile(p, []byte(text), 0o600)
		if _, err := Load(p, dir); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(dir, "key")
	os.WriteFile(inside, []byte(skey), 0o600)
	if _, err := Load(inside, dir); !errors.Is(err, ErrInsideNode) {
		t.Errorf("a key inside the node: %v", err)
	}
}

// TestFindTakesTheKeyItselfFromTheEnvironment: a GitHub secret hands the
// key itself in $MESHNODE_LOG_KEY; a file named by the flag or
// $MESHNODE_LOG_KEY_FILE comes first, and a bad key's error never repeats
// it.
func TestFindTakesTheKeyItselfFromTheEnvironment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	envKey, _, err := translog.GenerateKey("ada.example")
	if err != nil {
		t.Fatal(err)
	}
	fileKey, _, err := translog.GenerateKey("ada.example")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "key")
	if err := Write(file, dir, fileKey); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvFile, "")
	t.Setenv(EnvKey, "")
	if got, err := Find("", dir); got != "" || err != nil {
		t.Errorf("no key anywhere: %q, %v", got, err)
	}
	t.Setenv(EnvKey, "\n"+envKey+"\n")
	if got, err := Find("", dir); got != envKey || err != nil {
		t.Errorf("the key in $%s: %q, %v", EnvKey, got, err)
	}
	if got, err := Find(file, dir); got != fileKey || err != nil {
		t.Errorf("the flag's file before $%s: %q, %v", EnvKey, got, err)
	}
	t.Setenv(EnvFile, file)
	if got, err := Find("", dir); got != fileKey || err != nil {
		t.Errorf("$%s before $%s: %q, %v", EnvFile, EnvKey, got, err)
	}
	t.Setenv(EnvFile, "")
	t.Setenv(EnvKey, "PRIVATE+KEY+secret-looking-text")
	_, err = Find("", dir)
	if err == nil || strings.Contains(err.Error(), "secret-looking") {
		t.Errorf("a bad key in $%s: %v", EnvKey, err)
	}
}

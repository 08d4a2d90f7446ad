package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/signingkey"
	"github.com/meshnode/meshnode/internal/translog"
)

// logKeyOf is the verifier key of the signing key beside dir.
func logKeyOf(t *testing.T, dir string) string {
	t.Helper()
	skey, err := signingkey.Load(dir+".log-key", dir)
	if err != nil {
		t.Fatal(err)
	}
	vkey, err := translog.VerifierKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return vkey
}

func TestInitWritesTheLogKeyOutsideTheNodeAndPublishesItsPublicHalf(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	res, err := Init(Options{Dir: dir, Agent: "ada", URL: "https://ada.example/mesh/", Now: initNow, Getenv: noEnv, GitRemote: noRemote})
	if err != nil {
		t.Fatal(err)
	}
	if res.LogKeyFile != dir+".log-key" || !res.LogKeyNew {
		t.Errorf("key file %q (new %v), want %s.log-key", res.LogKeyFile, res.LogKeyNew, dir)
	}
	fi, err := os.Stat(res.LogKeyFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v; want mode 0600", fi, err)
	}
	vkey := logKeyOf(t, dir)
	if !strings.HasPrefix(vkey, "ada.example/mesh+") {
		t.Errorf("key named after %q, want the node's origin", vkey)
	}
	identity := []byte(mustRead(t, filepath.Join(dir, IdentityFile)))
	if keys := translog.Keys(identity); len(keys) != 1 || keys[0] != vkey {
		t.Errorf("IDENTITY.md publishes %v, want [%s]", keys, vkey)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "PRIVATE+KEY") {
			t.Errorf("%s holds the private key", p)
		}
		return nil
	})
}

func TestInitKeepsTheNodesKeyWhenRunAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	o := Options{Dir: dir, Agent: "ada", URL: "https://ada.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote}
	if _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	first := logKeyOf(t, dir)
	o.Force = true
	res, err := Init(o)
	if err != nil {
		t.Fatal(err)
	}
	if res.LogKeyNew || logKeyOf(t, dir) != first {
		t.Error("a second init replaced the node's key")
	}
	if keys := translog.Keys([]byte(mustRead(t, filepath.Join(dir, IdentityFile)))); len(keys) != 1 || keys[0] != first {
		t.Errorf("IDENTITY.md publishes %v, want the kept key", keys)
	}
	fresh := o
	fresh.Dir, fresh.URL, fresh.Force, fresh.LogKeyFile = filepath.Join(t.TempDir(), "fresh"), "https://other.example/", false, dir+".log-key"
	var ke *KeyError
	if _, err := Init(fresh); !errors.As(err, &ke) || ke.Origin != "other.example" {
		t.Errorf("init with a key for another URL: %v", err)
	}
	o.URL = "https://other.example/"
	if res, err = Init(o); err != nil || !res.LogKeyNew {
		t.Fatalf("init --force for another URL: new %v, %v", res.LogKeyNew, err)
	}
	if kept, err := signingkey.Load(dir+".log-key.bak-1", dir); err != nil {
		t.Errorf("the old key was not kept: %v", err)
	} else if v, _ := translog.VerifierKey(kept); v != first {
		t.Errorf("the kept key is not the old one")
	}
	if !strings.HasPrefix(logKeyOf(t, dir), "other.example+") {
		t.Errorf("the new key is not named after the new URL")
	}
}

func TestInitRefusesAKeyFileInsideTheNode(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"node.key", "mesh-state/key", "./traces/../x.key"} {
		_, err := Init(Options{Dir: dir, Agent: "ada", URL: "https://ada.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote,
			LogKeyFile: filepath.Join(dir, name)})
		if !errors.Is(err, signingkey.ErrInsideNode) {
			t.Errorf("%s: err = %v, want ErrInsideNode", name, err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(Options{Dir: dir, Agent: "ada", URL: "https://ada.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote,
		LogKeyFile: filepath.Join(link, "k")}); !errors.Is(err, signingkey.ErrInsideNode) {
		t.Errorf("through a link into the node: err = %v, want ErrInsideNode", err)
	}
}

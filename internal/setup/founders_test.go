package setup

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

func TestInitFounderWritesFoundersNamingTheNode(t *testing.T) {
	dir := t.TempDir()
	res, err := Init(Options{Dir: dir, Agent: "ada", URL: "https://ada.example/", Founder: true, Now: initNow, Getenv: noEnv, GitRemote: noRemote})
	if err != nil {
		t.Fatal(err)
	}
	want := []signal.Founder{{Name: "ada", URL: "https://ada.example/"}}
	if !reflect.DeepEqual(res.Founders.Founders, want) || res.Written[len(res.Written)-1] != node.FoundersFile {
		t.Fatalf("result %+v, want FOUNDERS.md written naming ada", res)
	}
	d, err := signal.ReadFounders(dir)
	if err != nil || !reflect.DeepEqual(d.Founders, want) {
		t.Fatalf("FOUNDERS.md on disk: %+v, %v", d, err)
	}
}

func TestInitKeepsAFoundersFileCopiedFromTheMeshJoined(t *testing.T) {
	dir := t.TempDir()
	copied := "# FOUNDERS\nbob | https://bob.example/\n"
	mustWrite(t, filepath.Join(dir, node.FoundersFile), copied)
	res, err := Init(Options{Dir: dir, Agent: "ada", URL: "https://ada.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(dir, node.FoundersFile)); got != copied {
		t.Errorf("FOUNDERS.md changed: %q", got)
	}
	if len(res.Founders.Founders) != 1 || res.Founders.Founders[0].Name != "bob" || res.FoundersErr != nil {
		t.Errorf("result founders %+v, %v; want bob", res.Founders, res.FoundersErr)
	}

	t.Run("founding over another mesh's file needs --force", func(t *testing.T) {
		_, err := Init(Options{Dir: dir, Agent: "ada", URL: "https://ada.example/", Founder: true, Now: initNow, Getenv: noEnv, GitRemote: noRemote})
		var fe *FoundersError
		if !errors.As(err, &fe) || fe.Founders != "bob" {
			t.Fatalf("Init = %v, want a FoundersError naming bob", err)
		}
		if got := mustRead(t, filepath.Join(dir, node.FoundersFile)); got != copied {
			t.Errorf("FOUNDERS.md changed: %q", got)
		}
	})
	t.Run("with --force it is replaced, and the old one kept", func(t *testing.T) {
		res, err := Init(Options{Dir: dir, Founder: true, Force: true, Now: initNow, Getenv: noEnv, GitRemote: noRemote})
		if err != nil {
			t.Fatal(err)
		}
		want := []Kept{{File: node.FoundersFile, Copy: node.FoundersFile + ".bak-1"}}
		if !reflect.DeepEqual(res.Kept, want) || !reflect.DeepEqual(res.Written, []string{node.FoundersFile}) || !res.FoundedOnly {
			t.Fatalf("result %+v, want FOUNDERS.md alone written and its copy kept", res)
		}
		if got := mustRead(t, filepath.Join(dir, node.FoundersFile+".bak-1")); got != copied {
			t.Errorf("the copy holds %q, want the old file", got)
		}
	})
	t.Run("a copy that does not parse is reported, and the node is set up", func(t *testing.T) {
		dir := t.TempDir()
		mustWrite(t, filepath.Join(dir, node.FoundersFile), "bob https://bob.example/\n")
		res, err := Init(Options{Dir: dir, Agent: "ada", URL: "https://ada.example/", Now: initNow, Getenv: noEnv, GitRemote: noRemote})
		var fe *signal.FoundersError
		if err != nil || !errors.As(res.FoundersErr, &fe) || len(res.Written) != len(initFiles) {
			t.Fatalf("Init = %+v, %v; want the node written and a FoundersError", res, err)
		}
	})
}

package logpin

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// TestRenameMovesAPinToTheAgentsNewURL: the pin of an agent that moved
// goes to its new URL whole (key, checkpoint, trees, alarm and evidence),
// but for its URL and its mirrors, which leave out the new URL; saved,
// the new file is written before the old one goes, so a save stopped
// between keeps the pin under both URLs, never under none; loaded back,
// the pin is at the new URL alone. A URL with no pin moves nothing.
func TestRenameMovesAPinToTheAgentsNewURL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-pins.json")
	const from, to = "https://old.example/a/", "https://new.example/a/"
	ps, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pin := &Pin{URL: from, Key: "old.example/a+1234abcd+AAAA", Checkpoint: "old.example/a\n3\nAAAA=\n", LastSeq: 3,
		Accepted: []Tree{{Size: 3, Root: "AAAA="}}, Tiles: map[string]string{"tile/1/000.p/1": "BBBB"},
		Alarm:   &Alarm{Kind: AlarmFork, Detail: "two roots", At: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Checkpoints: []string{"a", "b"}},
		Mirrors: []string{"https://mirror.example/a/", to}}
	ps.Put(pin)
	if _, err := ps.Save(); err != nil {
		t.Fatal(err)
	}
	if ps, err = Load(path); err != nil {
		t.Fatal(err)
	}
	if ps.Rename("https://nobody.example/", to) || ps.Get(to) != nil {
		t.Fatal("a URL with no pin moved one")
	}
	if !ps.Rename(from, to) {
		t.Fatal("the pin did not move")
	}
	want := *pin
	want.URL, want.Mirrors = to, []string{"https://mirror.example/a/"}
	both := 0
	restore := statefile.SetWriteHook(func(string, int) {
		if mid, err := Load(path); err == nil && mid.Get(from) != nil && mid.Get(to) != nil {
			both++
		}
	})
	changed, err := ps.Save()
	restore()
	if err != nil || !changed {
		t.Fatalf("save: changed %v, %v", changed, err)
	}
	if both != 1 {
		t.Errorf("the new pin's file was written %d times while the old one was still there, want once, before it goes", both)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Get(to); !reflect.DeepEqual(got, &want) {
		t.Errorf("pin at the new URL:\n%+v\nwant\n%+v", got, &want)
	}
	if back.Get(from) != nil {
		t.Error("a pin is still at the old URL")
	}
}

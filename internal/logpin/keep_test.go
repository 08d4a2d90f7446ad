package logpin

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestKeepForgetsThePinsOfPeersNotKept: the pins of the URLs keep refuses
// are forgotten, their files removed at the next save, and the others
// left as they were; a Keep that refuses nothing saves nothing; a pin
// forgotten and pinned again before the save is written, not removed.
func TestKeepForgetsThePinsOfPeersNotKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-pins.json")
	urls := []string{"https://a.example/", "https://b.example/", "https://c.example/"}
	ps, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		ps.Put(&Pin{URL: u, Key: "k " + u, Accepted: []Tree{{Size: 1, Root: "AAA="}}})
	}
	if _, err := ps.Save(); err != nil {
		t.Fatal(err)
	}
	if ps, err = Load(path); err != nil {
		t.Fatal(err)
	}
	kept := ps.Get(urls[1])

	forgotten := ps.Keep(func(u string) bool { return u == urls[1] })
	if want := []string{urls[0], urls[2]}; !slices.Equal(forgotten, want) {
		t.Errorf("Keep forgot %q, want %q", forgotten, want)
	}
	ps.Put(&Pin{URL: urls[2], Key: "pinned again"})
	if changed, err := ps.Save(); err != nil || !changed {
		t.Fatalf("save: changed %v, %v", changed, err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Get(urls[0]); got != nil {
		t.Errorf("the forgotten pin loads back: %+v", got)
	}
	if got := back.Get(urls[1]); !reflect.DeepEqual(got, kept) {
		t.Errorf("the kept pin is %+v, want %+v", got, kept)
	}
	if got := back.Get(urls[2]); got == nil || got.Key != "pinned again" {
		t.Errorf("the pin stored after Keep forgot its URL is %+v", got)
	}

	if forgotten := back.Keep(func(string) bool { return true }); forgotten != nil {
		t.Errorf("a Keep that keeps every pin forgot %q", forgotten)
	}
	if changed, err := back.Save(); err != nil || changed {
		t.Errorf("a save after a Keep that forgot nothing: changed %v, %v", changed, err)
	}
}

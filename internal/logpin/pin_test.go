package logpin

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/statefile"
)

// TestSaveEncodesOnlyThePinsStored saves pins loaded from the files of
// 20 peers and of 200: with nothing stored, and with one peer's pin
// stored anew, the bigger set's save allocates no more than the
// smaller's, since only a pin stored since the load is encoded; what is
// saved loads back as stored.
func TestSaveEncodesOnlyThePinsStored(t *testing.T) {
	allocs := func(peers int) (none, one float64) {
		path := filepath.Join(t.TempDir(), "log-pins.json")
		ps, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range peers {
			ps.Put(&Pin{URL: fmt.Sprintf("https://p%03d.example/", i), Key: "k", Accepted: []Tree{{Size: 1, Root: "AAA="}},
				Tiles: map[string]string{"tile/0/000": "AAAA"}})
		}
		if _, err := ps.Save(); err != nil {
			t.Fatal(err)
		}
		if ps, err = Load(path); err != nil {
			t.Fatal(err)
		}
		none = testing.AllocsPerRun(5, func() {
			if changed, err := ps.Save(); err != nil || changed {
				t.Fatalf("save of nothing stored: changed %v, err %v", changed, err)
			}
		})
		url := fmt.Sprintf("https://p%03d.example/", peers/2)
		size := int64(1)
		one = testing.AllocsPerRun(5, func() {
			p := ps.Get(url)
			size++
			p.Accepted = []Tree{{Size: size, Root: "BBB="}}
			ps.Put(p)
			if changed, err := ps.Save(); err != nil || !changed {
				t.Fatalf("save of one pin stored anew: changed %v, err %v", changed, err)
			}
		})
		back, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Get(url).Size(); got != size {
			t.Fatalf("pin loaded back at size %d, stored at %d", got, size)
		}
		return none, one
	}
	smallNone, smallOne := allocs(20)
	bigNone, bigOne := allocs(200)
	if bigNone > smallNone+slack || bigOne > smallOne+slack {
		t.Errorf("a save allocated %v times with nothing stored and %v with one pin stored at 200 peers, against %v and %v at 20: it grows with the peers",
			bigNone, bigOne, smallNone, smallOne)
	}
}

// TestPinFileUnderAnotherNameIsMoved loads a pin from a file not named
// for its peer (a file name rule that changed): the next save writes it
// under its peer's name and removes the other, though the pin is the
// same.
func TestPinFileUnderAnotherNameIsMoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-pins.json")
	dir := statefile.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	url := "https://peer.example/"
	data := []byte(`{"url": "` + url + `", "key": "k", "mirror_since": "` + time.Time{}.Format(time.RFC3339) + `"}` + "\n")
	if err := os.WriteFile(filepath.Join(dir, "old-name.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := ps.Save(); err != nil || !changed {
		t.Fatalf("save: changed %v, err %v", changed, err)
	}
	entries, _ := os.ReadDir(dir)
	if want := filepath.Base(statefile.PeerPath(path, url)); len(entries) != 1 || entries[0].Name() != want {
		t.Fatalf("files after the save: %v, want only %s", entries, want)
	}
	back, err := Load(path)
	if err != nil || back.Get(url) == nil || back.Get(url).Key != "k" {
		t.Fatalf("loaded back %+v, %v", back, err)
	}
}

// TestRepinKeepsTheLastResolvedAlarms re-pins a peer past alarm after
// alarm: the pin keeps the last KeepResolved, oldest first, each with
// the time it was re-pinned past, and they load back as saved.
func TestRepinKeepsTheLastResolvedAlarms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-pins.json")
	ps, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	const u = "https://peer.example/mesh/"
	start := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	const alarms = KeepResolved + 5
	for i := range alarms {
		at := start.Add(time.Duration(i) * time.Hour)
		var resolved []Alarm
		if p := ps.Get(u); p != nil {
			resolved = p.Resolved
		}
		ps.Put(&Pin{URL: u, Key: "k", Alarm: &Alarm{Kind: AlarmFork, Detail: fmt.Sprintf("alarm %d", i), At: at}, Resolved: resolved})
		if ps.Repin(u, at.Add(time.Minute)) == nil {
			t.Fatalf("repin %d: no pin", i)
		}
	}
	if _, err := ps.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := again.Get(u).Resolved
	if len(got) != KeepResolved {
		t.Fatalf("%d alarms re-pinned past, %d kept, want %d", alarms, len(got), KeepResolved)
	}
	for i, a := range got {
		n := alarms - KeepResolved + i
		at := start.Add(time.Duration(n) * time.Hour)
		if a.Detail != fmt.Sprintf("alarm %d", n) || !a.At.Equal(at) || !a.Resolved.Equal(at.Add(time.Minute)) {
			t.Fatalf("resolved alarm %d: %+v, want alarm %d re-pinned at %s", i, a, n, at.Add(time.Minute))
		}
	}
}

// TestPeersOwnPinWinsOverACopyUnderAnotherName: a stale copy of a peer's
// pin under another name never replaces the pin in the peer's own file,
// whatever order the files are read in, and the copy is removed; a copy
// under a second peer's name is removed without taking that peer's pin
// when it is stored.
func TestPeersOwnPinWinsOverACopyUnderAnotherName(t *testing.T) {
	a, b := "https://a.example/", "https://b.example/"
	pinFile := func(url, key string) []byte {
		return []byte(`{"url": "` + url + `", "key": "` + key + `"}` + "\n")
	}
	for i := range 20 {
		path := filepath.Join(t.TempDir(), "log-pins.json")
		if _, err := statefile.Write(path, map[string][]byte{
			statefile.PeerFileName(a):           pinFile(a, "good"),
			"copied-" + fmt.Sprint(i) + ".json": pinFile(a, "stale"),
			statefile.PeerFileName(b):           pinFile(a, "stale"),
		}); err != nil {
			t.Fatal(err)
		}
		ps, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := ps.Get(a); got == nil || got.Key != "good" {
			t.Fatalf("round %d: a's pin %+v, want the key of a's own file", i, got)
		}
		ps.Put(&Pin{URL: b, Key: "b's"})
		if _, err := ps.Save(); err != nil {
			t.Fatal(err)
		}
		back, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Get(a); got == nil || got.Key != "good" {
			t.Fatalf("round %d: a's pin after the save %+v, want good", i, got)
		}
		if got := back.Get(b); got == nil || got.Key != "b's" {
			t.Fatalf("round %d: b's pin after the save %+v, want b's (written, then removed as a copy?)", i, got)
		}
		if names, _ := statefile.Names(path); len(names) != 2 {
			t.Fatalf("round %d: files after the save %v, want a's and b's", i, names)
		}
	}
}

package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestAFilePerPeerOfANameNoShardCanHoldIsRefusedAndKept: a file a file
// manager copied ("x 2.json"), or any name with a space or a control
// character, cannot be a shard's key. Read and Migrate refuse the state
// with an error that names the file, and leave every file as it was,
// rather than move it into a shard no one could read back.
func TestAFilePerPeerOfANameNoShardCanHoldIsRefusedAndKept(t *testing.T) {
	for _, name := range []string{"a b.json", "a\nb.json", "tab\there.json"} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.json")
			dir := Dir(path)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			good := PeerFileName("https://ada.example/")
			writeTestFile(t, filepath.Join(dir, fileName(dir, good)), "{\"good\":1}\n")
			writeTestFile(t, filepath.Join(dir, name), "{\"x\":1}\n")
			before := listDir(t, dir)
			for op, run := range map[string]func() error{
				"Read":    func() error { _, _, err := Read(path); return err },
				"Migrate": func() error { _, err := Migrate(path); return err },
			} {
				err := run()
				var corrupt *CorruptError
				if !errors.As(err, &corrupt) || !strings.HasSuffix(corrupt.Path, name) {
					t.Errorf("%s: %v, want a CorruptError naming %q", op, err, name)
				}
			}
			if after := listDir(t, dir); !reflect.DeepEqual(before, after) {
				t.Errorf("files before %v, after %v", before, after)
			}
		})
	}
}

// TestRewriteRefusesAKeyNoShardCanHold: Rewrite (and Write) check their
// keys as Update does, before writing anything.
func TestRewriteRefusesAKeyNoShardCanHold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queue.json")
	good := PeerFileName("https://ada.example/")
	files := map[string][]byte{good: []byte("1\n"), "x y.json": []byte("2\n")}
	if _, err := Write(path, files); err == nil {
		t.Fatal("Write of a key with a space succeeded")
	}
	if _, got, err := Read(path); err != nil || len(got) != 0 {
		t.Errorf("after a refused Write, Read = %d keys, %v; want nothing written", len(got), err)
	}
}

// TestFilePathNamesTheFileThatHoldsTheKey: a key an older node's file per
// peer holds is named by that file, even when its shard exists for other
// keys; a key its shard holds is named shard#key.
func TestFilePathNamesTheFileThatHoldsTheKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	dir := Dir(path)
	k := PeerFileName("https://ada.example/")
	other := keyBeside(k)
	if _, err := WriteSome(path, map[string][]byte{other: []byte("{}\n")}, nil); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, fileName(dir, k)), "{}\n")
	if got, want := FilePath(path, k), filepath.Join(dir, fileName(dir, k)); got != want {
		t.Errorf("FilePath of a key in its file per peer = %s, want %s", got, want)
	}
	if got, want := FilePath(path, other), shardPath(path, other)+"#"+other; got != want {
		t.Errorf("FilePath of a key in its shard = %s, want %s", got, want)
	}
}

// keyBeside returns a peer's key in the same shard of depth 6 as k.
func keyBeside(k string) string {
	for n := 0; ; n++ {
		if o := PeerFileName(fmt.Sprintf("https://o%d.example/", n)); shardOf(o) == shardOf(k) {
			return o
		}
	}
}

func writeTestFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRandomWritesOverShardsAndFilesPerPeerReadAsAModel: random sequences
// of an older node's writes of files per peer, Update, Rewrite (with and
// without was), Migrate, ReadOne and Names, with keys crowded into three
// shards, against a model; every Read, cached or not, equals the model.
func TestRandomWritesOverShardsAndFilesPerPeerReadAsAModel(t *testing.T) {
	var keys []string
	for n := 0; len(keys) < 40; n++ {
		k := PeerFileName(fmt.Sprintf("https://r%d.example/", n))
		// concentrate on 3 shards so keys collide
		if s := shardOf(k); s == 1 || s == 2 || s == 3 {
			keys = append(keys, k)
		}
	}
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		path := filepath.Join(t.TempDir(), "ledger.json")
		dir := Dir(path)
		model := map[string][]byte{}
		c := new(Cache)
		var was map[string][]byte
		for step := 0; step < 30; step++ {
			op := r.Intn(7)
			switch op {
			case 0: // old node writes a flat file per peer (either name)
				k := keys[r.Intn(len(keys))]
				v := []byte(fmt.Sprintf("flat %d %d\n", seed, step))
				// an old node's flat write: only legitimate when no shard holds k
				if shardHolds(path, k) {
					continue
				}
				os.MkdirAll(dir, 0o755)
				n := fileName(dir, k)
				if r.Intn(2) == 0 {
					n = k
					os.Remove(filepath.Join(dir, fileName(dir, k)))
				}
				os.WriteFile(filepath.Join(dir, n), v, 0o644)
				model[k] = v
				was = nil
			case 1: // Update some keys
				set := map[string][]byte{}
				var gone []string
				for range r.Intn(4) {
					k := keys[r.Intn(len(keys))]
					if r.Intn(3) == 0 {
						gone = append(gone, k)
					} else {
						set[k] = []byte(fmt.Sprintf("u %d %d %s\n", seed, step, k[:3]))
					}
				}
				if _, err := c.Update(path, set, was, gone); err != nil {
					t.Fatal(err)
				}
				for _, k := range gone {
					if _, ok := set[k]; !ok {
						delete(model, k)
					}
				}
				maps.Copy(model, set)
				was = nil
			case 2, 3: // Rewrite from a fresh read with was
				_, cur, err := c.Read(path)
				if err != nil {
					t.Fatal(err)
				}
				next := maps.Clone(cur)
				for range r.Intn(4) {
					k := keys[r.Intn(len(keys))]
					if r.Intn(3) == 0 {
						delete(next, k)
					} else {
						next[k] = []byte(fmt.Sprintf("w %d %d\n", seed, step))
					}
				}
				w := cur
				if op == 3 {
					w = nil
				}
				if _, err := c.Rewrite(path, next, w); err != nil {
					t.Fatal(err)
				}
				model = maps.Clone(next)
				was = nil
			case 4:
				if _, err := Migrate(path); err != nil {
					t.Fatal(err)
				}
			case 5: // ReadOne each key
				for _, k := range keys {
					got, err := c.ReadOne(path, k)
					if err != nil || !bytes.Equal(got, model[k]) {
						t.Fatalf("seed %d step %d: ReadOne(%s) = %q, %v; want %q", seed, step, k, got, err, model[k])
					}
				}
			case 6:
				names, err := Names(path)
				if err != nil || len(names) != len(model) {
					t.Fatalf("seed %d step %d: Names = %d, %v; want %d", seed, step, len(names), err, len(model))
				}
			}
			_, got, err := c.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, model) && !(len(got) == 0 && len(model) == 0) {
				t.Fatalf("seed %d step %d op %d: Read = %d keys, model %d", seed, step, op, len(got), len(model))
			}
			if _, got2, _ := Read(path); !reflect.DeepEqual(got, got2) && !(len(got) == 0 && len(got2) == 0) {
				t.Fatalf("seed %d step %d: cached Read differs from uncached", seed, step)
			}
		}
	}
}

// TestSpliceOfRandomChangesWritesWhatEncodingTheMergeWould: spliceShard
// gives the bytes encodeShard gives of the merged contents, and says it
// changed exactly when they differ.
func TestSpliceOfRandomChangesWritesWhatEncodingTheMergeWould(t *testing.T) {
	const shard = 7
	var keys []string
	for n := 0; len(keys) < 20; n++ {
		if k := PeerFileName(fmt.Sprintf("https://q%d.example/", n)); shardOf(k) == shard {
			keys = append(keys, k)
		}
	}
	r := rand.New(rand.NewSource(1))
	vals := []string{"", "\n", "x", "x\n", "== a.json 1\n", "\n\n"}
	for range 5000 {
		have := map[string][]byte{}
		for _, k := range keys {
			if r.Intn(2) == 0 {
				have[k] = []byte(vals[r.Intn(len(vals))])
			}
		}
		set := map[string][]byte{}
		var gone []string
		for _, k := range keys {
			switch r.Intn(4) {
			case 0:
				set[k] = []byte(vals[r.Intn(len(vals))])
			case 1:
				gone = append(gone, k)
			}
		}
		want := maps.Clone(have)
		for _, k := range gone {
			delete(want, k)
		}
		maps.Copy(want, set)
		got, changed, err := spliceShard(encodeShard(have), prefixOf(keyBits(keys[0]), topDepth), set, gone)
		if err != nil || !bytes.Equal(got, encodeShard(want)) {
			t.Fatalf("splice differs: %v", err)
		}
		if changed != !bytes.Equal(encodeShard(want), encodeShard(have)) {
			t.Fatalf("changed = %v", changed)
		}
	}
}

// snapshotAtWrite copies dir (its regular files) into a fresh directory of
// the same base name the first time a shard is written: what a crash right
// after that write leaves on disk.
func snapshotAtWrite(t *testing.T, dir string) (snap string, restore func()) {
	snap = filepath.Join(t.TempDir(), filepath.Base(dir))
	var once sync.Once
	restore = SetWriteHook(func(string, int) {
		once.Do(func() {
			os.MkdirAll(snap, 0o755)
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err == nil {
					os.WriteFile(filepath.Join(snap, e.Name()), b, 0o644)
				}
			}
		})
	})
	return snap, restore
}

// TestACrashAfterAShardWriteBringsNoRemovedKeyBack: a key removed from a
// state where it still has a file per peer (a node not migrated yet, or a
// migration that crashed) loses that file before its shard is written, so
// a crash right after the shard's write does not bring it back.
func TestACrashAfterAShardWriteBringsNoRemovedKeyBack(t *testing.T) {
	for _, how := range []string{"Update gone", "Rewrite without it"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "queue.json")
			dir := Dir(path)
			k := PeerFileName("https://ada.example/")
			other := keyBeside(k)
			// An unmigrated node: both keys in files per peer.
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, fileName(dir, k)), []byte("{\"old\": true}\n"), 0o644)
			os.WriteFile(filepath.Join(dir, fileName(dir, other)), []byte("{}\n"), 0o644)
			_, was, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			snap, restore := snapshotAtWrite(t, dir)
			if how == "Update gone" {
				_, err = Update(path, map[string][]byte{other: []byte("{\"v\":2}\n")}, was, []string{k})
			} else {
				_, err = Rewrite(path, map[string][]byte{other: []byte("{\"v\":2}\n")}, was)
			}
			restore()
			if err != nil {
				t.Fatal(err)
			}
			_, after, _ := Read(path)
			if _, ok := after[k]; ok {
				t.Fatalf("not removed at all")
			}
			_, crashed, err := Read(filepath.Join(filepath.Dir(snap), "queue.json"))
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := crashed[k]; ok {
				t.Errorf("crash after the shard's write: %s is back with %q (files: %v)", k, v, listDir(t, snap))
			}
		})
	}
}

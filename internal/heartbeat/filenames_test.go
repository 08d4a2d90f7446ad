package heartbeat

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/statefile"
)

var (
	newName = regexp.MustCompile(`^([a-z0-9.-]+)_([0-9a-f]{8})\.json$`)
	oldName = regexp.MustCompile(`^[a-z0-9.-]+-[0-9a-f]{8}\.json$`)
)

// splitDirs are the node's split state directories.
func splitDirs(dir string) []string {
	var out []string
	for _, f := range append(node.StateFiles, node.LogPinsFile, node.RelaysFile) {
		out = append(out, statefile.Dir(filepath.Join(dir, f)))
	}
	return out
}

// unshard turns the node's sharded split states into those of a node
// before shards: a file per peer, named by its key (the oldest nodes) or,
// every other key, "<slug>_<8 hex>.json" (statefile.FlatPeerPath), and
// says how many files it wrote.
func unshard(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, f := range append(node.StateFiles, node.LogPinsFile, node.RelaysFile) {
		if f == node.CopiesFile {
			continue
		}
		path := filepath.Join(dir, f)
		_, files, err := statefile.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(statefile.Dir(path)); err != nil {
			t.Fatal(err)
		}
		if len(files) > 0 {
			if err := os.MkdirAll(statefile.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, key := range slices.Sorted(maps.Keys(files)) {
			p := filepath.Join(statefile.Dir(path), key)
			if n%2 == 1 {
				p = statefile.FlatFilePath(path, key)
			}
			if err := os.WriteFile(p, files[key], 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	return n
}

// renameToOldNames turns copies/, which keeps a file per peer, into an
// older node's: each peer's file named by its key, which is its name's 8
// hex digits XORed with the first four bytes of the sha256 of the
// directory's name (docs/formats.md), and says how many it renamed.
func renameToOldNames(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, d := range []string{statefile.Dir(filepath.Join(dir, node.CopiesFile))} {
		entries, err := os.ReadDir(d)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(filepath.Base(d)))
		mask := binary.BigEndian.Uint32(sum[:4])
		for _, e := range entries {
			m := newName.FindStringSubmatch(e.Name())
			if m == nil {
				continue
			}
			x, _ := strconv.ParseUint(m[2], 16, 32)
			key := fmt.Sprintf("%s-%08x.json", m[1], uint32(x)^mask)
			if err := os.Rename(filepath.Join(d, e.Name()), filepath.Join(d, key)); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	return n
}

// nodeFiles returns every file of the node but its lock files, by path.
func nodeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".lock") {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOldFileNamesMigrateOnTheNextHeartbeat turns a node's state into a
// node's before shards (a file per peer, under both names such nodes
// gave it; copies/ under the older one) and runs a heartbeat: it fetches
// nothing it had seen, its cursors, seen hashes, ledger and queue are
// what they were, every split state is in shards and copies/ has its new
// names; a heartbeat after it changes no file.
func TestOldFileNamesMigrateOnTheNextHeartbeat(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}}, "")
	write(t, dir, node.FoundersFile, "tester | http://127.0.0.1:1/tester/\n")
	if sum := beat(t, dir, testNow); sum.ValidationsPublished != 2 {
		t.Fatalf("first heartbeat published %d validations, want 2", sum.ValidationsPublished)
	}
	st, led := loadState(t, dir), loadLedger(t, dir)
	items, err := queue.Open(filepath.Join(dir, node.QueueFile)).List()
	if err != nil || len(items) != 2 {
		t.Fatalf("queue %v, %v", items, err)
	}
	if n := unshard(t, dir); n < 4 {
		t.Fatalf("wrote %d files per peer, want a peer's cursor, seen hashes, ledger and queue at least", n)
	}
	if n := renameToOldNames(t, dir); n < 1 {
		t.Fatalf("renamed %d files of copies/, want the peer's", n)
	}

	sum := beat(t, dir, testNow.Add(time.Hour))
	if sum.Verified != 0 || sum.Queued != 0 || sum.ValidationsPublished != 0 {
		t.Errorf("after the migration the heartbeat verified %d, queued %d, published %d; want nothing again",
			sum.Verified, sum.Queued, sum.ValidationsPublished)
	}
	for _, d := range splitDirs(dir) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			copies := filepath.Base(d) == filepath.Base(statefile.Dir(node.CopiesFile))
			if oldName.MatchString(e.Name()) || (!copies && newName.MatchString(e.Name())) {
				t.Errorf("%s/%s: not moved", filepath.Base(d), e.Name())
			}
		}
	}
	if got := loadLedger(t, dir); !reflect.DeepEqual(got.Traces, led.Traces) || !reflect.DeepEqual(got.Validations, led.Validations) {
		t.Errorf("ledger changed by the migration:\n got %+v\nwant %+v", got, led)
	}
	if got := loadState(t, dir); !reflect.DeepEqual(got.SeenHashes, st.SeenHashes) || got.Cursor(good.URL+"/").LastSeenSeq != 2 {
		t.Errorf("cursors or seen hashes lost in the migration: %+v", got)
	}
	if after, _ := queue.Open(filepath.Join(dir, node.QueueFile)).List(); !reflect.DeepEqual(after, items) {
		t.Errorf("queue changed by the migration:\n got %+v\nwant %+v", after, items)
	}

	before := nodeFiles(t, dir)
	beat(t, dir, testNow.Add(time.Hour+time.Minute))
	if after := nodeFiles(t, dir); !reflect.DeepEqual(after, before) {
		for p := range after {
			if after[p] != before[p] {
				t.Errorf("the heartbeat after the migration changed %s", p)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				t.Errorf("the heartbeat after the migration removed %s", p)
			}
		}
	}
}

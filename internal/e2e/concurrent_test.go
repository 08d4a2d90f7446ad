package e2e

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/heartbeat/report"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

func TestTwoHeartbeatsAtOncePublishEachValidationOnce(t *testing.T) {
	m := newMesh(t, "ada", "bob")
	m.configure("ada", gated)
	m.configure("bob", founding)
	m.node("ada").addTraces(t, "ada", adasTraces...)
	m.beat("ada")
	bob := m.node("bob")

	const runs = 2
	sums := make([]*report.Summary, runs)
	errs := make([]error, runs)
	ready := make(chan struct{})
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ready
			sums[i], errs[i] = runHeartbeat(bob.dir, m.now)
		}()
	}
	close(ready)
	wg.Wait()

	published := 0
	for i := range runs {
		if errs[i] != nil {
			t.Fatalf("heartbeat %d: %v", i, errs[i])
		}
		published += sums[i].ValidationsPublished
	}
	if published != 3 {
		t.Errorf("the two heartbeats published %d validations between them; want 3", published)
	}
	vals := readValidations(t, bob.dir) // fails on two files for one hash
	listed := map[manifest.Hash]int{}
	for _, e := range readManifest(t, bob.dir).Entries {
		listed[e.Hash]++
	}
	if len(vals) != 3 {
		t.Errorf("%d validation files; want 3", len(vals))
	}
	for hash, c := range listed {
		if c != 1 {
			t.Errorf("%s listed %d times in bob's MANIFEST", hash, c)
		}
	}
	for _, it := range queueItems(t, bob.dir) {
		if it.Status != "done" {
			t.Errorf("queue item %s is %s after both heartbeats; want done", it.ID, it.Status)
		}
	}
}

func TestNodeStateFollowsTheInjectedClock(t *testing.T) {
	m := threeNodes(t)
	m.settle(maxRounds)
	for _, n := range m.nodes {
		files := stateContents(t, n.dir)
		if len(files) < 3 {
			t.Fatalf("%s: state files %v; want the cursors, the ledger and the queue", n.name, slices.Collect(maps.Keys(files)))
		}
		for rel, data := range files {
			var doc any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatalf("%s %s: %v", n.name, rel, err)
			}
			walkTimes(doc, "", func(at string, tm time.Time) {
				if tm.Before(start) || tm.After(m.now) {
					t.Errorf("%s %s: %s = %s, outside the heartbeats' clock [%s, %s]: a wall-clock time makes reruns differ",
						n.name, rel, at, tm.Format(time.RFC3339Nano), start.Format(time.RFC3339), m.now.Format(time.RFC3339))
				}
			})
		}
	}
}

// walkTimes calls f for every string in doc that is an RFC 3339 time, with
// its JSON path.
func walkTimes(doc any, at string, f func(string, time.Time)) {
	switch v := doc.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			walkTimes(v[k], at+"."+k, f)
		}
	case []any:
		for _, e := range v {
			walkTimes(e, at+"[]", f)
		}
	case string:
		if tm, err := time.Parse(time.RFC3339Nano, v); err == nil && !tm.IsZero() {
			f(at, tm)
		}
	}
}

// stateContents returns the contents of the node's split states under
// dir, by directory and key (statefile: shards hold them; copies/ keeps
// a file per peer).
func stateContents(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range append(slices.Clone(node.StateFiles), node.LogPinsFile, node.RelaysFile) {
		read := statefile.Read
		if f == node.CopiesFile {
			read = statefile.ReadFlat
		}
		_, files, err := read(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for key, data := range files {
			out[statefile.Dir(f)+"/"+key] = data
		}
	}
	return out
}

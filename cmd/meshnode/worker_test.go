package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
)

// TestWorkerScoresThePostgreSQLQueue runs the worker loop under both its
// names, `worker` and `watch --worker` (one implementation).
func TestWorkerScoresThePostgreSQLQueue(t *testing.T) {
	srv := pgtest.Start(t)
	for _, cmd := range [][]string{{"worker"}, {"watch", "--worker"}} {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) { testWorkerScores(t, srv.NewDatabase(t), cmd) })
	}
}

func testWorkerScores(t *testing.T, dsn string, cmd []string) {
	bodies := map[string][]byte{}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := bodies[r.URL.Path]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer web.Close()
	var its []queue.Item
	for i := 1; i <= 5; i++ {
		path := fmt.Sprintf("/traces/t%d.md", i)
		bodies[path] = []byte(fmt.Sprintf("# Finding %d\n\n## Evidence\n\nMeasured 40 ms on run %d.\n", i, i))
		hash := manifest.HashBytes(bodies[path])
		its = append(its, queue.Item{ID: hash.Hex(12), Hash: hash, From: "ada",
			FromURL: web.URL + "/traces/", TraceURL: web.URL + path, Seq: manifest.Seq(i)})
	}
	// The last one's bytes changed since it was queued: it fails, named.
	bodies["/traces/t5.md"] = []byte("# Changed\n")
	s, err := pgqueue.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(its...); err != nil {
		t.Fatal(err)
	}
	t.Setenv(pgqueue.EnvDSN, dsn)
	out, err := runCmd(t, append(cmd, "--owner", "cli", "--until-empty", "--poll", "50ms", "--allow-private-addresses")...)
	if err != nil {
		t.Fatal(err)
	}
	if out != "worker cli: 4 done, 1 failed\n" {
		t.Errorf("output %q", out)
	}
	all, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range all {
		if it.Seq == 5 {
			if it.Status != queue.StatusFailed || !strings.Contains(it.Reason, "trace changed since it was queued") {
				t.Errorf("changed trace: %q %q", it.Status, it.Reason)
			}
			continue
		}
		if it.Status != queue.StatusDone || it.Result == nil || it.Result.Scorer != "heuristic" || it.Result.Scores.Total() == 0 {
			t.Errorf("%d: %q %q %+v", it.Seq, it.Status, it.Reason, it.Result)
		}
	}
}

func TestWorkerWantsTheDSNFromTheEnvironment(t *testing.T) {
	t.Setenv(pgqueue.EnvDSN, "")
	t.Setenv("DATABASE_URL", "")
	for _, cmd := range [][]string{{"worker"}, {"watch", "--worker"}} {
		_, err := runCmd(t, append(cmd, "--until-empty")...)
		if err == nil || !strings.Contains(err.Error(), "set MESHNODE_QUEUE_DSN") {
			t.Fatalf("%v: err = %v", cmd, err)
		}
	}
	_, err := runCmd(t, "watch", "--worker", "--interval", "5m")
	if err == nil || !strings.Contains(err.Error(), "interval") {
		t.Fatalf("watch --worker took a flag of the node's watch: %v", err)
	}
	_, err = runCmd(t, "worker", "--scorer", "llm")
	if err == nil || !strings.Contains(err.Error(), "heuristic or command") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv(pgqueue.EnvDSN, "postgres://u:secret@[::1")
	_, err = runCmd(t, "worker")
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("a bad connection string: %v", err)
	}
}

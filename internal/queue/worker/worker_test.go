package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/queue/pgqueue"
	"github.com/meshnode/meshnode/internal/queue/pgtest"
	"github.com/meshnode/meshnode/internal/queue/worker"
	"github.com/meshnode/meshnode/internal/score"
	"github.com/meshnode/meshnode/internal/slowtest"
	"github.com/meshnode/meshnode/internal/validation"
)

// The test binary doubles as the scoring command and as a worker process.
const (
	scorerEnv = "MESHNODE_TEST_SCORER" // the log file each scoring appends its hash to
	hangEnv   = "MESHNODE_TEST_HANG"   // a hash whose first scoring hangs, and the marker file
	workerEnv = "MESHNODE_TEST_WORKER" // "owner lease": run a worker on MESHNODE_QUEUE_DSN
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(workerEnv); spec != "" {
		os.Unsetenv(workerEnv) // its scorer is the other role
		os.Exit(workerProcess(spec))
	}
	if log := os.Getenv(scorerEnv); log != "" {
		os.Exit(scoreCommand(log))
	}
	os.Exit(m.Run())
}

// scoreCommand is the scorer: it logs the hash, sleeps 100 ms and answers.
func scoreCommand(log string) int {
	var req score.CommandRequest
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(f, req.Hash)
	f.Close()
	if hang := strings.Fields(os.Getenv(hangEnv)); len(hang) == 2 && manifest.Hash(hang[0]) == req.Hash {
		if marker, err := os.OpenFile(hang[1], os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(marker, os.Getpid())
			marker.Close()
			time.Sleep(time.Minute)
		}
	}
	time.Sleep(100 * time.Millisecond)
	scores := map[string]int{}
	for _, d := range validation.Dimensions {
		scores[d] = 3
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{"scores": scores, "notes": "fine"})
	return 0
}

func workerProcess(spec string) int {
	owner, leaseText, _ := strings.Cut(spec, " ")
	lease, err := time.ParseDuration(leaseText)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	dsn, err := pgqueue.DSNFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := pgqueue.Open(dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	w := newWorker(s, owner, os.Getenv(scorerEnv))
	w.Lease, w.Poll, w.UntilEmpty = lease, 100*time.Millisecond, true
	if _, err := w.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func newWorker(s queue.Store, owner, log string) *worker.Worker {
	return &worker.Worker{
		Store: s, Owner: owner, Lease: 30 * time.Second,
		Client: fetch.New(fetch.Options{AllowPrivate: true, IgnoreRobots: true}),
		Scorer: &score.Command{Args: []string{os.Args[0]}, Timeout: 2 * time.Minute},
	}
}

// mesh serves n traces and returns the queue items that name them.
func mesh(t testing.TB, n int) []queue.Item {
	bodies := map[string][]byte{}
	var its []queue.Item
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	for i := 1; i <= n; i++ {
		path := fmt.Sprintf("/traces/t%04d.md", i)
		body := []byte(fmt.Sprintf("# Trace %d\n\nMeasured %d things on the loopback mesh.\n", i, i))
		bodies[path] = body
		hash := manifest.HashBytes(body)
		its = append(its, queue.Item{
			ID: validation.ID(hash), Hash: hash, From: "ada", FromURL: srv.URL + "/traces/",
			TraceURL: srv.URL + path, Type: "finding", Seq: manifest.Seq(i), QueuedAt: time.Now().UTC().Add(time.Duration(i) * time.Millisecond),
		})
	}
	return its
}

// newQueue starts a server with a queue holding its.
func newQueue(t testing.TB, srv *pgtest.Server, its []queue.Item) (*pgqueue.Store, string) {
	dsn := srv.NewDatabase(t)
	s, err := pgqueue.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	if added, err := s.Enqueue(its...); err != nil || added != len(its) {
		t.Fatalf("enqueue: added %d of %d, %v", added, len(its), err)
	}
	return s, dsn
}

// scoredOnce checks that every item is done with a result and that the
// scorer ran once for each, except the hashes in twice.
func scoredOnce(t testing.TB, s queue.Store, its []queue.Item, log string, twice map[manifest.Hash]bool) {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[manifest.Hash]int{}
	for _, h := range strings.Fields(string(data)) {
		runs[manifest.Hash(h)]++
	}
	all, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(its) {
		t.Fatalf("queue holds %d items, want %d", len(all), len(its))
	}
	for _, it := range all {
		want := 1
		if twice[it.Hash] {
			want = 2
		}
		if it.Status != queue.StatusDone || it.Result == nil || it.Result.Scores != (validation.Scores{3, 3, 3, 3, 3, 3}) {
			t.Errorf("%s: status %q (%s), result %+v", it.ID, it.Status, it.Reason, it.Result)
		}
		if runs[it.Hash] != want {
			t.Errorf("%s scored %d times, want %d", it.ID, runs[it.Hash], want)
		}
	}
}

func TestFourWorkersScoreEveryTraceOnce(t *testing.T) {
	slowtest.Require(t)
	// 1,000 traces took 283 s under the race detector, half of go test's
	// default timeout of the whole package; 200 still give each of the
	// four workers about fifty to contend for.
	n := 1000
	switch {
	case testing.Short():
		n = 100
	case raceEnabled:
		n = 200
	}
	srv := pgtest.Start(t)
	its := mesh(t, n)
	s, _ := newQueue(t, srv, its)
	log := filepath.Join(t.TempDir(), "scored")
	t.Setenv(scorerEnv, log)
	var wg sync.WaitGroup
	stats := make([]worker.Stats, 4)
	errs := make([]error, 4)
	for i := range stats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[i], errs[i] = newWorker(s, fmt.Sprintf("w%d", i), log).Run(context.Background())
		}()
	}
	wg.Wait()
	done := 0
	for i := range stats {
		if errs[i] != nil {
			t.Errorf("worker %d: %v", i, errs[i])
		}
		if stats[i].Done == 0 {
			t.Errorf("worker %d scored nothing", i)
		}
		done += stats[i].Done
	}
	if done != n {
		t.Errorf("workers report %d done, want %d", done, n)
	}
	scoredOnce(t, s, its, log, nil)
}

func TestKilledWorkerProcessIsTakenOver(t *testing.T) {
	slowtest.Require(t)
	srv := pgtest.Start(t)
	its := mesh(t, 40)
	s, dsn := newQueue(t, srv, its)
	dir := t.TempDir()
	log, marker := filepath.Join(dir, "scored"), filepath.Join(dir, "hung")
	hung := its[5]
	procs := map[string]*exec.Cmd{}
	stderr := map[string]*bytes.Buffer{}
	for i := range 4 {
		owner := fmt.Sprintf("p%d", i)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), pgqueue.EnvDSN+"="+dsn, scorerEnv+"="+log,
			hangEnv+"="+string(hung.Hash)+" "+marker, workerEnv+"="+owner+" 2s")
		stderr[owner] = &bytes.Buffer{}
		cmd.Stderr = stderr[owner]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[owner] = cmd
	}
	// Wait until the hung item's scorer runs, then kill its worker, and
	// the scorer it started, with SIGKILL.
	var holder string
	deadline := time.Now().Add(time.Minute)
	for holder == "" {
		if time.Now().After(deadline) {
			t.Fatal("the hung trace was never claimed")
		}
		time.Sleep(50 * time.Millisecond)
		if _, err := os.Stat(marker); err != nil {
			continue
		}
		all, err := s.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range all {
			if it.ID == hung.ID && it.Status == queue.StatusInProgress {
				holder = it.Owner
			}
		}
	}
	if err := procs[holder].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	procs[holder].Wait()
	if pid, err := readPid(marker); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for owner, cmd := range procs {
		if owner == holder {
			continue
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("worker %s: %v\n%s", owner, err, stderr[owner])
		}
	}
	scoredOnce(t, s, its, log, map[manifest.Hash]bool{hung.Hash: true})
	all, _ := s.List()
	for _, it := range all {
		if it.ID == hung.ID && strings.Contains(it.Reason, holder) {
			t.Errorf("the killed worker %s is named in the taken-over item's reason %q", holder, it.Reason)
		}
	}
}

func readPid(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// Command stateyear simulates the state a node keeps over a year of a
// mesh where every agent publishes one trace a day, through the same
// ledger, state and queue code the heartbeat uses, and prints the largest
// file under mesh-state/ after each simulated month (bench/scale.sh). The
// queue is worked in the last two weeks only: its items leave a week after
// they are settled, so two weeks show its steady size. With -node it also
// writes a mesh.yaml, so `meshnode heartbeat --dir` runs on the directory
// (bench/stateyear.sh): its AGENTS.md lists nobody and the simulated
// agents are not learned peers, so such a heartbeat polls nobody and
// finds nothing new, and costs what loading and saving the history costs.
// The ledger is compacted at each save as the heartbeat does
// (ledger.Compact: records past the 90-day window sealed into segments);
// with -compact=false it is kept as nodes before segments kept it, every
// record in its peer's file (bench/stateyear.sh runs the old binary on
// that one).
//
//	stateyear -agents 1000 -days 365 -dir /tmp/year
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

func main() {
	agents := flag.Int("agents", 1000, "agents publishing")
	days := flag.Int("days", 365, "days simulated")
	every := flag.Int("save-every", 30, "days between saves (the sizes are measured at each save)")
	dir := flag.String("dir", "", "node directory to write (created)")
	asNode := flag.Bool("node", false, "also write a mesh.yaml, so a heartbeat runs on the directory")
	compact := flag.Bool("compact", true, "seal the ledger's records past its window into segments at each save, as the heartbeat does")
	flag.Parse()
	if *dir == "" {
		log.Fatal("stateyear: -dir is required")
	}
	if err := run(*dir, *agents, *days, *every, *compact); err != nil {
		log.Fatal(err)
	}
	if *asNode {
		if err := writeConfig(*dir); err != nil {
			log.Fatal(err)
		}
	}
}

// writeConfig makes dir a node a heartbeat runs on: a mesh.yaml naming
// it, and an AGENTS.md that lists nobody.
func writeConfig(dir string) error {
	cfg := "agent: bench\nurl: https://bench.example/traces/\n"
	if err := os.WriteFile(filepath.Join(dir, node.ConfigFile), []byte(cfg), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, node.AgentsFile), []byte("# name | trace_url | joined\n"), 0o644)
}

func run(dir string, agents, days, every int, compact bool) error {
	cursors := filepath.Join(dir, filepath.FromSlash(node.CursorsFile))
	ledgerPath := filepath.Join(dir, filepath.FromSlash(node.LedgerFile))
	st, led := state.New(), ledger.New()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	q.Now = func() time.Time { return now }
	for d := 1; d <= days; d++ {
		now = start.Add(time.Duration(d) * 24 * time.Hour)
		st.EvictSeen(now)
		var items []queue.Item
		for a := range agents {
			url := fmt.Sprintf("https://agent-%d.example/traces/", a)
			hash := manifest.HashBytes(fmt.Appendf(nil, "trace %d of agent %d", d, a))
			c := st.Cursor(url)
			seq := manifest.Seq(d) // one trace a day
			c.Agent, c.LastSeenSeq, c.LastPolled, c.LastSuccess = fmt.Sprintf("agent-%d", a), seq, now, now
			st.MarkSeenFrom(url, hash, now)
			led.AddTrace(&ledger.Trace{Agent: c.Agent, AgentURL: url, Seq: seq, Hash: hash, File: fmt.Sprintf("traces/%d.md", d),
				URL: fmt.Sprintf("%straces/%d.md", url, d), Type: "knowledge", Title: fmt.Sprintf("Trace %d of %s", d, c.Agent),
				Status: "pending", Submitted: now, FirstSeen: now, Fingerprint: trace.Fingerprint(d*agents + a + 1), Verified: true})
			items = append(items, queue.Item{ID: validation.ID(hash), Hash: hash, From: c.Agent, FromURL: url,
				TraceURL: fmt.Sprintf("%straces/%d.md", url, d), Type: "knowledge", Seq: seq, Submitted: now, QueuedAt: now})
		}
		// The queue keeps settled items a week (queue.SettledRetention):
		// its last two weeks show its size at any time of the year.
		if d > days-14 {
			if err := score(q, items, now); err != nil {
				return err
			}
		}
		if d%every == 0 || d == days {
			before, err := stamps(dir)
			if err != nil {
				return err
			}
			if err := save(st, led, cursors, ledgerPath, now, compact); err != nil {
				return err
			}
			if err := report(dir, d, before); err != nil {
				return err
			}
		}
	}
	return nil
}

// save writes the cursors and the ledger as the heartbeat does, the
// ledger compacted first unless compact is false.
func save(st *state.State, led *ledger.Ledger, cursors, ledgerPath string, now time.Time, compact bool) error {
	if _, err := st.Save(cursors, time.Time{}); err != nil {
		return err
	}
	if compact {
		if err := led.Compact(now); err != nil {
			return err
		}
	}
	_, err := led.Save(ledgerPath)
	return err
}

// stamp is what says a file was written: its size and modification time.
type stamp struct {
	size int64
	mod  time.Time
}

// stamps is the stamp of every file under dir's mesh-state/.
func stamps(dir string) (map[string]stamp, error) {
	out := map[string]stamp{}
	err := filepath.WalkDir(filepath.Join(dir, node.StateDir), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = stamp{fi.Size(), fi.ModTime()}
		return nil
	})
	return out, err
}

// score queues the day's traces and settles them as a heartbeat does: one
// claim, one batch of finishes.
func score(q *queue.File, items []queue.Item, now time.Time) error {
	if _, err := q.Enqueue(items...); err != nil {
		return err
	}
	claimed, err := q.Claim(queue.Claim{Owner: "heartbeat", Now: now})
	if err != nil {
		return err
	}
	updates := make([]queue.Update, len(claimed))
	for i, it := range claimed {
		updates[i] = queue.Update{Kind: queue.Finish, ID: it.ID, Owner: "heartbeat", Version: it.Version, Status: queue.StatusDone, Reason: "pass 20/30", At: now}
	}
	_, err = q.Update(updates...)
	return err
}

// report prints the day, the number of state files, their total size,
// the largest, and the bytes of the files the save wrote (those whose
// stamp differs from before).
func report(dir string, day int, before map[string]stamp) error {
	after, err := stamps(dir)
	if err != nil {
		return err
	}
	var total, largest, wrote int64
	var name string
	for p, s := range after {
		total += s.size
		if s.size > largest || (s.size == largest && p < name) {
			largest, name = s.size, p
		}
		if before[p] != s {
			wrote += s.size
		}
	}
	rel, _ := filepath.Rel(dir, name)
	fmt.Printf("day %d: %d state files, %.1f MB in all, largest %s %.1f KB; this save wrote %.1f MB\n",
		day, len(after), float64(total)/1e6, rel, float64(largest)/1e3, float64(wrote)/1e6)
	// Shown as it goes when stdout is a file; a pipe cannot be synced.
	_ = os.Stdout.Sync()
	return nil
}

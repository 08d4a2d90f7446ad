// Command scorequeue puts waiting items in the validation queue of a
// node, for measuring `meshnode score` on a history (bench/stateyear
// leaves its queue settled): -recent items of traces their peer's file
// of mesh-state/ledger/ holds, and -sealed items of traces only a
// segment holds (first seen quarters ago), each of another peer and with
// a suggestion, as a manual scorer's heartbeat leaves them; the first
// -noted of them have none and are noted as waiting on a failed fetch
// (queue.WaitFetchFailed), as the heartbeat notes an item whose trace it
// could not fetch again. It picks the
// traces in a fixed order, so a copy of one history gets the same items,
// and changes nothing but the queue. Run it on a copy:
//
//	go run ./bench/scorequeue -dir /dev/shm/scoreload-node -recent 10 -sealed 10 -noted 0
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

func main() {
	dir := flag.String("dir", "", "the node directory (a copy: its queue is changed)")
	recent := flag.Int("recent", 10, "items of traces their peer's file holds")
	sealed := flag.Int("sealed", 10, "items of traces only a segment holds")
	noted := flag.Int("noted", 0, "of those, items without a suggestion, noted as waiting on a failed fetch")
	flag.Parse()
	if err := run(*dir, *recent, *sealed, *noted); err != nil {
		fmt.Fprintln(os.Stderr, "scorequeue:", err)
		os.Exit(1)
	}
}

func run(dir string, recent, sealed, noted int) error {
	p := filepath.Join(dir, filepath.FromSlash(node.LedgerFile))
	l, err := ledger.LoadCompact(p)
	if err != nil {
		return err
	}
	q := queue.Open(filepath.Join(dir, filepath.FromSlash(node.QueueFile)))
	traces := l.SortedTraces()
	end := time.Time{}
	for _, t := range traces {
		if t.FirstSeen.After(end) {
			end = t.FirstSeen
		}
	}
	q.Now = func() time.Time { return end }
	want := map[bool]int{false: recent, true: sealed}
	peers := map[string]bool{}
	files := map[string][]byte{} // a peer's file, read once
	for _, t := range traces {
		if want[false]+want[true] == 0 {
			break
		}
		if peers[t.AgentURL] || t.TakenDown != "" {
			continue
		}
		if _, ok := files[t.AgentURL]; !ok {
			if files[t.AgentURL], err = statefile.ReadOne(p, statefile.PeerFileName(t.AgentURL)); err != nil {
				return err
			}
		}
		inFile := bytes.Contains(files[t.AgentURL], []byte(`"`+string(t.Hash)+`"`))
		if want[!inFile] == 0 {
			continue
		}
		it := itemOf(t, end, noted > 0)
		added, err := q.Enqueue(it)
		if err != nil {
			return err
		}
		if added == 1 && it.Suggested == nil {
			if err := note(q, it.ID, end); err != nil {
				return err
			}
			noted--
		}
		if added == 1 {
			peers[t.AgentURL] = true
			want[!inFile]--
		}
	}
	fmt.Printf("queued %d items of traces in their peer's file, %d of sealed traces\n", recent-want[false], sealed-want[true])
	return nil
}

// itemOf is the waiting item of t, suggested as the manual scorer's
// heartbeat suggests, or, unsuggested, without a suggestion.
func itemOf(t *ledger.Trace, at time.Time, unsuggested bool) queue.Item {
	it := queue.Item{ID: validation.ID(t.Hash), Hash: t.Hash, From: t.Agent, FromURL: t.AgentURL, TraceURL: t.URL,
		Title: "a trace", Seq: t.Seq, Submitted: t.Submitted, QueuedAt: at}
	if !unsuggested {
		s := validation.Scores{4, 3, 4, 2, 4, 3}
		it.Suggested = &s
	}
	return it
}

// note notes the item id as waiting on a failed fetch, as the manual
// scorer's heartbeat does.
func note(q *queue.File, id string, at time.Time) error {
	res, err := q.Update(queue.Update{Kind: queue.Note, ID: id, Reason: queue.WaitFetchFailed, At: at})
	if err == nil && res[0] != nil {
		err = res[0]
	}
	if err != nil {
		return fmt.Errorf("note %s: %w", id, err)
	}
	return nil
}

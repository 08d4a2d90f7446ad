package main

import (
	"fmt"
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

// start is the simulation's first day.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// world is the simulation's state between days: what a node holds in
// memory, and the agents' sequence numbers.
type world struct {
	*sim
	st    *state.State
	led   *ledger.Ledger
	q     *queue.File
	now   time.Time
	seqs  []manifest.Seq // each agent's highest seq
	today []*ledger.Trace
	items []queue.Item
}

func agentURL(a int) string { return fmt.Sprintf("https://agent-%d.example/traces/", a) }

func (s *sim) run() error {
	w := &world{sim: s, st: state.New(), led: ledger.New(), seqs: make([]manifest.Seq, s.agents)}
	w.q = queue.Open(filepath.Join(s.dir, filepath.FromSlash(node.QueueFile)))
	w.q.Now = func() time.Time { return w.now }
	for d := 1; d <= s.days; d++ {
		w.now = start.Add(time.Duration(d) * 24 * time.Hour)
		if err := w.day(d); err != nil {
			return fmt.Errorf("day %d: %w", d, err)
		}
		if d%s.saveEvery == 0 || d == s.days {
			if err := w.save(d); err != nil {
				return fmt.Errorf("save on day %d: %w", d, err)
			}
		}
	}
	return nil
}

// day simulates one day: the agents' traces and their jurors'
// validations, recorded as the node's polls record them, the node's own
// validations, and in the last queueDays the queue's work.
func (w *world) day(d int) error {
	w.st.EvictSeen(w.now)
	daily := d > w.days-w.queueDays
	w.today, w.items = w.today[:0], w.items[:0]
	for a := range w.agents {
		if daily || (d+a)%w.traceEvery == 0 {
			w.publish(a, d)
		}
	}
	if err := w.validate(); err != nil {
		return err
	}
	if !daily || len(w.items) == 0 {
		return nil
	}
	return score(w.q, w.items, w.now)
}

// publish records agent a's trace of day d, and its jurors' validations.
func (w *world) publish(a, d int) {
	url := agentURL(a)
	w.seqs[a]++
	seq := w.seqs[a]
	hash := manifest.HashBytes(fmt.Appendf(nil, "trace %d of agent %d", seq, a))
	file := fmt.Sprintf("traces/%d.md", seq)
	name := fmt.Sprintf("agent-%d", a)
	w.seen(a, seq, hash)
	t := &ledger.Trace{Agent: name, AgentURL: url, Seq: seq, Hash: hash, File: file,
		URL: url + file, Type: "knowledge", Title: fmt.Sprintf("Trace %d of %s", seq, name),
		Status: "pending", Submitted: w.now, FirstSeen: w.now, Fingerprint: trace.Fingerprint(d*w.agents + a + 1), Verified: true}
	w.led.AddTrace(t)
	w.today = append(w.today, t)
	for j := 1; j <= w.votes; j++ {
		w.vote((a+j)%w.agents, t)
	}
	w.items = append(w.items, queue.Item{ID: validation.ID(hash), Hash: hash, From: name, FromURL: url,
		TraceURL: t.URL, Type: "knowledge", Seq: seq, Submitted: w.now, QueuedAt: w.now})
}

// vote records validator v's validation of t, published as its next file.
func (w *world) vote(v int, t *ledger.Trace) {
	url := agentURL(v)
	w.seqs[v]++
	rel := node.ValidationsDir + "/" + validation.FileName(t.Hash)
	src := manifest.HashBytes(fmt.Appendf(nil, "validation %d of %s by agent %d", w.seqs[v], t.Hash, v))
	w.seen(v, w.seqs[v], src)
	w.led.AddValidation(&ledger.Validation{Validator: fmt.Sprintf("agent-%d", v), ValidatorURL: url,
		TraceURL: t.URL, TraceHash: t.Hash, Result: validation.ResultPass, Total: 20, Scores: scores,
		HasScores: true, ValidatedAt: w.now, SourceURL: url + rel, SourceHash: src})
}

// scores are every simulated validation's: 20 of 30, a pass.
var scores = validation.Scores{4, 3, 4, 3, 3, 3}

// seen advances agent a's cursor past its file seq of hash, as a poll
// that fetched it does.
func (w *world) seen(a int, seq manifest.Seq, hash manifest.Hash) {
	url := agentURL(a)
	c := w.st.Cursor(url)
	c.Agent, c.LastSeenSeq, c.LastPolled, c.LastSuccess = fmt.Sprintf("agent-%d", a), seq, w.now, w.now
	w.st.MarkSeenFrom(url, hash, w.now)
}

// validate writes the node's own validations of the day: own of its
// traces, evenly spread, as the heartbeat's scorer writes them.
func (w *world) validate() error {
	n := min(w.own, len(w.today))
	for i := range n {
		t := w.today[i*len(w.today)/n]
		v := &validation.Validation{Validator: "bench", ValidatorURL: nodeURL, TraceURL: t.URL, TraceHash: t.Hash,
			ValidatedAt: w.now, Scores: scores, HasScores: true, Total: scores.Total(), Result: validation.ResultFor(scores.Total()),
			Notes: "Scored by the simulation."}
		p := filepath.Join(w.dir, node.ValidationsDir, validation.FileName(t.Hash))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, v.Format(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// score queues the day's traces and settles them as a heartbeat does: one
// enqueue, one claim, one batch of finishes.
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

package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/state"
)

// peerCount is how many peers share the peer traces.
const peerCount = 20

// writePeers makes the node at dir know total traces of peerCount peers,
// as a heartbeat that read all of them leaves it: AGENTS.md lists the
// peers, each peer's cursor is at its newest seq with its hashes seen,
// and the ledger holds a record of every trace. own is how many traces
// of our own the peers' traces may cite.
func writePeers(dir string, own, total int) error {
	l, st, kept := ledger.New(), state.New(), copies.New()
	bodies := map[manifest.Hash][]byte{}
	var cands []copies.Candidate
	var agents strings.Builder
	agents.WriteString("# name | trace_url | joined\n")
	for p := range peerCount {
		name := fmt.Sprintf("peer%02d", p+1)
		url := "https://" + name + ".example.org/"
		fmt.Fprintf(&agents, "%s | %s | 2026-02-01\n", name, url)
		n := total / peerCount
		if p < total%peerCount {
			n++
		}
		for seq := 1; seq <= n; seq++ {
			t, body := peerTrace(name, url, seq, n, own)
			l.Traces[t.Hash] = t
			bodies[t.Hash] = body
			cands = append(cands, copies.Candidate{Hash: t.Hash, AgentURL: url, Seq: t.Seq, Submitted: t.Submitted})
			st.MarkSeenFrom(url, t.Hash, t.FirstSeen)
		}
		c := st.Cursor(url)
		c.Agent, c.LastSeenSeq = name, manifest.Seq(n)
		c.LastPolled, c.LastSuccess, c.ManifestUpdated, c.NewestEntry, c.LastNews = updated, updated, updated, updated, updated
	}
	if err := os.WriteFile(filepath.Join(dir, node.AgentsFile), []byte(agents.String()), 0o644); err != nil {
		return err
	}
	if _, err := l.Save(filepath.Join(dir, node.LedgerFile)); err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	if _, err := st.Save(filepath.Join(dir, node.CursorsFile), time.Time{}); err != nil {
		return fmt.Errorf("write cursors: %w", err)
	}
	for h := range copies.Select(cands, copies.PerAgent, copies.MaxCopies) {
		kept.Put(h, copies.Of(l.Traces[h].AgentURL, bodies[h]))
	}
	if _, err := kept.Save(filepath.Join(dir, node.CopiesFile)); err != nil {
		return fmt.Errorf("write copies: %w", err)
	}
	return nil
}

// peerTrace is the ledger's record of trace seq of n by the peer name at
// url, and the body the peer serves, of which its hash is: a few
// kilobytes of prose, a table and code, as our own traces; it cites one
// of our traces and the peer's previous trace.
func peerTrace(name, url string, seq, n, own int) (*ledger.Trace, []byte) {
	file := fmt.Sprintf("traces/%04d-note.md", seq)
	title := fmt.Sprintf("Note %d of %s", seq, name)
	submitted := updated.Add(-time.Duration(n-seq)*2*time.Hour - time.Duration(len(name))*time.Minute)
	kind, category, status := "knowledge", "pebble", manifest.Status("validated")
	if seq%3 == 0 {
		kind, category, status = "capability", "rock", "pending"
	}
	cites := []string{fmt.Sprintf("bench/%d", (seq*7)%own+1)}
	if seq > 1 {
		cites = append(cites, fmt.Sprintf("%s/%d", name, seq-1))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n**Agent:** %s\n**Cites:** %s\n\nWhat %s learned at step %d.\n\n", title, name, strings.Join(cites, ", "), name, seq)
	for p := range 4 {
		fmt.Fprintf(&b, "Paragraph %d of %s's note %d with **bold**, *emphasis* and `code`. ", p, name, seq)
		b.WriteString(strings.Repeat("A peer keeps what it verified and cites what it read. ", 6) + "\n\n")
	}
	b.WriteString("| step | what | cost |\n|---|---|---|\n| 1 | read a copy | none |\n\n")
	fmt.Fprintf(&b, "```go\nfor _, c := range copies[%d:] {\n\tshow(c)\n}\n```\n", seq)
	body := b.String()
	return &ledger.Trace{
		Agent: name, AgentURL: url, Seq: manifest.Seq(seq), Hash: manifest.Hash(fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(body)))),
		File: file, URL: url + file, Type: kind, Category: category, Title: title, Status: status,
		Submitted: submitted, FirstSeen: submitted.Add(30 * time.Minute), Cites: cites, Verified: true,
	}, []byte(body)
}

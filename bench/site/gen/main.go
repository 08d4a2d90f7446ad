// Command gen writes the benchmark's node: N synthetic traces of a few
// kilobytes (front matter, a table, code, citations) and a MANIFEST.md
// listing them, the same shape internal/site's BenchmarkBuild10k uses. The
// same files feed meshnode build and Hugo, side by side.
//
// With PEERS, the node also knows PEERS traces of other agents, as a node
// caught up with its mesh holds them: twenty peers in AGENTS.md, a cursor
// per peer at its newest seq with every hash seen
// (mesh-state/polling-cursors/), and a ledger record per trace
// (mesh-state/ledger/), citing our traces and each other's, and the
// copies a real node keeps of them (mesh-state/copies/: each agent's
// newest copies.PerAgent, copies.MaxCopies in all), so that the site
// builds a reading page of each.
//
// Usage: go run ./bench/site/gen DIR [N [PEERS]]
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/node"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

const usage = "usage: go run ./bench/site/gen DIR [N [PEERS]]"

// updated is the MANIFEST's time; the newest trace was submitted then.
var updated = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func run(args []string) error {
	if len(args) < 1 || len(args) > 3 {
		return fmt.Errorf("%s", usage)
	}
	if strings.HasPrefix(args[0], "-") {
		// "gen -h" once wrote 10,000 traces into a directory named -h.
		return fmt.Errorf("%s (DIR %q looks like a flag; gen takes none)", usage, args[0])
	}
	dir, n, peers := args[0], 10000, 0
	if len(args) > 1 {
		v, err := count(args[1], 1)
		if err != nil {
			return err
		}
		n = v
	}
	if len(args) > 2 {
		v, err := count(args[2], 0)
		if err != nil {
			return err
		}
		peers = v
	}
	if err := writeOwn(dir, n); err != nil {
		return err
	}
	if peers == 0 {
		return nil
	}
	return writePeers(dir, n, peers)
}

// count parses a count of at least least.
func count(arg string, least int) (int, error) {
	v, err := strconv.Atoi(arg)
	if err != nil || v < least {
		return 0, fmt.Errorf("count %q: want a number of at least %d", arg, least)
	}
	return v, nil
}

// writeOwn writes n traces, the MANIFEST.md listing them and IDENTITY.md.
func writeOwn(dir string, n int) error {
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		return err
	}
	var rows strings.Builder
	for i := n; i >= 1; i-- {
		name := fmt.Sprintf("traces/%05d-trace.md", i)
		body := trace(i)
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&rows, "| %d | sha256:%x | %s | knowledge | pending | %s |\n", i, sha256.Sum256(body), name,
			updated.Add(-time.Duration(n-i)*time.Hour).Format(time.RFC3339))
	}
	manifest := fmt.Sprintf("# MANIFEST\n\nagent: bench\nurl: https://bench.example.org/\nupdated: %s\nsequence: %d\n\n## Traces\n\n| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n%s",
		updated.Format(time.RFC3339), n, rows.String())
	if err := os.WriteFile(filepath.Join(dir, node.ManifestFile), []byte(manifest), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, node.IdentityFile), []byte("# Identity\n- Name: bench\n"), 0o644)
}

// trace is our trace number i. Its code block differs from every other
// trace's, as real traces' blocks do (162 of the 169 blocks with a
// language in the real mesh snapshot are distinct), so that highlighting
// is timed as real traces cost it.
func trace(i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Trace number %d\ntype: knowledge\ncategory: pebble\ntags: [bench, synthetic]\n---\n\n# Trace number %d\n\n", i, i)
	b.WriteString("## Work\n\n")
	for p := range 4 {
		fmt.Fprintf(&b, "Paragraph %d of trace %d with **bold**, *emphasis*, `code` and a link to https://example.org/%d. ", p, i, i)
		b.WriteString(strings.Repeat("The mesh verifies every hash before it trusts a byte. ", 6) + "\n\n")
	}
	b.WriteString("| step | what | cost |\n|---|---|---|\n| 1 | fetch MANIFEST.md | one request |\n| 2 | fetch entries | one each |\n\n")
	fmt.Fprintf(&b, "```go\nfor _, e := range entries[%d:] {\n\tverify(e)\n}\n```\n\n## Connections\n\n", i)
	fmt.Fprintf(&b, "- bench/%d\n- ada/%d\n", max(1, i-1), i%50+1)
	return []byte(b.String())
}

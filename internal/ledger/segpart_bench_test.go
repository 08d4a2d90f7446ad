package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/cputime"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// threeYearsSaved is three years of 60 peers' records compacted and
// saved at a new path, returned.
func threeYearsSaved(b *testing.B) string {
	b.Helper()
	now := time.Date(2029, 1, 1, 12, 45, 0, 0, time.UTC)
	p := filepath.Join(b.TempDir(), "mesh-state", "ledger.json")
	l := yearOf(60, 3*365, now)
	if err := l.Compact(now); err != nil {
		b.Fatal(err)
	}
	if _, err := l.Save(p); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRareReadersOfSummaries is what the readers that rebuild a
// peer segment's records from what a summary gave cost on three years of
// 60 peers' records, loaded as a heartbeat loads them (LoadCompact), each
// op a load and then: nothing ("load"), a sealed trace read whole, its
// peer's segments read again (WholeTrace, "whole"), or that of a summary
// that lied about it, which repairs the lying summary's group: about its
// sequence number ("repair") or its hash, the key it gave it
// ("repair-key", which looks keys up in every segment).
// A load is in each op, as whole and the repair change the ledger; the
// readers' cost is an op's less the load's:
//
//	go test ./internal/ledger/ -run - -bench RareReadersOfSummaries -benchmem
func BenchmarkRareReadersOfSummaries(b *testing.B) {
	p, key := threeYearsSaved(b), threeYearsSaved(b)
	lied := lieAboutATrace(b, p, 4, func(seq []byte) []byte { return append(seq, '0') })
	liedKey := lieAboutATrace(b, key, 5, func(h []byte) []byte { return append(h[:len(h)-1:len(h)-1], 'x') })
	for _, c := range []struct {
		name, p string
		h       manifest.Hash
	}{{"load", p, ""}, {"whole", p, manifest.Hash(fmt.Sprintf("sha256:%064x", 0))}, {"repair", p, lied}, {"repair-key", key, liedKey}} {
		b.Run(c.name, func(b *testing.B) {
			cputime.Loop(b, func() {
				got, err := LoadCompact(c.p)
				if err != nil {
					b.Fatal(err)
				}
				if c.h == "" {
					return
				}
				if got.WholeTrace(c.h) == nil && c.name == "whole" {
					b.Fatalf("no trace %s", c.h)
				}
				if repaired := len(got.Repaired()) > 0; repaired != (c.name != "whole") {
					b.Fatalf("%s: repaired %v", c.name, got.Repaired())
				}
			})
		})
	}
}

// lieAboutATrace makes the first summary of the ledger at p lie about the
// first trace it holds, its field (after the tag) changed by lie, the
// header rehashed, and returns the hash the summary gives that trace.
func lieAboutATrace(b testing.TB, p string, field int, lie func([]byte) []byte) manifest.Hash {
	b.Helper()
	names, err := filepath.Glob(filepath.Join(statefile.SegmentsDir(p), "*.summary"))
	if err != nil || len(names) == 0 {
		b.Fatalf("no summary at %s: %v", p, err)
	}
	data, err := os.ReadFile(names[0])
	if err != nil {
		b.Fatal(err)
	}
	head, body, _ := bytes.Cut(data, []byte{'\n'})
	lines := bytes.Split(body, []byte{'\n'})
	for i, line := range lines {
		f := bytes.Split(line, []byte{'\t'})
		if string(f[0]) != "T" {
			continue
		}
		f[field] = lie(f[field])
		lines[i] = bytes.Join(f, []byte{'\t'})
		body = bytes.Join(lines, []byte{'\n'})
		var h map[string]any
		if err := json.Unmarshal(head, &h); err != nil {
			b.Fatal(err)
		}
		sum := sha256.Sum256(body)
		h["body_sha256"] = hex.EncodeToString(sum[:])
		head, err = json.Marshal(h)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(names[0], append(append(head, '\n'), body...), 0o644); err != nil {
			b.Fatal(err)
		}
		return manifest.Hash(f[5])
	}
	b.Fatal("no trace in the summary")
	return ""
}

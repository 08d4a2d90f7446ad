package manifest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Archive is a link from a MANIFEST.md to one of its archive pages: an
// immutable file in the MANIFEST table format holding the rows with seqs
// First to Last that no longer fit in MANIFEST.md, named by File
// (relative to the agent's base URL) and its sha256 (docs/protocol.md
// §3.3). MANIFEST.md writes one "archive:" line per page, oldest first:
//
//	archive: 1-5000 archive/MANIFEST-000000001-000005000.md sha256:<64 hex>
type Archive struct {
	First, Last Seq
	File        string
	Hash        Hash
}

// MaxArchives bounds the archive lines Parse keeps; later ones are
// dropped with one Problem. At 5,000 rows a page it is 100 million rows.
const MaxArchives = 20_000

// archiveKey is the key of an archive line.
const archiveKey = "archive"

// String is the value of the archive line that links a; a space in File
// (never in a name the node writes) becomes "_", so the line parses back.
func (a Archive) String() string {
	return fmt.Sprintf("%d-%d %s %s", a.First, a.Last, strings.Join(strings.Fields(a.File), "_"), a.Hash)
}

// parseArchive reads the value of an archive line.
func parseArchive(value string) (Archive, error) {
	f := strings.Fields(value)
	if len(f) != 3 {
		return Archive{}, fmt.Errorf("archive %q is not \"<first>-<last> <file> sha256:<hex>\"", clip(value))
	}
	first, last, ok := seqRange(f[0])
	if !ok {
		return Archive{}, fmt.Errorf("archive range %q is not <first>-<last> with 1 ≤ first ≤ last ≤ %d", clip(f[0]), maxSeqValue)
	}
	h, err := NormalizeHash(f[2])
	if err != nil {
		return Archive{}, fmt.Errorf("archive %s: %w", clip(f[1]), err)
	}
	return Archive{First: first, Last: last, File: f[1], Hash: h}, nil
}

func seqRange(s string) (Seq, Seq, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, false
	}
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || first < 1 || first > last || last > maxSeqValue {
		return 0, 0, false
	}
	return Seq(first), Seq(last), true
}

func (p *parser) archive(n int, value string) {
	if p.archives++; p.archives > MaxArchives {
		if p.archives == MaxArchives+1 {
			p.problem(n, "more than %d archive lines; the rest are ignored", MaxArchives)
		}
		return
	}
	a, err := parseArchive(value)
	if err != nil {
		p.problem(n, "%v", err)
		return
	}
	p.m.Archives = append(p.m.Archives, a)
}

// SortArchives puts m's archive links in seq order, oldest first, and
// drops any that overlaps an earlier one: pages are written in order and
// never overlap, so an overlap is a hand edit or a hostile peer.
func (m *Manifest) SortArchives() {
	as := m.Archives
	sort.SliceStable(as, func(i, j int) bool { return as[i].First < as[j].First })
	out := as[:0]
	var last Seq
	for _, a := range as {
		if a.First <= last {
			continue
		}
		out = append(out, a)
		last = a.Last
	}
	m.Archives = out
}

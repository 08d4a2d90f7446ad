package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/statefile"
)

// rehashed is the summary data with its body edited by edit and its
// header's body_sha256 made right again, so that the edit reaches the
// body's reader.
func rehashed(t *testing.T, data []byte, edit func([]byte) []byte) []byte {
	t.Helper()
	head, body, _ := bytes.Cut(data, []byte{'\n'})
	old := sha256.Sum256(body)
	body = edit(body)
	sum := sha256.Sum256(body)
	head = bytes.Replace(head, []byte(hex.EncodeToString(old[:])), []byte(hex.EncodeToString(sum[:])), 1)
	return append(append(head, '\n'), body...)
}

// TestPhantomPeerInShardSummaryIsStale: a summary of jolt's shard
// segment that also names axon, a peer of another shard, with no records
// (a forged or damaged body whose hash is right) is stale, as the segment
// would be to its own reader (decodeShard). Taken, it noted axon as held
// by jolt's segment, and a later Forget of axon, which reads axon's
// segments whole, failed that save and every one after.
func TestPhantomPeerInShardSummaryIsStale(t *testing.T) {
	p, _ := sealedEveryField(t)
	fp := joltSummary(t, p)
	data, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	phantom := statefile.PeerFileName(axon)
	data = rehashed(t, data, func(b []byte) []byte {
		return append(b, "P\t"+phantom+"\t\t\t0\t0\t0\n"...)
	})
	if err := os.WriteFile(fp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.seal.dirty) == 0 {
		t.Errorf("the summary naming %s was taken: axon noted in %v", phantom, got.seal.peers[phantom].names)
	}
	got.Forget(axon)
	if _, err := got.Save(p); err != nil {
		t.Fatalf("save after Forget(axon): %v", err)
	}
	again, err := LoadCompact(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.seal.dirty) != 0 || again.Traces["sha256:bb"] == nil {
		t.Errorf("after the save, %d groups stale and jolt's trace %v", len(again.seal.dirty), again.Traces["sha256:bb"])
	}
}

// hostileBase is a summary's body as the writer gives it, fields joined
// by "|" here for reading: a peer's segment of axon, then a shard
// segment holding jolt, with a record of every kind.
const hostileBase = `S
P|axon37.hive37.ai-traces-426c3684.json|axon37|https://axon37.hive37.ai/traces/|0|0|1
V||||sha256:aa|pass|20|4|3|4|3|3|3|1|2026-02-23T16:00:00Z|v/a.md||sha256:va
S
P|jolt37.hive37.ai-traces-782e946d.json|jolt37|https://jolt37.hive37.ai/traces/|1|1|1
T||||1|sha256:aa|a.md||capability||validated||2026-02-23T16:00:00Z||||axon37|3|valid
C||||2|sha256:bb|b.md||||||2026-02-23T16:00:00Z|||
V||||sha256:cc|fail|0|0|0|0|0|0|0||2026-02-24T16:00:00Z||https://elsewhere.example/v.md|sha256:vc
R|https://jolt37.hive37.ai/traces/c.md|{"agent":"jolt37","agent_url":"https://jolt37.hive37.ai/traces/","seq":3,"claimed_hash":"sha256:cc","served_hash":"sha256:dd","at":"2026-02-24T16:00:00Z"}
D|{"reporter":"jolt37","reporter_url":"https://jolt37.hive37.ai/traces/","agent":"axon37","agent_url":"https://axon37.hive37.ai/traces/","file_url":"https://axon37.hive37.ai/traces/x.md","seq":4,"claimed_hash":"sha256:ee","served_hash":"","observed_at":"2026-02-24T16:00:00Z"}
`

// hostileFiles is the segments hostileBase is the summary of.
var hostileFiles = []statefile.SegmentFile{
	{Rel: "axon37.hive37.ai-traces-426c3684/2026-Q1-00000000.json", Size: 1},
	{Rel: "shard-1/2026-Q1-0-00000000.json", Size: 1},
}

// hostileSummary is the summary of hostileFiles whose body is body, "|"
// standing for a tab, its header's hash right.
func hostileSummary(t *testing.T, body string) []byte {
	t.Helper()
	h := summaryHeader{Version: summaryVersion}
	for _, f := range hostileFiles {
		h.Segments = append(h.Segments, summaryMember{Rel: f.Rel, Size: f.Size})
	}
	b := []byte(strings.ReplaceAll(body, "|", "\t"))
	sum := sha256.Sum256(b)
	h.Body = hex.EncodeToString(sum[:])
	head, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return append(append(head, '\n'), b...)
}

// decodeSafely is decodeSummary, a panic made an error.
func decodeSafely(data []byte) (out []map[string]*Ledger, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return decodeSummary(hostileFiles, data, nil)
}

// TestHostileSummaryBaseReadsAsWritten: hostileBase is what the writer
// writes of what it reads, so that each case of
// TestHostileSummaryBodyIsStale is stale for its edit alone.
func TestHostileSummaryBaseReadsAsWritten(t *testing.T) {
	data := hostileSummary(t, hostileBase)
	got, err := decodeSafely(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got[1][statefile.PeerFileName(jolt)].Traces); n != 1 {
		t.Fatalf("jolt read with %d traces, want 1", n)
	}
	segs := make([]sealedSegment, len(hostileFiles))
	for i, f := range hostileFiles {
		segs[i] = sealedSegment{rel: f.Rel, size: f.Size, peers: fullParts(got[i])}
	}
	again, err := encodeSummary(segs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("written again as\n%s\nwant\n%s", again, data)
	}
}

// shardMate is the URL of a peer, not jolt, whose directory falls in
// jolt's shard.
func shardMate() string {
	shard := shardOf(peerDir(statefile.PeerFileName(jolt)))
	for i := 0; ; i++ {
		url := fmt.Sprintf("https://p%d.example/", i)
		if shardOf(peerDir(statefile.PeerFileName(url))) == shard {
			return url
		}
	}
}

// TestHostileSummaryBodyIsStale: a body whose hash is right but whose
// lines say what no segment's reader would give (damaged, forged, or of
// another writer) is stale, never taken, and never a panic. Each case
// is one edit of hostileBase.
func TestHostileSummaryBodyIsStale(t *testing.T) {
	joltP := "P|" + statefile.PeerFileName(jolt) + "|jolt37|" + jolt
	axonP := "P|" + statefile.PeerFileName(axon) + "|axon37|" + axon
	axonV := "V||||sha256:aa|pass|20|4|3|4|3|3|3|1|2026-02-23T16:00:00Z|v/a.md||sha256:va\n"
	otherT := "T||||9|sha256:zz|z.md||||||2026-02-23T16:00:00Z|||\n"
	mate := shardMate()
	rLine := hostileBase[strings.Index(hostileBase, "\nR|")+1 : strings.Index(hostileBase, "\nD|")+1]
	dLine := hostileBase[strings.Index(hostileBase, "\nD|")+1:]
	shardSeg := hostileBase[strings.Index(hostileBase, "S\n"+joltP):]
	cLine := hostileBase[strings.Index(hostileBase, "\nC|")+1 : strings.Index(hostileBase, "\nV||||sha256:cc")+1]
	for _, tc := range []struct {
		name     string
		old, new string // the first old in hostileBase made new
	}{
		{"a record of another peer in a shard segment's peer", "\nT||||", "\nT|||" + axon + "|"},
		{"fewer traces than its peer line says", joltP + "|1|1|1", joltP + "|2|1|1"},
		{"more validations than its peer line says", joltP + "|1|1|1", joltP + "|1|1|0"},
		{"a count of 1<<50", joltP + "|1|1|1", joltP + "|1125899906842624|1|1"},
		{"a negative count", joltP + "|1|1|1", joltP + "|-1|1|1"},
		{"a copy under a key not its hash", "\nC|||", "\nC|sha256:zz||"},
		{"a copy where its peer line says none", joltP + "|1|1|1", joltP + "|1|0|1"},
		{"a peer twice in a shard segment", dLine, dLine + joltP + "|1|0|0\n" + otherT},
		{"two peer lines in a peer's segment", axonV, axonV + axonP + "|0|0|1\n" + strings.Replace(axonV, "sha256:va", "sha256:vz", 1)},
		{"another peer in a peer's segment", axonP, strings.Replace(axonP, statefile.PeerFileName(axon), statefile.PeerFileName(jolt), 1)},
		{"a peer of another shard, with its records, in a shard segment", dLine, dLine + axonP + "|0|0|1\n" + axonV},
		{"a peer with no records in a shard segment", dLine, dLine + "P|" + statefile.PeerFileName(mate) + "||" + mate + "|0|0|0\n"},
		{"a shard segment with no peer", shardSeg, "S\n"},
		{"a peer's segment with no peer", "S\n" + axonP + "|0|0|1\n" + axonV, "S\n"},
		{"a validation with both a source and a source URL", "|v/a.md||", "|v/a.md|https://x.example/v.md|"},
		{"an unknown escape", "|a.md|", `|a\a.md|`},
		{"a field that ends in a backslash", "|capability|", `|capability\|`},
		{"more segments than its header names", dLine, dLine + "S\n"},
		{"fewer segments than its header names", shardSeg, ""},
		{"a last line without its newline", dLine, strings.TrimSuffix(dLine, "\n")},
		{"an empty line", dLine, dLine + "\n"},
		{"a record before its segment's first peer", "S\n" + joltP, "S\n" + otherT + joltP},
		{"a peer line before the first segment", "S\n" + axonP, axonP},
		{"a trace line of 16 fields", cLine, strings.TrimSuffix(cLine, "\n") + "|x\n"},
		{"a trace line with a verdict short of its result", "|axon37|3|valid\n", "|axon37|3|valid|axon37|4\n"},
		{"a trace line of 14 fields", cLine, strings.TrimSuffix(cLine, "|\n") + "\n"},
		{"a validation line of 16 fields", "|sha256:vc\n", "\n"},
		{"a peer line of 5 fields", joltP + "|1|1|1", joltP + "|1|1"},
		{"a line of an unknown tag", dLine, dLine + "X|1\n"},
		{"a segment line with a field", "S\n" + joltP, "S|x\n" + joltP},
		{"a tag without a tab", dLine, dLine + "Tx\n"},
		{"two rejections of one file", rLine, rLine + strings.Replace(rLine, `"seq":3`, `"seq":5`, 1)},
		{"two disputes of one key", dLine, dLine + strings.Replace(dLine, `"seq":4`, `"seq":5`, 1)},
		{"a rejection that is not JSON", `|{"agent":"jolt37"`, `|{agent`},
		{"a dispute that is null", dLine, dLine + "D|null\n"},
		{"a number not decimal", "|1|sha256:aa|", "|0x1|sha256:aa|"},
		{"a bool 2", "|3|1|2026-02-23T16:00:00Z|v/a.md", "|3|2|2026-02-23T16:00:00Z|v/a.md"},
		{"a time not RFC 3339", "|2026-02-24T16:00:00Z||https", "|yesterday||https"},
		{"a fingerprint of 3 digits", "|2026-02-23T16:00:00Z||||axon37", "|2026-02-23T16:00:00Z|fed|||axon37"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(hostileBase, tc.old, tc.new, 1)
			if body == hostileBase {
				t.Fatal("the edit changed nothing")
			}
			got, err := decodeSafely(hostileSummary(t, body))
			if !errors.Is(err, errStaleSummary) {
				t.Errorf("read with %v, want it stale; got %d segments", err, len(got))
			}
		})
	}
}

// TestHugeCountAsksNoMoreThanItsBodyHolds: a peer line's counts size its
// maps, bounded by what the lines left could hold, so that a damaged
// count (a million traces in a line of their own) costs no memory.
func TestHugeCountAsksNoMoreThanItsBodyHolds(t *testing.T) {
	body := strings.Replace(hostileBase, "|axon37|https://axon37.hive37.ai/traces/|0|0|1", "|axon37|https://axon37.hive37.ai/traces/|1048576|1048576|1048576", 1)
	data := hostileSummary(t, body)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := decodeSafely(data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errStaleSummary) {
		t.Errorf("read with %v, want it stale", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading a %d-byte summary allocated %d bytes", len(data), n)
	}
}

package logsource

import (
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// servedFiles are the files of a grown log a fuzzed host may replace.
var servedFiles = []string{
	node.LogDir + "/" + translog.CheckpointFile,
	node.LogDir + "/tile/entries/001.p/45",
	node.LogDir + "/tile/1/000.p/1",
	node.LogDir + "/tile/0/001.p/45",
}

// FuzzVerifyServedLog serves any bytes as one file of a log that grew by
// one entry: the read must never panic, and never list an entry the
// signed log does not hold.
func FuzzVerifyServedLog(f *testing.F) {
	for i := range servedFiles {
		f.Add(uint8(i), []byte{})
		f.Add(uint8(i), []byte("\x00\x02ab"))
	}
	f.Add(uint8(0), []byte("127.0.0.1\n301\nAAAA\n\n— x y\n"))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		h := newPeerHost(t)
		r, all := pinned(t, h)
		all = append(all, entriesN(301, 1, "x")...)
		h.publish(t, all, h.skey)
		h.set(servedFiles[int(which)%len(servedFiles)], body)
		l := r.read(t)
		if l.Manifest == nil {
			return
		}
		if got := seqsOf(l); !slices.Equal(got, []manifest.Seq{301}) || l.Manifest.Entries[0].Hash != all[300].Hash {
			t.Fatalf("listed %v %v from altered bytes", got, l.Manifest.Entries)
		}
	})
}

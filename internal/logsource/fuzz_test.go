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

// FuzzFirstContactIdentity serves any bytes as a peer's IDENTITY.md at
// first contact, beside a log signed with the peer's real key: the read
// must never panic, and a pin without an alarm holds the real key.
func FuzzFirstContactIdentity(f *testing.F) {
	f.Add([]byte("# IDENTITY\n\nname: a\n"))
	f.Add([]byte("log_key: a+00000000+AQ==\nlog_key: b\n"))
	f.Add([]byte("log_key: 127.0.0.1+12345678+Afl8sXv\n"))
	f.Fuzz(func(t *testing.T, identity []byte) {
		h := newPeerHost(t)
		h.publish(t, entriesN(1, 3, "x"), h.skey)
		h.set(node.IdentityFile, identity)
		r := newReader(t, h)
		r.read(t)
		if p := r.pin(); p != nil && p.Alarm == nil && p.Key != h.vkey {
			t.Fatalf("pinned %q without an alarm; the log is signed by %q", p.Key, h.vkey)
		}
	})
}

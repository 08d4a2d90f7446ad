package relay

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/translog"
)

var updateVectors = flag.Bool("update", false, "rewrite the relay conformance vector")

// relayVector is conformance/relay/basic (conformance/README.md).
const relayVector = "../../conformance/relay/basic"

// The vector's keys: public here, they sign nothing real.
var (
	vectorRelayKey = "PRIVATE+KEY+relay.example/mesh+1c6623da+AQTQxH1Cc6tJkhk8RtN+KLGeBZI/QTaqC+WGaCxpGmX6"
	vectorAgents   = map[string]string{
		"https://a.example/mesh/": "PRIVATE+KEY+a.example/mesh+d7242f7c+ARTswGa0SonejyxusZ7gfbK8vkHcE9zkemezJp5QSDur",
		"https://b.example/mesh/": "PRIVATE+KEY+b.example/mesh+50c47a3f+ARxpeyVx2QFj7nj/DoS+RT1zjWXL+6Yq2Wm5Lu7oQJXJ",
		"https://c.example/mesh/": "PRIVATE+KEY+c.example/mesh+70c5a789+AddIxudAfI0gBuCLL5o5UvZK/iu+ktkJ8FfT8v22tPS/",
	}
	// vectorImpostor signs c's last relayed checkpoint: not c's key.
	vectorImpostor = "PRIVATE+KEY+c.example/mesh+366db7f3+Abgj8U15R3AZ8nIasrV/vjo7UE0MxVNOiBMEha2xYOn4"
)

// writeRelayVector writes the vector: a relay log of four entries (a at
// size 3, b at 1, a at 5, c at 2 signed by another key than c's), the
// relay's and the agents' verifier keys, and what a reader concludes.
func writeRelayVector(t *testing.T) {
	sign := func(agent, skey string, size int64) Entry {
		origin, _ := translog.Origin(agent)
		cp, err := translog.Sign(translog.Checkpoint{Origin: origin, Size: size, Root: rootFor(agent, size)}, skey)
		if err != nil {
			t.Fatal(err)
		}
		return Entry{Agent: agent, Checkpoint: cp}
	}
	a, b, c := "https://a.example/mesh/", "https://b.example/mesh/", "https://c.example/mesh/"
	l := &Log{}
	files, err := l.Extend([]Entry{sign(a, vectorAgents[a], 3), sign(b, vectorAgents[b], 1), sign(a, vectorAgents[a], 5), sign(c, vectorImpostor, 2)}, vectorRelayKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(relayVector); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		writeVectorFile(t, "log/"+name, data)
	}
	vkey, _ := translog.VerifierKey(vectorRelayKey)
	writeVectorFile(t, "relay.key", []byte(vkey+"\n"))
	var keys []string
	for u, skey := range vectorAgents {
		v, _ := translog.VerifierKey(skey)
		keys = append(keys, u+" "+v)
	}
	sort.Strings(keys)
	writeVectorFile(t, "agents.txt", []byte(strings.Join(keys, "\n")+"\n"))
	root := func(agent string, size int64) string {
		r := rootFor(agent, size)
		return base64.StdEncoding.EncodeToString(r[:])
	}
	writeVectorFile(t, "expected.txt", fmt.Appendf(nil, "listed %s 5 %s\nlisted %s 1 %s\nforged %s\n", a, root(a, 5), b, root(b, 1), c))
}

func rootFor(agent string, size int64) [32]byte {
	return [32]byte(tlogRecord(fmt.Sprintf("%s %d", agent, size)))
}

func writeVectorFile(t *testing.T, name string, data []byte) {
	p := filepath.Join(relayVector, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRelayVectorReadsAsExpected serves the vector's log, checks its
// checkpoint with x/mod alone, reads it with Reader under the agents'
// keys, and compares the conclusions with expected.txt.
func TestRelayVectorReadsAsExpected(t *testing.T) {
	if *updateVectors {
		writeRelayVector(t)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(relayVector, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	relayKey := strings.TrimSpace(read("relay.key"))
	v, err := note.NewVerifier(relayKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := note.Open([]byte(read("log/checkpoint")), note.VerifierList(v)); err != nil {
		t.Fatalf("the relay's checkpoint does not verify with relay.key: %v", err)
	}
	s := newSite(t)
	files := map[string][]byte{}
	err = filepath.WalkDir(filepath.Join(relayVector, "log"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(relayVector, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s.put("relay", files)
	pins := newPins(t)
	for _, line := range strings.Split(strings.TrimSpace(read("agents.txt")), "\n") {
		u, key, _ := strings.Cut(line, " ")
		pins.Put(&logpin.Pin{URL: u, Key: key})
	}
	h := &Held{URL: s.url("relay"), Key: relayKey}
	rd := &Reader{Client: testClient(), Pins: pins, Now: t0}
	if _, err := rd.Read(context.Background(), Relay{URL: h.URL, Key: relayKey}, h); err != nil {
		t.Fatal(err)
	}
	Settle([]*Held{h}, pins, t0)
	var got strings.Builder
	agents := make([]string, 0, len(h.Agents))
	for u := range h.Agents {
		agents = append(agents, u)
	}
	sort.Strings(agents)
	for _, u := range agents {
		fmt.Fprintf(&got, "listed %s %d %s\n", u, h.Agents[u].Size, h.Agents[u].Root)
	}
	if h.Fault != nil {
		fmt.Fprintf(&got, "%s %s\n", h.Fault.Kind, h.Fault.Agent)
	}
	if want := read("expected.txt"); got.String() != want {
		t.Fatalf("read the vector as\n%s\nexpected.txt says\n%s", got.String(), want)
	}
}

package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/state"
	"github.com/meshnode/meshnode/internal/translog"
)

// caseRelaysDir holds a case's relays (conformance/README.md, "A case
// with relays"): each is served at B/<relay>/, its log generated at run
// time, since its entries name the agents' URLs at B and its key is
// named after B.
const caseRelaysDir = "relays"

// The files of a case's relay: the seed of its key, its entries at the
// first poll, and those appended before the second.
const (
	relaySeedFile  = "seed"
	relayFirstFile = "entries"
	relayLaterFile = "later"
)

// caseRelay is one relay of a case, its log built for a base URL.
type caseRelay struct {
	name string
	url  string // B/<name>/
	key  string // its verifier key, named the URL without its scheme
	// first and second are the log's files (by path under log/) served
	// at the first poll and, over them, from the second on.
	first, second map[string][]byte
	// agents are the URLs of the agents it lists.
	agents []string
}

// caseRelays builds the relays of the case in dir for the base URL base,
// by the procedure of conformance/README.md: none when the case has no
// relays/ folder.
func caseRelays(t *testing.T, dir, base string) []*caseRelay {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, caseRelaysDir))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []*caseRelay
	for _, e := range entries {
		out = append(out, buildCaseRelay(t, filepath.Join(dir, caseRelaysDir, e.Name()), dir, base))
	}
	return out
}

// buildCaseRelay builds the relay whose files are in rdir, of the case in
// dir, served at base.
func buildCaseRelay(t *testing.T, rdir, dir, base string) *caseRelay {
	t.Helper()
	name := filepath.Base(rdir)
	r := &caseRelay{name: name, url: base + "/" + name + "/"}
	skey := caseRelayKey(t, rdir, strings.TrimPrefix(strings.TrimPrefix(base, "http://"), "https://")+"/"+name)
	vkey, err := translog.VerifierKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	r.key = vkey
	l := &relay.Log{}
	first := caseRelayEntries(t, filepath.Join(rdir, relayFirstFile), dir, base)
	if r.first, err = l.Extend(first, skey); err != nil {
		t.Fatal(err)
	}
	later := caseRelayEntries(t, filepath.Join(rdir, relayLaterFile), dir, base)
	r.second = r.first
	if len(later) > 0 {
		grown, err := l.Extend(later, skey)
		if err != nil {
			t.Fatal(err)
		}
		r.second = map[string][]byte{}
		for _, files := range []map[string][]byte{r.first, grown} {
			for p, b := range files {
				r.second[p] = b
			}
		}
	}
	for _, e := range append(first, later...) {
		r.agents = append(r.agents, e.Agent)
	}
	return r
}

// caseRelayKey is the relay's signing key: the ed25519 key whose seed
// (RFC 8032) is the hex of the relay's seed file, named name.
func caseRelayKey(t *testing.T, rdir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(rdir, relaySeedFile))
	if err != nil {
		t.Fatal(err)
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(seed) != 32 {
		t.Fatalf("%s: not 64 hex digits (%v)", relaySeedFile, err)
	}
	skey, _, err := note.GenerateKey(bytes.NewReader(seed), name)
	if err != nil {
		t.Fatal(err)
	}
	return skey
}

// caseRelayEntries reads a relay's entries file: a line per entry, the
// agent's name and the case's file that holds the checkpoint relayed.
// Each entry is "agent B/<agent>/", then that file's bytes. A missing
// file is no entries.
func caseRelayEntries(t *testing.T, path, dir, base string) []relay.Entry {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []relay.Entry
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("%s: %q is not \"AGENT CHECKPOINT-FILE\"", path, line)
		}
		cp, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f[1])))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, relay.Entry{Agent: base + "/" + f[0] + "/", Checkpoint: cp})
	}
	return out
}

// relaysConfig is the mesh.yaml section that names the case's relays.
func relaysConfig(rs []*caseRelay) string {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("relays:\n  list:\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "    - %s %s\n", r.url, r.key)
	}
	return b.String()
}

// relayFile returns the file at path under B/<relay>/ as served at the
// first poll or, when second, from the second on.
func relayFile(rs []*caseRelay, rel string, second bool) ([]byte, bool) {
	for _, r := range rs {
		p, ok := strings.CutPrefix(rel, r.name+"/log/")
		if !ok {
			continue
		}
		files := r.first
		if second {
			files = r.second
		}
		b, ok := files[p]
		return b, ok
	}
	return nil, false
}

// conformanceListener listens on a loopback port at which no agent a
// relay of the case in dir lists has its direct poll (relay.BoundDue,
// at the default relays.direct_poll) fall on the second poll, an hour
// after the first read its news: where to spread such polls is
// meshnode's schedule, not the protocol's (conformance/README.md), and
// the cases' answer is the one of an agent not polled before its bound.
func conformanceListener(t *testing.T, dir string) net.Listener {
	t.Helper()
	for range 64 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if !relayPollsAtSecond(t, dir, "http://"+l.Addr().String()) {
			return l
		}
		l.Close()
	}
	t.Fatal("no port found whose relayed agents are not polled at the second poll")
	return nil
}

// relayPollsAtSecond reports whether, served at base, an agent a relay
// of the case lists would be polled at the second poll for its bound.
func relayPollsAtSecond(t *testing.T, dir, base string) bool {
	first := conformanceNow.Add(-time.Hour)
	for _, r := range caseRelays(t, dir, base) {
		for _, a := range r.agents {
			if relay.BoundDue(a, &state.Cursor{LastNews: first, LastPolled: first}, conformanceNow, config.DefaultDirectPoll) {
				return true
			}
		}
	}
	return false
}

// newConformanceServer serves the case in dir on a conformanceListener:
// its public/ files, later/'s over them once second is set, and its
// relays' logs; it returns the server and the relays.
func newConformanceServer(t *testing.T, dir string, second *atomic.Bool) (*httptest.Server, []*caseRelay) {
	t.Helper()
	l := conformanceListener(t, dir)
	rs := caseRelays(t, dir, "http://"+l.Addr().String())
	s := httptest.NewUnstartedServer(conformanceFiles(dir, second, rs))
	s.Listener.Close()
	s.Listener = l
	s.Start()
	return s, rs
}

// relaysSummary returns the relays of the heartbeat summary in path, as
// expected/relays.json holds them: two-space indented JSON.
func relaysSummary(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Relays json.RawMessage `json:"relays"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, s.Relays, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.String()
}

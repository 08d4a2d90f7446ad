package relay

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// logAgent is an agent that publishes a real signed log of n entries on
// a site, under dir.
type logAgent struct {
	dir, url, skey, vkey string
	entries              []translog.Entry
}

func newLogAgent(t *testing.T, s *site, dir string) *logAgent {
	a := &logAgent{dir: dir, url: s.url(dir)}
	a.skey, a.vkey = keyFor(t, a.url)
	return a
}

// publish grows a's log by n entries, signed by skey, and serves it
// with an IDENTITY.md that names vkey.
func (a *logAgent) publish(t *testing.T, s *site, n int, skey, vkey string) []byte {
	t.Helper()
	for range n {
		seq := manifest.Seq(len(a.entries) + 1)
		a.entries = append(a.entries, translog.Entry{Seq: seq, Hash: manifest.HashBytes(fmt.Appendf(nil, "%s %d", a.dir, seq)),
			File: fmt.Sprintf("traces/t%d.md", seq), Type: "knowledge", Submitted: time.Date(2026, 3, 1, 0, 0, int(seq), 0, time.UTC)})
	}
	files, err := translog.Update(nil, a.entries, skey)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string][]byte{node.IdentityFile: []byte("# IDENTITY\n\n" + translog.IdentityKey + ": " + vkey + "\n")}
	for name, data := range files {
		served[node.LogDir+"/"+name] = data
	}
	s.put(a.dir, served)
	return files[translog.CheckpointFile]
}

func TestRelayPublishesEachAgentCheckpointOnceItChanges(t *testing.T) {
	s := newSite(t)
	var agents []*logAgent
	var urls []string
	for _, dir := range []string{"a", "b", "c"} {
		a := newLogAgent(t, s, dir)
		a.publish(t, s, 1, a.skey, a.vkey)
		agents, urls = append(agents, a), append(urls, a.url)
	}
	skey, vkey := keyFor(t, s.url("relay"))
	p := &Poller{Client: testClient(), Pins: newPins(t), Logf: t.Logf}
	l := &Log{}
	run := func() (map[string][]byte, Polled) {
		polled := p.Poll(context.Background(), urls, l.Latest())
		files, err := l.Extend(polled.Entries, skey)
		if err != nil {
			t.Fatal(err)
		}
		return files, polled
	}
	files, polled := run()
	if len(polled.Entries) != 3 || polled.LeftOut != 0 {
		t.Fatalf("first run relayed %d checkpoints and left %d out, want 3 and 0", len(polled.Entries), polled.LeftOut)
	}
	again, polled := run()
	if len(polled.Entries) != 0 || !maps.EqualFunc(files, again, bytes.Equal) {
		t.Fatalf("a run with nothing new relayed %d entries or changed the log's files", len(polled.Entries))
	}
	want := agents[1].publish(t, s, 4, agents[1].skey, agents[1].vkey)
	c := agents[2]
	impostor, impostorV := keyFor(t, c.url)
	c.publish(t, s, 8, impostor, impostorV)
	files, polled = run()
	if len(polled.Entries) != 1 || polled.Entries[0].Agent != agents[1].url || polled.LeftOut != 1 {
		t.Fatalf("relayed %+v, left %d out; want agent b's new checkpoint only (c's is signed by a key no rotation announced)", polled.Entries, polled.LeftOut)
	}
	if pin := p.Pins.Get(c.url); pin.Alarm == nil || pin.Alarm.Kind != "key_change" {
		t.Fatalf("c's pin after a checkpoint of another key: %+v", pin)
	}
	opened, err := OpenLog(files, vkey)
	if err != nil {
		t.Fatal(err)
	}
	if got := opened.Latest()[agents[1].url]; !bytes.Equal(got, want) {
		t.Fatalf("the log reopened lists b at %q", got)
	}
	if _, err := OpenLog(files, keyOf(t, s.url("relay"))); err == nil {
		t.Fatal("a relay log opened with another key")
	}
}

func keyOf(t *testing.T, u string) string {
	_, vkey := keyFor(t, u)
	return vkey
}

// TestPollerLogsOneLineAtATime: the agents are polled concurrently, but
// Logf, here a writer no lock guards, as `meshnode relay`'s stderr, is
// called one line at a time (under -race, a concurrent call is caught),
// a line for each agent left out.
func TestPollerLogsOneLineAtATime(t *testing.T) {
	s := newSite(t)
	var urls []string
	for i := range 2 * pollers {
		urls = append(urls, s.url(fmt.Sprintf("gone%d", i)))
	}
	var lines []string
	p := &Poller{Client: testClient(), Pins: newPins(t), Logf: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }}
	polled := p.Poll(context.Background(), urls, nil)
	if polled.LeftOut != len(urls) || len(lines) != len(urls) {
		t.Fatalf("%d agents not reached: %d left out, %d lines logged:\n%s", len(urls), polled.LeftOut, len(lines), strings.Join(lines, "\n"))
	}
}

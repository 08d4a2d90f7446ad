package relay

import (
	"bytes"
	"context"
	"maps"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// serveAgent publishes a's IDENTITY.md and checkpoint on s under dir.
func serveAgent(t *testing.T, s *site, dir string, a *agent) {
	s.put(dir, map[string][]byte{
		node.IdentityFile:                []byte("# IDENTITY\n\nname: " + dir + "\n" + translog.IdentityKey + ": " + a.vkey + "\n"),
		"log/" + translog.CheckpointFile: a.checkpoint(t),
	})
}

func TestRelayPublishesEachAgentCheckpointOnceItChanges(t *testing.T) {
	s := newSite(t)
	var agents []*agent
	var urls []string
	for _, dir := range []string{"a", "b", "c"} {
		a := newAgent(t, s.url(dir))
		serveAgent(t, s, dir, a)
		agents, urls = append(agents, a), append(urls, a.url)
	}
	skey, vkey := keyFor(t, s.url("relay"))
	p := &Poller{Client: testClient(), Pins: newPins(t), Logf: t.Logf}
	l := &Log{}
	run := func() (map[string][]byte, []Entry) {
		add, _ := p.Poll(context.Background(), urls, l.Latest())
		files, err := l.Extend(add, skey)
		if err != nil {
			t.Fatal(err)
		}
		return files, add
	}
	files, add := run()
	if len(add) != 3 {
		t.Fatalf("first run relayed %d checkpoints, want 3", len(add))
	}
	again, add := run()
	if len(add) != 0 || !maps.EqualFunc(files, again, bytes.Equal) {
		t.Fatalf("a run with nothing new relayed %d entries or changed the log's files", len(add))
	}
	agents[1].size = 5
	serveAgent(t, s, "b", agents[1])
	impostor := newAgent(t, agents[2].url)
	impostor.size = 9
	s.put("c", map[string][]byte{"log/" + translog.CheckpointFile: impostor.checkpoint(t)})
	files, add = run()
	if len(add) != 1 || add[0].Agent != agents[1].url {
		t.Fatalf("relayed %+v, want agent b's new checkpoint only (c's is signed by another key)", add)
	}
	opened, err := OpenLog(files, vkey)
	if err != nil {
		t.Fatal(err)
	}
	if got := opened.Latest()[agents[1].url]; !bytes.Equal(got, agents[1].checkpoint(t)) {
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

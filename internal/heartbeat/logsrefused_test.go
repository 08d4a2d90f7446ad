package heartbeat

import (
	"testing"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
)

// TestAnUnpolledAgentsAlarmIsNotReportedUntilListedAgain: a person took
// an agent whose log is under an alarm out of AGENTS.md; it keeps its
// cursor and its pin, alarm and all. reportLogs reported every pin's
// alarm, so the summary listed that agent's refused log at every
// heartbeat, under an empty peer name. An agent not polled has no log
// read, none refused: its alarm is reported again, under its name, once
// it is listed again, and its evidence stays in its pin meanwhile.
func TestAnUnpolledAgentsAlarmIsNotReportedUntilListedAgain(t *testing.T) {
	p, _ := logPeerAt(t, 3, "/x/")
	listed := p.URL + "/x/"
	dir := newNode(t, [][2]string{{"big", listed}}, "gossip:\n  enabled: false\n")
	beat(t, dir, testNow)
	pins := loadPins(t, dir)
	pin := pins.Get(listed)
	if pin == nil {
		t.Fatal("setup: the agent's log is not pinned")
	}
	pin.Alarm = &logpin.Alarm{Kind: logpin.AlarmFork, Detail: "two roots", At: testNow}
	pins.Put(pin)
	if _, err := pins.Save(); err != nil {
		t.Fatal(err)
	}
	write(t, dir, node.AgentsFile, string(agentsFile()))
	if sum := beat(t, dir, testNow.Add(cursorStep)); len(sum.LogsRefused) != 0 {
		t.Errorf("an agent taken out of AGENTS.md has its log reported refused: %+v", sum.LogsRefused)
	}
	if got := loadPins(t, dir).Get(listed); got == nil || got.Alarm == nil {
		t.Fatalf("the unpolled agent's pin lost its alarm: %+v", got)
	}
	write(t, dir, node.AgentsFile, string(agentsFile([2]string{"big", listed})))
	sum := beat(t, dir, testNow.Add(2*cursorStep))
	if len(sum.LogsRefused) != 1 || sum.LogsRefused[0].Peer != "big" || sum.LogsRefused[0].URL != listed || sum.LogsRefused[0].Kind != logpin.AlarmFork {
		t.Errorf("listed again, its refused log is reported as %+v, want big at %s, a fork", sum.LogsRefused, listed)
	}
}

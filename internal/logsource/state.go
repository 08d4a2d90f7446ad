package logsource

import "fmt"

// State says in a few words how the node reads a peer, given its pin
// (nil when it has none): the one wording `meshnode peers`, the
// heartbeat's summary and the site show.
func State(p *Pin) string {
	switch {
	case p == nil || p.Key == "" && !p.Repin:
		return "manifest"
	case p.Repin:
		return "re-pinned: the next poll pins the key IDENTITY.md publishes"
	case p.Alarm != nil:
		return fmt.Sprintf("refused: %s (%s); run meshnode peers repin", p.Alarm.Kind, p.Alarm.Detail)
	default:
		return fmt.Sprintf("log: %d entries verified", p.tree().N)
	}
}

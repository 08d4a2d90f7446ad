package logpin

import "fmt"

// The beginnings of State's words for a peer read from MANIFEST.md and
// for one read from its log, for callers that single out the others.
const (
	StateManifest = "manifest"
	StateVerified = "log:"
)

// State says in a few words how the node reads a peer, given its pin
// (nil when it has none): the one wording `meshnode peers`, the
// heartbeat's summary and the site show.
func State(p *Pin) string {
	switch {
	case p == nil || p.Key == "" && !p.Repin:
		return StateManifest
	case p.Repin:
		return "re-pinned: the next poll pins the key IDENTITY.md publishes"
	case p.Alarm != nil && p.Alarm.Kind == AlarmRestart:
		return fmt.Sprintf("waiting for its operator: the log restarted under the key %s at size %d; check it with the peer's owner, then run meshnode peers repin", p.Alarm.Key, p.Alarm.Size)
	case p.Alarm != nil:
		return fmt.Sprintf("refused: %s (%s); see the evidence, then run meshnode peers repin", p.Alarm.Kind, p.Alarm.Detail)
	case p.Behind > 0:
		return fmt.Sprintf("%s %d of %d entries read", StateVerified, p.Size()-p.Behind, p.Size()) + p.mirrored()
	default:
		return fmt.Sprintf("%s %d entries verified", StateVerified, p.Size()) + p.mirrored()
	}
}

// mirrored says since when a peer is read from a mirror alone, if it is.
func (p *Pin) mirrored() string {
	if p.MirrorSince.IsZero() {
		return ""
	}
	return "; origin down, read from a mirror since " + p.MirrorSince.UTC().Format("2006-01-02 15:04 UTC")
}

// Size is the size of the tree last accepted, 0 before any.
func (p *Pin) Size() int64 {
	if len(p.Accepted) == 0 {
		return 0
	}
	return p.Accepted[len(p.Accepted)-1].Size
}

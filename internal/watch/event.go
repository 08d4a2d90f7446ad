package watch

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/peertext"
)

// Kinds of Event.
const (
	EventStarted   = "started"   // the watcher runs; Message says how
	EventStatus    = "status"    // Status holds the status line
	EventTick      = "tick"      // a heartbeat ran; Tick holds its counts
	EventOff       = "off"       // a tick came while polling is off: nothing polled
	EventBusy      = "busy"      // a tick was skipped: the node is busy
	EventAlert     = "alert"     // new items in the inbox, in Items
	EventDegraded  = "degraded"  // a peer (Peer, URL) or the network (no Peer) degraded
	EventRecovered = "recovered" // the same, recovered
	EventPoll      = "poll"      // a person changed polling: on, off, interval
	EventInbox     = "inbox"     // the inbox a person asked for, in Items
	EventHelp      = "help"      // the list of commands a person asked for, in Message
	EventSettled   = "settled"   // a person settled an item (Items holds it)
	EventReloaded  = "reloaded"  // mesh.yaml was read again (SIGHUP)
	EventError     = "error"     // a tick, a command or a reload failed; Message says why
	EventStopped   = "stopped"   // the watcher stopped on a signal
)

// Event is one thing the watcher tells a person, or a program reading its
// JSON lines (docs/watch.md).
type Event struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"event"`
	Message string    `json:"message"`
	Peer    string    `json:"peer,omitempty"`
	URL     string    `json:"url,omitempty"`
	Items   []Item    `json:"items,omitempty"`
	Tick    *Tick     `json:"tick,omitempty"`
	Status  *Status   `json:"status,omitempty"`
}

// Item is one inbox item as a person sees it.
type Item struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	From     string       `json:"from"`
	Seq      manifest.Seq `json:"seq,omitempty"`
	Status   string       `json:"status"`
	TraceURL string       `json:"trace_url"`
}

// Tick is what one heartbeat of the watcher did.
type Tick struct {
	PeersPolled int     `json:"peers_polled"`
	PeersFailed int     `json:"peers_failed"`
	NewTraces   int     `json:"new_traces"`
	Verified    int     `json:"verified"`
	Duplicates  int     `json:"duplicates"`
	Queued      int     `json:"queued"`
	Seconds     float64 `json:"seconds"`
	Interrupted bool    `json:"interrupted,omitempty"`
}

// Status is the status line: whether polling is on, when the next tick
// comes, how many items wait in the inbox, and which peers are degraded.
type Status struct {
	Polling  bool      `json:"polling"`
	Interval string    `json:"interval"`
	NextTick time.Time `json:"next_tick"`
	Running  bool      `json:"running"` // a heartbeat is running now
	Inbox    int       `json:"inbox"`   // items queued or in progress
	Degraded []string  `json:"degraded"`
}

// JSONLines returns an event sink that writes each event as one JSON line,
// for a program or a log reading stdout.
func JSONLines(w io.Writer) func(Event) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(e) //nolint:errcheck // a closed stdout leaves nobody to tell
	}
}

// Text returns an event sink that writes lines for a person at a terminal.
// Ticks while polling is off are left out: the status line says it. Every
// line that can hold a peer's text (an item, an alert, an error naming a
// peer) passes through peertext.Clean, so no escape sequence reaches the
// terminal; help is ours and keeps its lines.
func Text(w io.Writer) func(Event) {
	var mu sync.Mutex
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case EventOff:
		case EventStatus:
			line := e.Message
			if e.Status != nil {
				line = e.Status.Line()
			}
			fmt.Fprintf(w, "[%s]\n", peertext.Clean(line))
		case EventInbox:
			writeItems(w, e)
		case EventHelp:
			fmt.Fprintln(w, e.Message)
		default:
			fmt.Fprintf(w, "%s %s\n", e.Time.Local().Format("15:04:05"), peertext.Clean(e.Message))
		}
	}
}

func writeItems(w io.Writer, e Event) {
	if len(e.Items) == 0 {
		fmt.Fprintln(w, peertext.Clean(e.Message))
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tFROM\tSTATUS\tTRACE")
	for _, it := range e.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", peertext.Clean(it.ID), dash(peertext.Clean(it.Type)),
			peertext.Clean(it.From), peertext.Clean(it.Status), peertext.Clean(it.TraceURL))
	}
	tw.Flush()
}

// Line is the status line as a person reads it.
func (s *Status) Line() string {
	var b strings.Builder
	if s.Polling {
		fmt.Fprintf(&b, "polling on, every %s", s.Interval)
	} else {
		b.WriteString("polling off: type /poll on to start")
	}
	if s.Running {
		b.WriteString(" · polling now")
	} else if s.Polling {
		fmt.Fprintf(&b, " · next %s", s.NextTick.Local().Format("15:04:05"))
	}
	fmt.Fprintf(&b, " · inbox %d", s.Inbox)
	if len(s.Degraded) > 0 {
		fmt.Fprintf(&b, " · degraded: %s", strings.Join(s.Degraded, ", "))
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

package gitpush

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/actions"
)

// Markdown is the job summary of a heartbeat: a table of the counts, then
// tables of hash mismatches and failed polls, the unreachable peers and
// the spikes, when there are any. Peer-supplied text is escaped for table cells.
func Markdown(s *Summary) string {
	var b strings.Builder
	b.WriteString("### Heartbeat\n\n")
	b.WriteString(actions.Table([]string{"", "count"}, countRows(s)))
	if s.Waiting > 0 && s.WaitingReason != "" {
		fmt.Fprintf(&b, "\nScores wait: %s\n", actions.Cell(s.WaitingReason))
	}
	if s.StandingNext != "" {
		fmt.Fprintf(&b, "\nStanding: %s. Next: %s\n", actions.Cell(s.Standing), actions.Cell(s.StandingNext))
	}
	if len(s.HashMismatches) > 0 {
		b.WriteString("\n#### Hash mismatches\n\n")
		b.WriteString(actions.Table([]string{"peer", "seq", "file", "claimed", "served"}, mismatchRows(s)))
	}
	if len(s.Failures) > 0 {
		b.WriteString("\n#### Failed polls\n\n")
		b.WriteString(actions.Table([]string{"peer", "url", "error"}, failureRows(s)))
	}
	if len(s.Unreachable) > 0 {
		fmt.Fprintf(&b, "\n#### Unreachable peers\n\n%s\n", actions.Cell(strings.Join(s.Unreachable, ", ")))
	}
	if len(s.Spikes) > 0 {
		b.WriteString("\n#### Spikes (polled every heartbeat today)\n\n")
		b.WriteString(actions.Table([]string{"peer", "url", "new today", "daily average, 7 days before"}, spikeRows(s)))
	}
	return b.String()
}

func countRows(s *Summary) [][]string {
	counts := []struct {
		name string
		n    int
	}{
		{"peers polled", s.PeersPolled},
		{"peers skipped (quiet or backoff)", s.PeersSkipped},
		{"peers skipped as quiet", s.PeersQuiet},
		{"peers failed", s.PeersFailed},
		{"peers rate-limited (not a failure)", s.PeersRateLimited},
		{"peers learned", s.PeersLearned},
		{"new traces", s.NewTraces},
		{"new peer validations", s.NewValidations},
		{"verified", s.Verified},
		{"rejected (hash mismatch)", s.Rejected},
		{"already seen", s.Duplicates},
		{"seqs missing (gaps)", s.Gaps},
		{"queued for scoring", s.Queued},
		{"waiting for standing or a person", s.Waiting},
		{"validations published", s.ValidationsPublished},
		{"traces published", s.TracesPublished},
		{"disputes published", s.DisputesPublished},
	}
	rows := make([][]string, 0, len(counts))
	for _, c := range counts {
		rows = append(rows, []string{c.name, strconv.Itoa(c.n)})
	}
	return rows
}

func mismatchRows(s *Summary) [][]string {
	rows := make([][]string, 0, len(s.HashMismatches))
	for _, m := range s.HashMismatches {
		rows = append(rows, []string{m.Peer, strconv.Itoa(int(m.Seq)), m.URL, string(m.Claimed), string(m.Served)})
	}
	return rows
}

func failureRows(s *Summary) [][]string {
	rows := make([][]string, 0, len(s.Failures))
	for _, f := range s.Failures {
		rows = append(rows, []string{f.Peer, f.URL, f.Error})
	}
	return rows
}

func spikeRows(s *Summary) [][]string {
	rows := make([][]string, 0, len(s.Spikes))
	for _, sp := range s.Spikes {
		rows = append(rows, []string{sp.Peer, sp.URL, strconv.Itoa(sp.NewToday), strconv.FormatFloat(sp.DailyAvg7d, 'f', 1, 64)})
	}
	return rows
}

// Annotations turns what a person should look at into annotations on the
// run: an error for every hash mismatch (a peer serving bytes its MANIFEST
// does not vouch for), a warning for every unreachable peer and a notice
// for every spike.
func Annotations(s *Summary) []actions.Annotation {
	var out []actions.Annotation
	for _, m := range s.HashMismatches {
		out = append(out, actions.Annotation{
			Level:   actions.Error,
			Title:   fmt.Sprintf("hash mismatch: %s seq %d", m.Peer, m.Seq),
			Message: fmt.Sprintf("%s is listed as %s but served %s; rejected", m.URL, m.Claimed, m.Served),
		})
	}
	for _, p := range s.Unreachable {
		out = append(out, actions.Annotation{
			Level:   actions.Warning,
			Title:   "peer unreachable: " + p,
			Message: p + " has failed every poll for 30 days; it is retried weekly and its validated traces still count",
		})
	}
	for _, sp := range s.Spikes {
		out = append(out, actions.Annotation{
			Level:   actions.Notice,
			Title:   "spike: " + sp.Peer,
			Message: fmt.Sprintf("%s published %d new files today, %.1f a day over the week before; polled every heartbeat today", sp.URL, sp.NewToday, sp.DailyAvg7d),
		})
	}
	return out
}

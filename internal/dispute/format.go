package dispute

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Format writes d in the layout documented on the package. The same
// Dispute always gives the same bytes.
func (d *Dispute) Format() []byte {
	var b bytes.Buffer
	b.WriteString(Title + "\n\n")
	for _, kv := range d.pairs() {
		writeKey(&b, kv[0], kv[1])
	}
	b.WriteByte('\n')
	writeKey(&b, "notes", d.Notes)
	return b.Bytes()
}

// pairs lists the keys above notes, in order, with their values as text.
func (d *Dispute) pairs() [][2]string {
	return [][2]string{
		{"reporter", d.Reporter}, {"reporter_url", d.ReporterURL},
		{"agent", d.Agent}, {"agent_url", d.AgentURL}, {"file_url", d.FileURL},
		{"seq", strconv.Itoa(int(d.Seq))},
		{"claimed_hash", string(d.ClaimedHash)}, {"served_hash", string(d.ServedHash)},
		{"observed_at", formatTime(d.ObservedAt)},
	}
}

func writeKey(b *bytes.Buffer, key, value string) {
	if v := oneLine(value); v != "" {
		fmt.Fprintf(b, "%s: %s\n", key, v)
		return
	}
	fmt.Fprintf(b, "%s:\n", key)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

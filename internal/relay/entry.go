package relay

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/translog"
)

// agentPrefix starts an entry's first line.
const agentPrefix = "agent "

// Entry is one entry of a relay's log: an agent's signed checkpoint, as
// the relay read it at the agent's log/checkpoint, byte for byte.
type Entry struct {
	// Agent is the agent's trace URL, normalised (roster.NormalizeURL).
	Agent string
	// Checkpoint is the agent's signed checkpoint note, verbatim.
	Checkpoint []byte
}

// Marshal returns the entry's bytes: "agent <url>\n", then the signed
// checkpoint. The whole is at most translog.MaxEntryBytes.
func (e Entry) Marshal() ([]byte, error) {
	if err := checkAgent(e.Agent); err != nil {
		return nil, err
	}
	if err := checkNote(e.Checkpoint); err != nil {
		return nil, fmt.Errorf("relay entry of %s: %w", e.Agent, err)
	}
	out := append([]byte(agentPrefix+e.Agent+"\n"), e.Checkpoint...)
	if len(out) > translog.MaxEntryBytes {
		return nil, fmt.Errorf("relay entry of %s: %d bytes, more than %d", e.Agent, len(out), translog.MaxEntryBytes)
	}
	return out, nil
}

// ParseEntry reads an entry, and refuses any bytes Marshal would not
// write for it.
func ParseEntry(data []byte) (Entry, error) {
	if len(data) > translog.MaxEntryBytes {
		return Entry{}, fmt.Errorf("relay entry: %d bytes, more than %d", len(data), translog.MaxEntryBytes)
	}
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return Entry{}, errors.New("relay entry: no first line")
	}
	agent, ok := strings.CutPrefix(string(first), agentPrefix)
	if !ok {
		return Entry{}, fmt.Errorf("relay entry: first line is not %q", agentPrefix+"<url>")
	}
	e := Entry{Agent: agent, Checkpoint: bytes.Clone(rest)}
	again, err := e.Marshal()
	if err != nil {
		return Entry{}, err
	}
	if !bytes.Equal(again, data) {
		return Entry{}, errors.New("relay entry: not in canonical form")
	}
	return e, nil
}

// checkAgent refuses a URL that is not in roster's normal form.
func checkAgent(u string) error {
	n, err := roster.NormalizeURL(u)
	if err != nil {
		return fmt.Errorf("relay entry: agent %q: %w", u, err)
	}
	if n != u {
		return fmt.Errorf("relay entry: agent %q is not in normal form (%q)", u, n)
	}
	return nil
}

// checkNote refuses what cannot be a signed note: a text, a blank line,
// signature lines, ending in a newline, no other control character. The
// signatures are checked by the reader, with the agent's key.
func checkNote(b []byte) error {
	text, sigs, ok := bytes.Cut(b, []byte("\n\n"))
	switch {
	case !ok || len(text) == 0 || len(sigs) == 0:
		return errors.New("checkpoint is not a signed note (text, blank line, signatures)")
	case b[len(b)-1] != '\n':
		return errors.New("checkpoint does not end in a newline")
	case bytes.ContainsFunc(b, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }):
		return errors.New("checkpoint holds a control character")
	}
	return nil
}

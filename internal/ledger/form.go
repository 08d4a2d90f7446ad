package ledger

import (
	"encoding/json"
	"fmt"

	"github.com/meshnode/meshnode/internal/manifest"
)

// partForm is the form of a peer's file in which a trace record leaves
// out what its key and its peer give back: its hash when it is the key
// the record is filed under, and its URL when that is its peer's URL
// followed by its file (docs/decisions.md, "What a ledger record
// keeps"). Each new record is written into its peer's file, so what a
// record repeats is paid at every heartbeat with news. A file without a
// form is an older node's, whose records say all of it, and reads as it
// always did.
const partForm = 2

// part is a peer's file as it is encoded: its form, then its records.
type part struct {
	Form int `json:"form,omitempty"`
	*Ledger
}

// decodePart reads a peer's file, a segment or an older node's single
// file into in, an empty ledger, its trace records whole again when its
// form left out what gives them back: through readPart, which takes the
// strings many records repeat from strs when it is not nil, when the
// file is laid out as the node writes it, else through encoding/json.
func decodePart(data []byte, in *Ledger, strs interner) error {
	p := part{Ledger: in}
	if !readPart(data, &p, strs) {
		if err := json.Unmarshal(data, &p); err != nil {
			return err
		}
	}
	switch p.Form {
	case 0:
	case partForm:
		for k, t := range in.Traces {
			if t != nil {
				t.whole(k)
			}
		}
	default:
		return fmt.Errorf("ledger file of form %d, which this node does not know (it reads %d)", p.Form, partForm)
	}
	return nil
}

// encodePart is the bytes of a peer's ledger file: keys sorted,
// two-space indent, a final newline; in partForm when every trace record
// can be written so.
func encodePart(p *Ledger) ([]byte, error) {
	out := part{Ledger: p}
	if trimmed, ok := p.trimmed(); ok {
		out = part{Form: partForm, Ledger: trimmed}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode ledger: %w", err)
	}
	return append(data, '\n'), nil
}

// trimmed returns a copy of p whose trace records leave out what whole
// gives back, sharing p's other records; false when none leaves out
// anything, or when some record could not be told apart from one that
// did (an empty hash, a file without a URL): then the file keeps the
// older form.
func (p *Ledger) trimmed() (*Ledger, bool) {
	out := *p
	out.Traces = make(map[manifest.Hash]*Trace, len(p.Traces))
	left := false
	for k, t := range p.Traces {
		if t == nil {
			continue
		}
		if t.Hash == "" || (t.File != "" && t.URL == "") {
			return nil, false
		}
		c := *t
		if c.Hash == k {
			c.Hash, left = "", true
		}
		if c.URL != "" && c.URL == c.derivedURL() {
			c.URL, left = "", true
		}
		out.Traces[k] = &c
	}
	return &out, left
}

// derivedURL is the URL a trace record of partForm without one has: its
// peer's URL followed by its file, as the MANIFEST lists it; "" without
// a file.
func (t *Trace) derivedURL() string {
	if t.File == "" {
		return ""
	}
	return t.AgentURL + t.File
}

// whole puts back what partForm left out of t, filed under key k.
func (t *Trace) whole(k manifest.Hash) {
	if t.Hash == "" {
		t.Hash = k
	}
	if t.URL == "" {
		t.URL = t.derivedURL()
	}
}

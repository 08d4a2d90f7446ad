package scoreeval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Label values.
const (
	Pass = "pass" // the trace deserves to pass: a real agent validated or curated it
	Fail = "fail" // it does not: labelled by hand, with the reason
)

// Label is one judged trace of the snapshot.
type Label struct {
	Agent  string        `json:"agent"`
	Seq    manifest.Seq  `json:"seq"`
	File   string        `json:"file"`
	SHA256 manifest.Hash `json:"sha256"`
	Label  string        `json:"label"`
	Reason string        `json:"reason"`
	Source string        `json:"source"` // "verdict AGENT/SEQ (…)", "curated by AGENT", "hand"; several joined by "; "
	// Exempt, when set, says why a positive is left out of recall: a thin
	// pointer the node may rightly fail (docs/scoring.md names each).
	Exempt string `json:"exempt,omitempty"`
}

// Key identifies a label's trace.
func (l Label) Key() string { return l.Agent + "/" + l.File }

//go:embed labels.json
var labelsJSON []byte

// Labels returns the evaluation set.
func Labels() ([]Label, error) {
	return ParseLabels(labelsJSON)
}

// ParseLabels reads a labels file and checks every entry.
func ParseLabels(data []byte) ([]Label, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var ls []Label
	if err := dec.Decode(&ls); err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	seen := map[manifest.Hash]bool{}
	for i, l := range ls {
		switch {
		case l.Agent == "" || l.File == "" || l.Seq <= 0:
			return nil, fmt.Errorf("labels: entry %d: agent, file and seq are required", i)
		case l.Label != Pass && l.Label != Fail:
			return nil, fmt.Errorf("labels: %s: label %q is not pass or fail", l.Key(), l.Label)
		case strings.TrimSpace(l.Reason) == "" || strings.TrimSpace(l.Source) == "":
			return nil, fmt.Errorf("labels: %s: a reason and a source are required", l.Key())
		case !l.SHA256.Valid():
			return nil, fmt.Errorf("labels: %s: sha256 %q is not sha256:<64 hex>", l.Key(), l.SHA256)
		case seen[l.SHA256]:
			return nil, fmt.Errorf("labels: %s: hash listed twice", l.Key())
		}
		seen[l.SHA256] = true
	}
	return ls, nil
}

// FormatLabels writes labels sorted by agent and seq, one stable layout.
func FormatLabels(ls []Label) ([]byte, error) {
	out := append([]Label(nil), ls...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return out[i].Seq < out[j].Seq
	})
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

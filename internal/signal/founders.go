package signal

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

// FoundersFile is the mesh's founders declaration, at the root of every
// node of the mesh and served next to its MANIFEST.md
// (docs/decisions.md, Standing).
const FoundersFile = node.FoundersFile

// MaxFoundersBytes bounds FOUNDERS.md; a mesh has a handful of founders.
const MaxFoundersBytes = node.MaxFoundersBytes

// Declaration is a parsed FOUNDERS.md.
type Declaration struct {
	Founders []Founder
	// Hash is the sha256 of the file's bytes ("sha256:<hex>"): nodes
	// holding the same declaration compute the same SIGNAL, so the hash
	// names which mesh's SIGNAL a node computes. "" when there is no file.
	Hash manifest.Hash
}

// FoundersError is a FOUNDERS.md that does not parse: every problem, at
// its line.
type FoundersError struct {
	Problems []roster.Problem
}

func (e *FoundersError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s:%d: %s", FoundersFile, p.Line, p.Reason)
	}
	return b.String()
}

// ParseFounders reads a founders declaration: the AGENTS.md layout (one
// "name | trace_url" line per founder, "#" lines are comments). A line
// that is not a founder is an error rather than skipped: every node of a
// mesh must read the same founders from the same bytes, and a person
// must see a typo rather than a founder silently missing.
func ParseFounders(data []byte) (Declaration, error) {
	agents, problems := roster.Parse(data)
	if len(problems) > 0 {
		return Declaration{}, &FoundersError{Problems: problems}
	}
	d := Declaration{Hash: manifest.HashBytes(data)}
	for _, a := range agents {
		d.Founders = append(d.Founders, Founder{Name: a.Name, URL: a.URL})
	}
	return d, nil
}

// FormatFounders writes a founders declaration naming founders, with a
// comment that says what the file is.
func FormatFounders(founders []Founder) []byte {
	var b strings.Builder
	b.WriteString(foundersHeader)
	for _, f := range founders {
		fmt.Fprintf(&b, "%s | %s\n", f.Name, f.URL)
	}
	return []byte(b.String())
}

const foundersHeader = `# FOUNDERS
#
# The founders of this mesh: their validations count from the start. Every
# other agent earns standing (the right to validate) when agents with
# standing have validated enough of its traces to bring its SIGNAL to 50.
# Every node of a mesh holds this file byte for byte; a node that holds
# another one computes another mesh's SIGNAL. Change it only as the mesh
# agrees. docs/decisions.md (Standing) in meshnode's repository.
#
# name | trace_url
`

// ReadFounders reads dir's FOUNDERS.md (node.ReadFounders). A node
// without one has an empty declaration: no founders, so no agent has
// standing.
func ReadFounders(dir string) (Declaration, error) {
	data, err := node.ReadFounders(dir)
	if err != nil || data == nil {
		return Declaration{}, err
	}
	return ParseFounders(data)
}

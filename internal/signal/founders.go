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
	// Rules is the name of the rule set the mesh computes with: its
	// "rules:" line, else DefaultRules. It may name a rule set this node
	// does not implement (RulesNamed says).
	Rules string
	// RulesDeclared is true when the file has a "rules:" line.
	RulesDeclared bool
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

// ParseFounders reads a founders declaration: at most one "rules: NAME"
// line naming the mesh's rule set, and the AGENTS.md layout (one
// "name | trace_url" line per founder, "#" lines are comments). A line
// that is neither is an error rather than skipped: every node of a
// mesh must read the same founders and rules from the same bytes, and a
// person must see a typo rather than a founder silently missing.
func ParseFounders(data []byte) (Declaration, error) {
	d := Declaration{Hash: manifest.HashBytes(data), Rules: DefaultRules}
	rest, problems := d.takeRules(data)
	agents, more := roster.Parse(rest)
	if problems = append(problems, more...); len(problems) > 0 {
		return Declaration{}, &FoundersError{Problems: problems}
	}
	for _, a := range agents {
		d.Founders = append(d.Founders, Founder{Name: a.Name, URL: a.URL})
	}
	return d, nil
}

// takeRules reads the "rules:" line of a founders declaration into d and
// returns the file with that line blanked (so the founders' lines keep
// their numbers), and the problems of rules lines.
func (d *Declaration) takeRules(data []byte) ([]byte, []roster.Problem) {
	lines := strings.Split(string(data), "\n")
	var problems []roster.Problem
	for i, l := range lines {
		v, ok := strings.CutPrefix(strings.TrimSpace(l), rulesKey)
		if !ok {
			continue
		}
		lines[i] = ""
		name := strings.TrimSpace(v)
		switch {
		case d.RulesDeclared:
			problems = append(problems, roster.Problem{Line: i + 1, Reason: "a second rules line; a mesh has one rule set"})
		case !validRulesName.MatchString(name):
			problems = append(problems, roster.Problem{Line: i + 1, Reason: fmt.Sprintf("rules %q is not a rule-set name (such as %s)", clip(name), NewMeshRules)})
		default:
			d.Rules, d.RulesDeclared = name, true
		}
	}
	return []byte(strings.Join(lines, "\n")), problems
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// FormatFounders writes a founders declaration of a mesh computing with
// the rule set named rules, naming founders, with a comment that says
// what the file is.
func FormatFounders(rules string, founders []Founder) []byte {
	var b strings.Builder
	b.WriteString(foundersHeader)
	fmt.Fprintf(&b, "%s %s\n\n# name | trace_url\n", rulesKey, rules)
	for _, f := range founders {
		fmt.Fprintf(&b, "%s | %s\n", f.Name, f.URL)
	}
	return []byte(b.String())
}

const foundersHeader = `# FOUNDERS
#
# The founders of this mesh: their validations count from the start. Every
# other agent earns standing (the right to validate) when agents with
# standing have validated enough of its traces, as the rules line says.
# Every node of a mesh holds this file byte for byte; a node that holds
# another one computes another mesh's SIGNAL. Change it only as the mesh
# agrees. The rules line names the rule set every node of the mesh
# computes SIGNAL with. docs/decisions.md (Standing, Rule sets) in
# meshnode's repository.

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

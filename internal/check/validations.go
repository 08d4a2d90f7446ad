package check

import (
	"path"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/validation"
)

// validation checks one validation file: its format and consistency, that
// it is ours, and that it scores a verified trace of somebody else, once.
// Every problem is reported, each once: the format's (validation.Diagnose)
// first, then the rules that need a well-formed trace_hash.
func (c *checker) validation(f string, data []byte) {
	v, problems := validation.Diagnose(data)
	for _, msg := range problems {
		c.add(f, lineFor(data, msg), "%s", msg)
	}
	if v == nil {
		return
	}
	c.validator(f, data, v)
	if !v.TraceHash.Valid() {
		return // Diagnose said so: no trace to look up
	}
	c.vals = append(c.vals, f)
	c.name(f, data, v)
	c.target(f, data, v)
}

// validator checks that the validation is this node's: a pull request may
// add only the node's own validations (manual scores).
func (c *checker) validator(f string, data []byte, v *validation.Validation) {
	if v.Validator != "" && !strings.EqualFold(v.Validator, c.o.Agent) {
		c.add(f, lineOf(data, "validator"), "validator is %q, but this node is %q: a pull request may add only this node's validations", v.Validator, c.o.Agent)
	}
	if v.ValidatorURL != "" && trimSlash(v.ValidatorURL) != trimSlash(c.o.URL) {
		c.add(f, lineOf(data, "validator_url"), "validator_url is %s, but this node's url is %s", v.ValidatorURL, c.o.URL)
	}
}

// name checks the file name (val-<12 hex>.md) and that no other file,
// changed or not, scores the same trace: one validator, one validation per
// trace hash.
func (c *checker) name(f string, data []byte, v *validation.Validation) {
	line := lineOf(data, "trace_hash", "hash")
	if want := validation.FileName(v.TraceHash); path.Base(f) != want {
		c.add(f, line, "file name should be %s for trace_hash %s", want, v.TraceHash)
	}
	for _, other := range c.byHash[v.TraceHash] {
		if other != f {
			c.add(f, line, "%s also validates trace_hash %s: one validation per trace, delete one", other, v.TraceHash)
		}
	}
}

// target checks that the scored trace was fetched and its hash verified by
// the heartbeat, and that it is not ours.
func (c *checker) target(f string, data []byte, v *validation.Validation) {
	hashLine, urlLine := lineOf(data, "trace_hash", "hash"), lineOf(data, "trace_url", "trace")
	if c.self(v) {
		c.add(f, urlLine, "self-validation: %s is this node's own trace; never validate your own trace", orHash(v))
		return
	}
	t := c.ledger.Traces[v.TraceHash]
	if c.rejected(v.TraceHash, t) {
		c.add(f, hashLine, "trace_hash %s was rejected: the bytes served did not match it; never validate a trace whose hash did not verify", v.TraceHash)
		return
	}
	switch {
	case t == nil:
		c.add(f, hashLine, "trace_hash %s is not in %s: validate only traces the heartbeat fetched and verified", v.TraceHash, node.LedgerFile)
	case !t.Verified:
		c.add(f, hashLine, "trace_hash %s was never verified (its MANIFEST row names no file to fetch)", v.TraceHash)
	case v.TraceURL != "" && t.URL != "" && v.TraceURL != t.URL:
		c.add(f, urlLine, "trace_url %s is not where trace_hash %s was fetched (%s)", v.TraceURL, v.TraceHash, t.URL)
	}
}

// rejected reports whether a hash mismatch bars validating the trace of
// hash h, t its record (nil: none): a file of its author claimed h and
// served other bytes (ledger.Rejection.Against), or, while no file
// verified with h, any file did. A mismatch of another agent's file
// naming h says nothing of bytes that verified.
func (c *checker) rejected(h manifest.Hash, t *ledger.Trace) bool {
	for _, r := range c.ledger.Rejected {
		if r.ClaimedHash == h && (t == nil || !t.Verified || r.Against(t)) {
			return true
		}
	}
	return false
}

// self reports whether the validation scores one of our own traces: by our
// MANIFEST, by the ledger's author, or by the trace URL.
func (c *checker) self(v *validation.Validation) bool {
	if c.own[v.TraceHash] {
		return true
	}
	if t := c.ledger.Traces[v.TraceHash]; t != nil && (strings.EqualFold(t.Agent, c.o.Agent) || trimSlash(t.AgentURL) == trimSlash(c.o.URL)) {
		return true
	}
	return c.o.URL != "" && strings.HasPrefix(v.TraceURL, trimSlash(c.o.URL)+"/")
}

func trimSlash(u string) string { return strings.TrimRight(u, "/") }

func orHash(v *validation.Validation) string {
	if v.TraceURL != "" {
		return v.TraceURL
	}
	return string(v.TraceHash)
}

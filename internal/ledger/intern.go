package ledger

import (
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// A ledger loaded from years of history holds hundreds of thousands of
// records, and the JSON decoder gives each of them its own copy of every
// string: the agent's name and URL in each of its records, the type and
// category, a trace's hash once as its key and once as its field, a
// validation's trace hash and URL once more. Load keeps one copy of each
// (docs/decisions.md, "Memory"): the same values, held once.

// interner holds one copy of each string it was given.
type interner map[string]string

// of is s, or the copy of s the interner holds; the first s it is given
// becomes that copy.
func (in interner) of(s string) string {
	if s == "" {
		return s
	}
	if c, ok := in[s]; ok {
		return c
	}
	in[s] = s
	return s
}

// ledger makes the records of l share their repeated strings: the few
// values many records name through in, a trace's hash with its key.
func (in interner) ledger(l *Ledger) {
	for k, t := range l.Traces {
		in.trace(t)
		if k == t.Hash {
			t.Hash = k
		}
	}
	for k, t := range l.Copies {
		in.trace(t)
		t.Hash = manifest.Hash(suffixOf(k, string(t.Hash)))
	}
	for k, v := range l.Validations {
		v.Validator, v.ValidatorURL = in.of(v.Validator), in.of(v.ValidatorURL)
		v.Result = in.of(v.Result)
		v.SourceHash = manifest.Hash(suffixOf(k, string(v.SourceHash)))
	}
}

// suffixOf is s, the end of key's bytes when key ends in it: a copy's
// and a validation's key end in a hash the record holds, which need not
// be held twice.
func suffixOf(key, s string) string {
	if s != "" && strings.HasSuffix(key, s) {
		return key[len(key)-len(s):]
	}
	return s
}

// trace makes t's agent, its URL, type, category, status, take-down and
// verdicts' strings the interner's.
func (in interner) trace(t *Trace) {
	t.Agent, t.AgentURL = in.of(t.Agent), in.of(t.AgentURL)
	t.Type, t.Category = in.of(t.Type), in.of(t.Category)
	t.Status, t.TakenDown = manifest.Status(in.of(string(t.Status))), in.of(t.TakenDown)
	for i := range t.Verdicts {
		t.Verdicts[i].Agent, t.Verdicts[i].Result = in.of(t.Verdicts[i].Agent), in.of(t.Verdicts[i].Result)
	}
}

// shareTraceStrings makes each validation's trace hash and trace URL the
// strings of the trace it names, when the ledger holds that trace.
func (l *Ledger) shareTraceStrings() {
	for _, v := range l.Validations {
		t := l.Traces[v.TraceHash]
		if t == nil || t.Hash != v.TraceHash {
			continue
		}
		v.TraceHash = t.Hash
		if v.TraceURL == t.URL {
			v.TraceURL = t.URL
		}
	}
}

// bytes is the copy of b the interner holds, made from b the first time.
func (in interner) bytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if c, ok := in[string(b)]; ok {
		return c
	}
	s := string(b)
	in[s] = s
	return s
}

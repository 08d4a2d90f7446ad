package signal

import (
	"path"
	"strconv"
	"strings"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/validation"
	"github.com/meshnode/meshnode/internal/verdict"
)

// verdictVotes turns the verdicts the traces give (ledger.Trace.Verdicts)
// into votes, as if each were a validation file its author published
// with the trace: valid a pass, invalid a fail, dated by the trace's
// submitted time. A partial verdict, and one whose agent/seq resolves to
// no trace or to more than one, is no vote (docs/decisions.md, "Verdict
// traces").
func (m *mesh) verdictVotes() []*ledger.Validation {
	var targets targets // made at the first verdict: most meshes have none
	var vals []ledger.Validation
	for t := range m.listings() {
		for _, v := range t.Verdicts {
			var result string
			switch verdict.Result(v.Result) {
			case verdict.Valid:
				result = validation.ResultPass
			case verdict.Invalid:
				result = validation.ResultFail
			default:
				continue
			}
			if targets == nil {
				targets = m.targets()
			}
			h, ok := targets.resolve(v.Agent, v.Seq)
			if !ok {
				continue
			}
			vals = append(vals, ledger.Validation{
				Validator: t.Agent, ValidatorURL: t.AgentURL, TraceURL: m.traceURL(h), TraceHash: h,
				Result: result, ValidatedAt: t.Submitted, SourceURL: t.URL, SourceHash: t.Hash,
			})
		}
	}
	// One array, pointed into: under mesh-2026-4 a mesh, and these, are
	// made once per epoch.
	out := make([]*ledger.Validation, len(vals))
	for i := range vals {
		out[i] = &vals[i]
	}
	return out
}

// traceURL is the URL of the trace with hash h, "" for none.
func (m *mesh) traceURL(h manifest.Hash) string {
	if i, ok := m.byHash[h]; ok {
		return m.traces[i].URL
	}
	return ""
}

// targets indexes the traces by what a verdict may mean by agent/N: the
// author's row with seq N, and the author's file numbered N
// ("traces/014-trace.md"). Agents number their files themselves, and not
// always as their seqs (noobagent's file 030 is its seq 31).
// Only whether agent/N names one hash or more is kept, not which others.
type targets map[targetKey]target

// targetKey is what a verdict names: an agent, lowercased, and a number.
type targetKey struct {
	agent string
	n     int
}

// target is the hash a targetKey names, and whether it names another too.
type target struct {
	hash manifest.Hash
	many bool
}

func (m *mesh) targets() targets {
	ts := make(targets, len(m.traces)) // most agents number their files as their seqs: one key per listing
	add := func(name string, n int, h manifest.Hash) {
		k := targetKey{name, n}
		if t, ok := ts[k]; !ok {
			ts[k] = target{hash: h}
		} else if t.hash != h {
			ts[k] = target{hash: t.hash, many: true}
		}
	}
	for t := range m.listings() {
		name := strings.ToLower(strings.TrimSpace(t.Agent))
		add(name, int(t.Seq), t.Hash)
		if n, ok := fileNumber(t.File); ok {
			add(name, n, t.Hash)
		}
	}
	return ts
}

// resolve returns the one trace agent/n names, or false when it names
// none or more than one.
func (ts targets) resolve(agent string, n int) (manifest.Hash, bool) {
	t, ok := ts[targetKey{strings.ToLower(agent), n}]
	if !ok || t.many {
		return "", false
	}
	return t.hash, true
}

// fileNumber reads the number a file name starts with: 14 of
// "traces/014-trace.md". A name that does not start with digits followed
// by '-', '_' or '.' has none.
func fileNumber(file string) (int, bool) {
	base := path.Base(file)
	i := 0
	for i < len(base) && i < 9 && base[i] >= '0' && base[i] <= '9' {
		i++
	}
	if i == 0 || i == len(base) || !strings.ContainsRune("-_.", rune(base[i])) {
		return 0, false
	}
	n, err := strconv.Atoi(base[:i])
	return n, err == nil && n > 0
}

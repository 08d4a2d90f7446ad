package audit

import (
	"path"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/validation"
)

// Outside is one of the audited node's validations of a trace whose jury
// does not name it, nor its reserve under mesh-2026-6 and later, nor its
// late reserve under mesh-2026-7 with the validation dated from the late
// epoch on (mesh-2026-4 and later: docs/protocol.md §8.8). It is allowed
// (a person may score anything) and counts for nothing, so it is listed,
// not a problem.
type Outside struct {
	Seq         manifest.Seq  `json:"seq"`
	File        string        `json:"file"`
	TraceHash   manifest.Hash `json:"trace_hash"`
	Jury        []string      `json:"jury"`
	Reserve     []string      `json:"reserve,omitempty"`
	LateReserve []string      `json:"late_reserve,omitempty"`
}

// outside lists, in MANIFEST order, the validations the audited node
// publishes of traces whose jury and reserve in full do not name it, nor
// its late reserve when dated from the late epoch on; none under a rule
// set that assigns nothing.
func outside(pub *public, full signal.Report) []Outside {
	juries := map[manifest.Hash]signal.TraceResult{}
	for _, t := range full.Traces {
		if t.Jury != nil {
			juries[t.Hash] = t
		}
	}
	if len(juries) == 0 {
		return nil
	}
	self, _ := signal.Self(full, pub.url)
	var out []Outside
	for _, e := range pub.manifest.Entries {
		if path.Dir(e.File) != node.ValidationsDir {
			continue
		}
		v, err := validation.Parse(pub.files[e.File])
		if err != nil {
			continue
		}
		if j, ok := juries[v.TraceHash]; ok && !seated(j, self.Agent, v.ValidatedAt) {
			out = append(out, Outside{Seq: e.Seq, File: e.File, TraceHash: v.TraceHash, Jury: j.Jury, Reserve: j.Reserve, LateReserve: j.LateReserve})
		}
	}
	return out
}

// seated reports whether agent's vote on the trace t, dated at, is
// assigned: it is on t's jury or reserve, or on its late reserve with at
// in the late epoch or after (an undated vote is not).
func seated(t signal.TraceResult, agent string, at time.Time) bool {
	if slices.Contains(t.Jury, agent) || slices.Contains(t.Reserve, agent) {
		return true
	}
	return slices.Contains(t.LateReserve, agent) && !at.IsZero() && !at.Before(t.LateReserveFrom)
}

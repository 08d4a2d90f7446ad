package publish

import (
	"fmt"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/trace"
)

// StatusPublished is the status of a row that is not a trace (a
// validation or a dispute): it is never validated itself, so it awaits
// nothing (docs/protocol.md §3.1). Readers tell such rows apart by their
// file's directory (node.KindOf), never by this status.
const (
	StatusPublished manifest.Status = "published"
	// DefaultType is the type of a trace whose metadata names none: the
	// most common type on the real mesh (415 of 856 corpus rows).
	DefaultType = "knowledge"
)

// carryRows copies the published rows into m with their seq, hash, file,
// type and submitted time unchanged, and their status brought up to date.
// It reports whether any status changed.
func carryRows(m, old *manifest.Manifest, statuses map[manifest.Hash]manifest.Status) bool {
	changed := false
	for _, e := range old.Entries {
		s := statusFor(e, statuses)
		if s != e.Status {
			changed = true
		}
		e.Status = s
		m.Entries = append(m.Entries, e)
	}
	return changed
}

// statusFor decides a row's status by what it publishes (node.KindOf): a
// "validation" trace in traces/ (real agents write them) is still a trace
// awaiting validation.
func statusFor(e manifest.Entry, statuses map[manifest.Hash]manifest.Status) manifest.Status {
	if node.KindOf(e) != node.KindTrace {
		return StatusPublished
	}
	switch s := statuses[e.Hash]; s {
	case manifest.StatusValidated, manifest.StatusFailed, manifest.StatusContested:
		return s
	default:
		return manifest.StatusPending
	}
}

// addNewFiles publishes every own file the MANIFEST does not list yet,
// from seq next on, in ownFiles order.
func addNewFiles(m *manifest.Manifest, res *Result, s *node.Snapshot, o Options, next manifest.Seq) error {
	listed := map[string]bool{}
	for _, e := range s.Rows() {
		listed[e.File] = true
	}
	res.Held = append(res.Held, linkedTopFiles(s.Dir)...)
	for _, h := range s.Held() {
		res.Held = append(res.Held, Held{File: h.Path, Reason: h.Reason})
	}
	for _, f := range s.Files("") {
		if listed[f.Path] {
			continue
		}
		e, reason := newRow(s, o, f)
		if reason != "" {
			res.Held = append(res.Held, Held{File: f.Path, Reason: reason})
			continue
		}
		e.Seq = next
		next++
		m.Entries = append(m.Entries, e)
		res.NewFiles = append(res.NewFiles, e)
	}
	return nil
}

// addRows publishes rows, from seq next on.
func addRows(m *manifest.Manifest, res *Result, rows []manifest.Entry, next manifest.Seq) {
	for _, e := range rows {
		e.Seq = next
		next++
		m.Entries = append(m.Entries, e)
		res.NewFiles = append(res.NewFiles, e)
	}
}

// newRow builds the row of a file about to be published, or says why it
// must wait.
func newRow(s *node.Snapshot, o Options, f node.File) (manifest.Entry, string) {
	if f.Err != nil {
		return manifest.Entry{}, fmt.Sprintf("%v; peers refuse a file that large", f.Err)
	}
	e := manifest.Entry{Hash: f.Hash, File: f.Path, Submitted: stamp(o.Now), Status: StatusPublished}
	switch node.KindOf(e) {
	case node.KindValidation:
		e.Type = node.TypeValidation
		if _, err := s.Validation(f); err != nil {
			return e, fmt.Sprintf("not a validation: %v", err)
		}
	case node.KindDispute:
		e.Type = node.TypeDispute
	default:
		t, err := s.Trace(f.Path)
		if err != nil {
			return e, fmt.Sprintf("not a trace: %v", err)
		}
		if isDraft(t) {
			return e, "draft: true in its metadata; remove that line when the trace is ready"
		}
		e.Type = typeOf(t)
		e.Status = statusFor(e, o.Statuses)
	}
	return e, ""
}

func isDraft(t *trace.Trace) bool {
	d := strings.ToLower(strings.TrimSpace(t.Fields["draft"]))
	return d == "true" || d == "yes"
}

// maxTypeBytes bounds a trace's type in its MANIFEST row, so that a row
// is at most about 330 bytes and MANIFEST.md's 9,999 rows stay under
// limits.manifest_bytes (archive). The longest type on the real mesh has
// 12 bytes.
const maxTypeBytes = 64

// typeOf is a trace's type as a MANIFEST cell: lower case, one word, at
// most maxTypeBytes, so that no author can break or bloat the table.
func typeOf(t *trace.Trace) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(t.Type)) {
		if b.Len() == maxTypeBytes {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	if b.Len() == 0 {
		return DefaultType
	}
	return b.String()
}

package ledger

// Supersede records t, a verified file, in place of the record of its hash
// that a row without a file column of another agent gave: an unverified
// record is no claim on bytes another agent served and verified
// (docs/decisions.md, "Copies"), so nothing of it is kept, neither merged
// into t nor as that agent's copy. Had t been read first, that row would
// never have been recorded; the ledger now holds what it would hold then.
func (l *Ledger) Supersede(t *Trace) {
	if old := l.Traces[t.Hash]; old != nil && old.AgentURL != t.AgentURL && !old.Verified {
		// A sealed record's peer gives its segments back to its file,
		// which Save then writes without it.
		l.movedFrom(old.AgentURL, t.AgentURL, old)
		l.touch(old.AgentURL)
		delete(l.Traces, t.Hash)
	}
	l.AddTrace(t)
}

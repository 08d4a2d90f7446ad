package ledger

import (
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestListedByReadsTheRecordAndTheListersCopies: an agent lists a trace
// when the ledger's record of its hash is the agent's (withdrawn or not,
// said apart), or the agent's copy of it is not withdrawn; an earlier
// spelling of the agent's URL is the agent's too.
func TestListedByReadsTheRecordAndTheListersCopies(t *testing.T) {
	h := manifest.HashBytes([]byte("bytes"))
	const author, mirror, stranger = "https://author.example/", "https://mirror.example/", "https://stranger.example/"
	for _, tc := range []struct {
		name              string
		record, copy      string // TakenDown of the author's record and the mirror's copy; "-" for none
		url               string
		listed, withdrawn bool
	}{
		{"the record's lister", "", "-", author, true, false},
		{"the record's lister, under an earlier spelling", "", "-", "HTTPS://author.example:443/", true, false},
		{"the record's lister, withdrawn", Withdrawn, "-", author, true, true},
		{"the record's lister, disputed", Disputed, "-", author, true, false},
		{"a copy's lister", "", "", mirror, true, false},
		{"a copy's lister that withdrew it", "", Withdrawn, mirror, false, false},
		{"an agent with no record", "", "", stranger, false, false},
		{"no record at all", "-", "-", author, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New()
			if tc.record != "-" {
				l.AddTrace(&Trace{Agent: "author", AgentURL: author, Hash: h, Seq: 1, Verified: true})
				l.TakeDown(h, tc.record)
			}
			if tc.copy != "-" {
				l.AddCopy(&Trace{Agent: "mirror", AgentURL: mirror, Hash: h, Seq: 1, Verified: true})
				l.TakeDownCopy(mirror, h, tc.copy)
			}
			listed, withdrawn := l.ListedBy(tc.url, h)
			if listed != tc.listed || withdrawn != tc.withdrawn {
				t.Errorf("ListedBy = %v, %v; want %v, %v", listed, withdrawn, tc.listed, tc.withdrawn)
			}
		})
	}
}

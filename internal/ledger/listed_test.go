package ledger

import (
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestListedByReadsTheRecordAndTheListersCopies: an agent lists a trace
// when the ledger's record of its hash is the agent's (withdrawn or not,
// said apart), or the agent's copy of it is not withdrawn; an earlier
// spelling of the agent's URL is not (a respelled agent's queue items
// move with its records: the heartbeat's moveAgent).
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
		{"the record's lister, under an earlier spelling", "", "-", "HTTPS://author.example:443/", false, false},
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

// TestDropTraceListingsLeavesOnlyThePublishersListing: bytes an agent
// publishes as its validation or dispute are no other agent's trace:
// every other agent's record of them as a trace goes, the record in
// Traces and the copies; the publisher's own listing of them as a trace
// stays, promoted into Traces when it was a copy.
func TestDropTraceListingsLeavesOnlyThePublishersListing(t *testing.T) {
	h := manifest.HashBytes([]byte("a validation"))
	const publisher, mallory, mirror = "https://publisher.example/", "https://mallory.example/", "https://mirror.example/"
	for _, tc := range []struct {
		name       string
		first      string   // lister of the record in Traces, "" for none
		copies     []string // listers of copies
		wantGone   []string
		wantRecord string // lister of the record in Traces after, "" for none
	}{
		{"no record", "", nil, nil, ""},
		{"another agent's record", mallory, nil, []string{mallory}, ""},
		{"another agent's record and copies", mallory, []string{mirror}, []string{mallory, mirror}, ""},
		{"the publisher's own record", publisher, []string{mirror}, nil, publisher},
		{"the publisher's copy", mallory, []string{publisher, mirror}, []string{mallory, mirror}, publisher},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New()
			if tc.first != "" {
				l.AddTrace(&Trace{AgentURL: tc.first, Hash: h, Seq: 1, Verified: true})
			}
			for _, c := range tc.copies {
				l.AddCopy(&Trace{AgentURL: c, Hash: h, Seq: 2, Verified: true})
			}
			gone := l.DropTraceListings(h, publisher)
			if !slices.Equal(gone, tc.wantGone) {
				t.Errorf("dropped %v, want %v", gone, tc.wantGone)
			}
			got := ""
			if t := l.Traces[h]; t != nil {
				got = t.AgentURL
			}
			if got != tc.wantRecord {
				t.Errorf("record in Traces by %q, want %q", got, tc.wantRecord)
			}
			for _, c := range l.Copies {
				if c.Hash == h && tc.first != publisher {
					t.Errorf("a copy by %s is left", c.AgentURL)
				}
			}
		})
	}
}

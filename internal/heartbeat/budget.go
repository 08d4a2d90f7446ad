package heartbeat

import "github.com/meshnode/meshnode/internal/manifest"

// What one peer may cost in one heartbeat (docs/decisions.md, "Budgets";
// docs/security.md). A poll that reaches one stops before the entry that
// does not fit and leaves it, and everything after it, for the next
// heartbeat (plan.cut): nothing is dropped, and an unchanged manifest is
// read again until the peer is read in full.
const (
	// maxEntriesPerPoll bounds the manifest rows one poll works on: files
	// fetched, whatever came of them, and rows recorded without a file.
	// Each is at most one ledger entry and one request, so a peer listing
	// 100,000 rows adds at most this many, and a 6,000-row peer is read in
	// two heartbeats.
	maxEntriesPerPoll = 5000
	// maxUnverifiedPerPoll bounds the rows without a file column (the
	// legacy layout) recorded per poll. They cost a peer nothing to list
	// and can never be verified, so they get a tenth of the budget of
	// files; no manifest of the real mesh uses that layout any more.
	maxUnverifiedPerPoll = 500
	// maxUnverifiedPerPeer bounds those rows the ledger keeps of one peer
	// in all; later ones are passed over, not carried, since they will
	// never be verifiable. Without it 20 such peers at limits.manifest_bytes
	// grow ledger.json by 4 MB a heartbeat to 350 MB.
	maxUnverifiedPerPeer = 2000
	// maxDisputesPerPoll bounds the hash mismatches one poll records. Each
	// becomes a rejection in the ledger and a dispute file and row in our
	// own MANIFEST.md, so a peer listing thousands of wrong hashes would
	// otherwise have us publish thousands of files in one heartbeat.
	maxDisputesPerPoll = 10
	// maxDisputesPerPeer bounds the disputes we publish about one peer in
	// all, as maxUnverifiedPerPeer bounds its unverifiable rows: each is a
	// file and a row of our MANIFEST.md forever, and a hundred already say
	// all there is to say about a peer's hashes. Past it, mismatches are
	// still rejected and reported in the summary, but neither recorded
	// nor disputed. Five peers listing 6,000 wrong hashes each otherwise
	// had us publish 7,500 files in 150 heartbeats. The same number bounds
	// the disputes by one peer the ledger keeps (recordDispute): a peer
	// publishing thousands of disputes costs us a hundred records.
	maxDisputesPerPeer = 100
	// maxBytesPerPoll bounds the bytes of one peer's files one poll
	// fetches, its share of a heartbeat's fetching: 5,000 files of 6.5 KiB,
	// where the real mesh's 859 traces average 4.6 KiB and the largest is
	// 39 KiB. The file that crosses it is left for the next heartbeat.
	maxBytesPerPoll = 32 << 20
)

// Limits on the whole heartbeat's polls rather than one peer's.
const (
	// maxParseBytes bounds the bytes of the manifests being parsed and
	// planned at once. A manifest takes about ten times its size while it
	// is (43,000 rows of 4 MiB: 40 MB), so 20 peers each at
	// limits.manifest_bytes would take 800 MB together; one at a time, 40 MB
	// (bench/hostile.sh). The real mesh's manifests (38 KiB at most) seldom
	// wait.
	maxParseBytes = 4 << 20
	// maxProblemLogs bounds the skipped manifest lines, and apart the
	// problems with its files, logged per peer and heartbeat; the rest are
	// counted in one line, so a hostile peer cannot flood the log.
	maxProblemLogs = 10
)

// budget is what one poll has spent, and the heartbeat's budget it shares
// with the other polls.
type budget struct {
	node                          *nodeBudget
	entries, unverified, disputes int
	bytes                         int64
}

// spent reports whether no further file can be taken, so none need be
// fetched.
func (b *budget) spent() bool {
	return b.entries >= maxEntriesPerPoll || b.bytes >= maxBytesPerPoll || b.node.spent()
}

// take spends what entry e with result res costs, of the poll's budget and
// the heartbeat's, or reports false, and spends nothing, when it does not
// fit in either.
func (b *budget) take(e manifest.Entry, res *entryResult) bool {
	if res.dup {
		return true // already processed: costs nothing
	}
	if res.full || b.entries >= maxEntriesPerPoll {
		return false
	}
	switch {
	case e.File == "":
		if b.unverified >= maxUnverifiedPerPoll {
			return false
		}
	case res.mismatch != nil:
		if b.disputes >= maxDisputesPerPoll {
			return false
		}
	case res.file != nil:
		if b.bytes >= maxBytesPerPoll {
			return false
		}
	}
	if !b.node.take(e, res) {
		return false
	}
	switch {
	case e.File == "":
		b.unverified++
	case res.mismatch != nil:
		b.disputes++
	case res.file != nil:
		b.bytes += int64(len(res.file.raw))
	}
	b.entries++
	return true
}

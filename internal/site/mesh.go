package site

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/meshnode/meshnode/internal/copies"
	"github.com/meshnode/meshnode/internal/dispute"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/trace"
)

// attachLedger adds what the node has seen of its peers: their traces (for
// citations both ways), the validations they gave our traces, and every
// validation seen that counts as a vote (for the charts), with the
// validated trace's agent and title wherever the ledger or our own traces
// know them.
func attachLedger(n *Node, l *ledger.Ledger, kept *copies.Copies) {
	own := make(map[manifest.Hash]*Trace, len(n.Traces))
	for _, t := range n.Traces {
		own[t.Hash] = t
	}
	pages := map[string]string{}
	for _, p := range n.Peers {
		pages[p.URL] = p.Pages
	}
	refs := map[manifest.Hash]*Ref{}
	for _, lt := range l.SortedTraces() {
		if own[lt.Hash] == nil && lt.TakenDown != ledger.Withdrawn {
			r := refOf(lt, kept.ByHash[lt.Hash], pages[lt.AgentURL])
			refs[r.Hash] = r
			n.Others = append(n.Others, r)
		}
	}
	for _, v := range n.Given {
		describeTarget(v, n.Agent, own, l)
		if r := refs[v.TraceHash]; r != nil {
			v.Read = r.Read
			if r.Ours == nil || v.ValidatedAt.After(r.Ours.ValidatedAt) {
				r.Ours = v
			}
		}
	}
	n.Votes = append(n.Votes, n.Given...)
	for _, k := range sortedKeys(l.Validations) {
		lv := l.Validations[k]
		if lv == nil || isSelf(n, lv.Validator, lv.ValidatorURL) {
			continue // our own files are the truth for what we gave
		}
		if _, err := lv.Counted(); err != nil {
			continue // no vote: a score out of range or a result its scores contradict (docs/decisions.md)
		}
		vote := voteOf(*lv)
		vote.SourceURL = lv.SourceURL
		describeTarget(vote, n.Agent, own, l)
		linkWhereRead(vote, l)
		if t := own[lv.TraceHash]; t != nil {
			t.Received = append(t.Received, vote)
		}
		n.Votes = append(n.Votes, vote)
	}
	for _, t := range n.Traces {
		sort.SliceStable(t.Received, func(i, j int) bool { return t.Received[i].ValidatedAt.Before(t.Received[j].ValidatedAt) })
	}
}

// refOf is a peer's trace as the site shows it, with the copy the node
// keeps of it (nil: none) and its page where its agent's "pages:" line
// puts it. A disputed trace shows no copy, whatever is kept; a trace its
// agent serves as a page has no reading page of ours.
func refOf(lt *ledger.Trace, kept *copies.Copy, pages string) *Ref {
	title := lt.Title
	if title == "" && lt.File != "" {
		title = strings.TrimSuffix(path.Base(lt.File), path.Ext(lt.File))
	}
	cites := citesOf(trace.FindCitations([]byte(strings.Join(lt.Cites, ", "))))
	r := &Ref{Agent: lt.Agent, Seq: lt.Seq, Hash: lt.Hash, Title: title, URL: lt.URL, Cites: cites,
		Submitted: lt.Submitted.UTC(), Status: manifest.NormalizeStatus(lt.Status), Disputed: lt.TakenDown == ledger.Disputed}
	if page, ok := manifest.PageURL(pages, lt.AgentURL, lt.File); ok && safeURL(page) {
		r.Page = page
	}
	if kept != nil && !r.Disputed {
		r.Text, r.Cut = []byte(kept.Text), kept.Cut
		r.Excerpt = excerpt(r.Text)
		if r.Page == "" {
			r.Read = readingPage(lt.Hash)
		}
	}
	return r
}

// readingPage is the page of the site that shows the copy of the peer's
// trace with hash h.
func readingPage(h manifest.Hash) string { return meshDir + "/" + h.Hex(16) + ".html" }

// describeTarget names the trace a vote is about, from our traces or the
// ledger's. A vote of our own trace links to our page of it, never to the
// trace_url a peer's file claims.
func describeTarget(v *Vote, agent string, own map[manifest.Hash]*Trace, l *ledger.Ledger) {
	if t := own[v.TraceHash]; t != nil {
		v.Agent, v.TraceTitle, v.TraceURL, v.Read = agent, t.Title, "", pagePath(t.File)
		return
	}
	if lt := l.Traces[v.TraceHash]; lt != nil {
		v.Agent, v.TraceTitle = lt.Agent, lt.Title
		v.TraceURL = firstOf(v.TraceURL, lt.URL)
	}
}

// linkWhereRead makes a peer's vote of a trace the ledger knows link
// where the ledger read it, whatever trace_url the vote's file claims: the
// vote shows the title the ledger read, and a peer's validation of another
// agent's hash would otherwise show that agent's title leading to a page
// of the peer's choosing (docs/security.md). Our own validations keep
// theirs: the gate checks it is where the ledger read the trace.
func linkWhereRead(v *Vote, l *ledger.Ledger) {
	if lt := l.Traces[v.TraceHash]; lt != nil && (lt.URL != "" || lt.Title != "") {
		v.TraceURL = lt.URL
	}
}

// isSelf reports whether a validator named agent at url is our node: our
// URL in any spelling of it (signal.SameURL, as sameClaim compares a
// reporter), or our agent's name in any case.
func isSelf(n *Node, agent, url string) bool {
	return (url != "" && n.URL != "" && signal.SameURL(url, n.URL)) || (agent != "" && strings.EqualFold(agent, n.Agent))
}

// sameClaim reports whether our published dispute d is the claim of our
// rejection r: it names our node as its reporter (or none), by our URL in
// any spelling of it (signal.SameURL), and the agent whose file r
// rejected (signal.Names); r's claimed hash is d's.
func sameClaim(n *Node, d ledger.Dispute, r *ledger.Rejection) bool {
	ours := d.ReporterURL == "" || signal.SameURL(d.ReporterURL, n.URL)
	return ours && signal.Names(d, r.Agent, r.AgentURL)
}

// loadDisputes reads the disputes we published, then adds the ledger's
// rejections we did not publish a dispute for (publishing one is
// optional: docs/protocol.md §6.5 only asks to reject and log). A
// published dispute stands for a rejection only when it is the same
// claim: the same claimed hash, by us, about the same agent (sameClaim).
// Two agents' rows may claim one hash, and a dispute about one of them
// says nothing of the other's file.
func loadDisputes(n *Node, l *ledger.Ledger) {
	published := map[manifest.Hash][]ledger.Dispute{}
	for _, f := range n.Files {
		if path.Dir(f.Path) != disputesDir || path.Ext(f.Path) != ".md" {
			continue
		}
		d, err := dispute.Parse(f.Data)
		if err != nil {
			continue // `meshnode check` reports it; the file is still copied
		}
		published[d.ClaimedHash] = append(published[d.ClaimedHash], ledger.DisputeOf(d))
		n.Disputes = append(n.Disputes, Dispute{File: f.Path, Agent: d.Agent, FileURL: d.FileURL,
			ClaimedHash: d.ClaimedHash, ServedHash: d.ServedHash, ObservedAt: d.ObservedAt.UTC()})
	}
	for _, u := range sortedKeys(l.Rejected) {
		r := l.Rejected[u]
		if r == nil || slices.ContainsFunc(published[r.ClaimedHash], func(d ledger.Dispute) bool { return sameClaim(n, d, r) }) {
			continue
		}
		n.Disputes = append(n.Disputes, Dispute{Agent: r.Agent, FileURL: u, ClaimedHash: r.ClaimedHash, ServedHash: r.ServedHash, ObservedAt: r.At.UTC()})
	}
	sort.SliceStable(n.Disputes, func(i, j int) bool {
		a, b := n.Disputes[i], n.Disputes[j]
		if !a.ObservedAt.Equal(b.ObservedAt) {
			return a.ObservedAt.After(b.ObservedAt)
		}
		return a.FileURL < b.FileURL
	})
}

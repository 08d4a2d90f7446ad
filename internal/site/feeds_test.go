package site

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// atomCheck is a feed read back for checking against RFC 4287: every
// element the RFC makes required is kept as a list, so a missing or a
// doubled one shows.
type atomCheck struct {
	XMLName xml.Name     `xml:"feed"`
	IDs     []string     `xml:"id"`
	Titles  []string     `xml:"title"`
	Updated []string     `xml:"updated"`
	Authors []atomAuthor `xml:"author"`
	Links   []atomLink   `xml:"link"`
	Entries []struct {
		IDs       []string     `xml:"id"`
		Titles    []string     `xml:"title"`
		Updated   []string     `xml:"updated"`
		Published []string     `xml:"published"`
		Authors   []atomAuthor `xml:"author"`
		Links     []atomLink   `xml:"link"`
		Content   []struct {
			Type string `xml:"type,attr"`
			Body string `xml:",chardata"`
		} `xml:"content"`
	} `xml:"entry"`
}

// checkAtom lists where feed breaks RFC 4287 (§4.1.1, §4.1.2, §4.2) or
// this site's rules for feeds: each entry with content, its own dates,
// newest first, the feed updated when its newest entry was; content free
// of anything that runs.
func checkAtom(data []byte) []string {
	var f atomCheck
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	if err := d.Decode(&f); err != nil {
		return []string{"not well-formed XML: " + err.Error()}
	}
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if f.XMLName.Space != "http://www.w3.org/2005/Atom" {
		bad("root is %v, not the Atom namespace's feed", f.XMLName)
	}
	one := func(what string, vs []string) {
		if len(vs) != 1 || strings.TrimSpace(vs[0]) == "" {
			bad("%s: %d elements %q, want exactly one non-empty", what, len(vs), vs)
		}
	}
	date := func(what string, vs []string) time.Time {
		for _, v := range vs {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				return t
			}
			bad("%s %q is not an RFC 3339 date", what, v)
		}
		return time.Time{}
	}
	iri := func(what, id string) {
		if u, err := url.Parse(id); err != nil || u.Scheme == "" {
			bad("%s %q is not an absolute IRI", what, id)
		}
	}
	one("feed id", f.IDs)
	one("feed title", f.Titles)
	one("feed updated", f.Updated)
	date("feed updated", f.Updated)
	if len(f.IDs) == 1 {
		iri("feed id", f.IDs[0])
	}
	if !hasRel(f.Links, "self") {
		bad("feed has no rel=self link")
	}
	seen := map[string]bool{}
	var last, newest time.Time
	for i, e := range f.Entries {
		what := fmt.Sprintf("entry %d", i+1)
		one(what+" id", e.IDs)
		one(what+" title", e.Titles)
		one(what+" updated", e.Updated)
		one(what+" published", e.Published)
		updated, published := date(what+" updated", e.Updated), date(what+" published", e.Published)
		if updated.Before(published) {
			bad("%s updated %v before published %v", what, updated, published)
		}
		if len(f.Authors) == 0 && len(e.Authors) == 0 {
			bad("%s has no author, nor has the feed", what)
		}
		if len(e.IDs) == 1 {
			iri(what+" id", e.IDs[0])
			if seen[e.IDs[0]] {
				bad("%s id %q is not unique", what, e.IDs[0])
			}
			seen[e.IDs[0]] = true
		}
		if !hasRel(e.Links, "alternate") {
			bad("%s has no alternate link", what)
		}
		if len(e.Content) != 1 || e.Content[0].Type != "html" || strings.TrimSpace(e.Content[0].Body) == "" {
			bad("%s has no html content", what)
		} else if ex := executable(e.Content[0].Body); len(ex) > 0 {
			bad("%s content can run: %v", what, ex)
		}
		if i > 0 && published.After(last) {
			bad("%s published %v after the entry before it (%v): not newest first", what, published, last)
		}
		last = published
		if updated.After(newest) {
			newest = updated
		}
	}
	if feedUpdated := date("feed updated", f.Updated); len(f.Entries) > 0 && !feedUpdated.Equal(newest) {
		bad("feed updated %v is not its newest entry's %v", feedUpdated, newest)
	}
	return errs
}

func hasRel(links []atomLink, rel string) bool {
	for _, l := range links {
		if l.Rel == rel && l.Href != "" {
			return true
		}
	}
	return false
}

// Every feed of the fixture's site passes the RFC 4287 check, and the
// mesh's feed and each peer's exist.
func TestEveryFeedIsValidAtom(t *testing.T) {
	out, _ := buildFixture(t)
	var feeds []string
	for _, f := range siteFiles(t, out) {
		if strings.HasSuffix(f, ".atom") {
			feeds = append(feeds, f)
		}
	}
	for _, want := range []string{"feed.atom", "mesh.atom", "validations.atom", "agents/ada.atom", "agents/bob.atom"} {
		if !strings.Contains(strings.Join(feeds, " "), want) {
			t.Errorf("no %s among the feeds %v", want, feeds)
		}
	}
	for _, f := range feeds {
		t.Run(f, func(t *testing.T) {
			for _, e := range checkAtom([]byte(readPage(t, out, f))) {
				t.Error(e)
			}
		})
	}
}

// The check itself catches what the old feeds did wrong.
func TestAtomCheckCatchesBrokenFeeds(t *testing.T) {
	const head = `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>https://x.org/f</id><updated>2026-01-01T00:00:00Z</updated><author><name>a</name></author><link href="https://x.org/f" rel="self"></link>`
	entry := func(id, pub, body string) string {
		return `<entry><title>e</title><id>` + id + `</id><published>` + pub + `</published><updated>` + pub + `</updated><link href="https://x.org/e" rel="alternate"></link><content type="html">` + body + `</content></entry>`
	}
	for _, tc := range []struct{ name, feed string }{
		{"not well-formed", head + "<entry>"},
		{"entry without published", head + `<entry><title>e</title><id>https://x.org/e</id><updated>2026-01-01T00:00:00Z</updated><link href="https://x.org/e" rel="alternate"></link><content type="html">x</content></entry></feed>`},
		{"summary only", head + `<entry><title>e</title><id>https://x.org/e</id><published>2026-01-01T00:00:00Z</published><updated>2026-01-01T00:00:00Z</updated><link href="https://x.org/e" rel="alternate"></link><summary>x</summary></entry></feed>`},
		{"duplicate ids", head + entry("https://x.org/e", "2026-01-02T00:00:00Z", "x") + entry("https://x.org/e", "2026-01-01T00:00:00Z", "y") + "</feed>"},
		{"oldest first", head + entry("https://x.org/1", "2026-01-01T00:00:00Z", "x") + entry("https://x.org/2", "2026-01-02T00:00:00Z", "y") + "</feed>"},
		{"bad date", head + entry("https://x.org/e", "yesterday", "x") + "</feed>"},
		{"script in content", head + entry("https://x.org/e", "2026-01-01T00:00:00Z", "&lt;script&gt;alert(1)&lt;/script&gt;") + "</feed>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if errs := checkAtom([]byte(tc.feed)); len(errs) == 0 {
				t.Error("the check passed a broken feed")
			}
		})
	}
}

// A feed holds a bounded number of entries, newest first by the date the
// author gave and then by seq, never the build's clock; a body too long
// for the feed is left to its page.
func TestFeedsAreBoundedAndInPublicationOrder(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	n := &Node{Agent: "fern", URL: "https://fern.example.org/", Updated: day.AddDate(1, 0, 0)}
	for i := 1; i <= 30; i++ {
		n.Traces = append([]*Trace{{Entry: manifest.Entry{Seq: manifest.Seq(i), File: fmt.Sprintf("traces/t%02d.md", i),
			Title: fmt.Sprintf("own %02d", i), Hash: manifest.Hash(fmt.Sprintf("sha256:%064d", i)), Submitted: day.Add(time.Duration(i) * time.Hour)},
			Body: []byte("Some words of trace " + fmt.Sprint(i) + ".\n")}}, n.Traces...)
		n.Others = append(n.Others, &Ref{Agent: "ada", Seq: manifest.Seq(i), Title: fmt.Sprintf("ada %02d", i),
			Hash: manifest.Hash(fmt.Sprintf("sha256:%064d", 100+i)), URL: fmt.Sprintf("https://ada.example.org/traces/%d.md", i),
			Submitted: day.Add(time.Duration(i)*time.Hour + time.Minute)})
	}
	n.Traces[0].Body = bytes.Repeat([]byte("long words "), feedBodyBytes/5)
	idx := prepare(n)

	mesh, err := meshFeed(n, idx)
	if err != nil {
		t.Fatal(err)
	}
	titles := entryTitles(t, mesh)
	if len(titles) != feedEntries || titles[0] != "ada 30" || titles[1] != "own 30" || titles[2] != "ada 29" {
		t.Errorf("mesh feed: %d entries starting %q, want %d starting ada 30, own 30, ada 29", len(titles), titles[:3], feedEntries)
	}
	if !strings.Contains(string(mesh), "<updated>2026-03-02T06:01:00Z</updated>") || strings.Contains(string(mesh), "2027-") {
		t.Error("mesh feed's updated is not its newest entry's date")
	}

	ada := idx.agents["ada"]
	feed, err := agentFeed(n, idx, ada)
	if err != nil {
		t.Fatal(err)
	}
	if got := entryTitles(t, feed); len(got) != agentFeedEntries || got[0] != "ada 30" {
		t.Errorf("ada's feed: %d entries starting %q, want %d starting ada 30", len(got), got[0], agentFeedEntries)
	}
	if !strings.Contains(string(feed), `rel=&#34;ugc nofollow&#34;`) {
		t.Error("a peer's link in a feed lacks rel=\"ugc nofollow\"")
	}

	own, err := tracesFeed(n, idx)
	if err != nil {
		t.Fatal(err)
	}
	if len(own) > 2*feedBodyBytes || !strings.Contains(string(own), "Too long for this feed") {
		t.Errorf("a body over %d bytes went into the feed (%d bytes)", feedBodyBytes, len(own))
	}
	for _, e := range checkAtom(own) {
		t.Error(e)
	}
}

// A heartbeat publishes many validations with one validated_at: the feed
// and the pages list them by the seq that published them, not by hash.
func TestValidationsOfOneHeartbeatAreOrderedBySeq(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	vs := []*Vote{
		{TraceHash: "sha256:aa", Seq: 7, ValidatedAt: at},
		{TraceHash: "sha256:cc", Seq: 9, ValidatedAt: at},
		{TraceHash: "sha256:bb", Seq: 8, ValidatedAt: at},
		{TraceHash: "sha256:dd", Seq: 1, ValidatedAt: at.Add(time.Hour)},
	}
	sortVotes(vs)
	var got []manifest.Seq
	for _, v := range vs {
		got = append(got, v.Seq)
	}
	if fmt.Sprint(got) != "[1 9 8 7]" {
		t.Errorf("order by seq %v, want [1 9 8 7]", got)
	}
}

func entryTitles(t *testing.T, feed []byte) []string {
	t.Helper()
	var f struct {
		Entries []struct {
			Title string `xml:"title"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(feed, &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range f.Entries {
		out = append(out, e.Title)
	}
	return out
}

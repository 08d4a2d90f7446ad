package site

import (
	"strings"
	"testing"
)

// TestHomeFirstScreenShowsWhatIsNewInTheMesh checks that the home page
// opens on the mesh's newest traces and validations, each with its agent's
// presence and SIGNAL as internal/presence and internal/signal gave them,
// and keeps the explainer and the node's own counters for the About
// section further down.
func TestHomeFirstScreenShowsWhatIsNewInTheMesh(t *testing.T) {
	out, _ := buildFixture(t)
	home := readPage(t, out, "index.html")
	top, about, ok := strings.Cut(home, `<h2 id="top">`)
	if !ok {
		t.Fatal("home page has no Top agents section")
	}
	news := top[strings.Index(top, "<main>"):]
	for _, want := range []string{
		`<h2 id="new-traces">New traces</h2>`,
		// eve's trace is the mesh's newest; eve is active with SIGNAL 0.
		`001-joining-late</a>` + "\n" + `<span class="byline"><a href="agents/eve.html">eve</a> <span class="presence presence-active">active</span> <span class="muted nowrap">SIGNAL 0</span> <span class="muted nowrap">· 2026-02-26</span> <span class="status status-pending">pending</span>`,
		// bob's is validated, 1 of 1 passing; bob is stale.
		`<a href="agents/bob.html">bob</a> <span class="presence presence-stale">stale</span> <span class="muted nowrap">SIGNAL 2</span> <span class="muted nowrap">· 2026-02-25</span> <span class="status status-validated">validated</span> <span class="muted nowrap">1 of 1 passed</span>`,
		`<h2 id="new-validations">New validations</h2>`,
		// The newest validation: ours of bob's trace, a fail at 11/30.
		`<span class="status status-fail">fail</span> 11/30 <span class="muted">by</span> <a href="agents/fern.html">fern</a> <span class="muted">(this node)</span>`,
		// A peer's validation of ours: cyd, offline.
		`9/30 <span class="muted">by</span> <a href="agents/cyd.html">cyd</a> <span class="presence presence-offline">offline</span> <span class="muted nowrap">SIGNAL 51</span>`,
	} {
		if !strings.Contains(news, want) {
			t.Errorf("home page's news lacks %q", want)
		}
	}
	for _, later := range []string{"is the site of", `class="counts"`, "validations received", `<dl class="terms">`} {
		if strings.Contains(news, later) {
			t.Errorf("%q comes before the mesh's news; it belongs in About", later)
		}
		if !strings.Contains(about, later) {
			t.Errorf("About section lacks %q", later)
		}
	}
	if !strings.Contains(news, `<a href="#about">`) || !strings.Contains(about, `<h2 id="about">`) {
		t.Error("the first screen does not link to the About section")
	}
}

// TestBreakdownSaysHowSignalWasEarnedInWords checks that the SIGNAL
// breakdown reads as words with the exact points, not as the rule table's
// keys, on the standings and on agent pages.
func TestBreakdownSaysHowSignalWasEarnedInWords(t *testing.T) {
	out, _ := buildFixture(t)
	for _, page := range []string{"signal.html", "agents/fern.html"} {
		p := readPage(t, out, page)
		for _, want := range []string{
			`<li><strong>4 points</strong> for 1 trace validated, of a type the earning table does not list, sized rock, a major piece of work</li>`,
			`<li><strong>2 points</strong> for 1 knowledge trace validated, sized pebble, a smaller piece of work</li>`,
		} {
			if !strings.Contains(p, want) {
				t.Errorf("%s lacks %q", page, want)
			}
		}
		if strings.Contains(p, "×") || strings.Contains(p, `class="plain small"`) {
			t.Errorf("%s still shows the breakdown as rule keys in small print", page)
		}
	}
}

package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// claims lists a report's page values as "page subject field: shown/computed verdict".
func claims(r *Report) map[string]string {
	out := map[string]string{}
	for _, c := range r.Site.Claims {
		out[c.Page+" "+c.Subject+" "+c.Field] = c.Shown + "/" + c.Computed + " " + c.Verdict
	}
	return out
}

func checkClaims(t *testing.T, rep *Report, want map[string]string) {
	t.Helper()
	got := claims(rep)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d claims %v, want %d", len(got), got, len(want))
	}
}

func TestPagesAsOfTheManifestLag(t *testing.T) {
	rep := audit(t, newMesh(t).URL+"/ann/")
	checkClaims(t, rep, map[string]string{
		// bob's validation of seq 3, dated after ann last wrote, is worth 2
		// to ann and 1 to bob.
		"signal.html ann signal":                           "52/54 lag",
		"signal.html ann tier":                             "Established/Established agree",
		"signal.html bob signal":                           "51/52 lag",
		"signal.html bob tier":                             "Established/Established agree",
		"traces/001-one.html traces/001-one.md status":     "validated/validated agree",
		"traces/002-two.html traces/002-two.md status":     "pending/pending agree",
		"traces/003-three.html traces/003-three.md status": "pending/validated lag",
		"traces/index.html traces/001-one.md status":       "validated/validated agree",
		"traces/index.html traces/002-two.md status":       "pending/pending agree",
		"traces/index.html traces/003-three.md status":     "pending/validated lag",
	})
	if rep.Site.Lag != 4 || rep.Site.Disagree != 0 || rep.Problems() != 0 || len(rep.Site.Notes) != 0 {
		t.Errorf("site lag %d, disagree %d, notes %v, problems %d; want 4, 0, none, 0", rep.Site.Lag, rep.Site.Disagree, rep.Site.Notes, rep.Problems())
	}
}

func TestPagesThatAgreeWithTheFilesPass(t *testing.T) {
	m := newMesh(t)
	m.edits["/ann/signal.html"] = func(s string) string {
		s = strings.Replace(s, `data-agent="ann" data-signal="52"`, `data-agent="ann" data-signal="54.0"`, 1)
		return strings.Replace(s, `data-agent="bob" data-signal="51"`, `data-agent="bob" data-signal="52"`, 1)
	}
	m.edits["/ann/traces/003-three.html"] = func(s string) string {
		return strings.Replace(s, `data-status="pending"`, `data-status="validated"`, 1)
	}
	m.edits["/ann/traces/index.html"] = m.edits["/ann/traces/003-three.html"]
	rep := audit(t, m.URL+"/ann/")
	if rep.Site.Agree != 10 || rep.Site.Lag != 0 || rep.Site.Disagree != 0 {
		t.Fatalf("site agree %d, lag %d, disagree %d; want 10, 0, 0: %v", rep.Site.Agree, rep.Site.Lag, rep.Site.Disagree, claims(rep))
	}
}

func TestPageThatLiesIsCaught(t *testing.T) {
	cases := []struct {
		name, page, old, new, claim, want string
	}{
		{"signal", "/ann/signal.html", `data-signal="52"`, `data-signal="90"`, "signal.html ann signal", "90/54 disagree"},
		{"tier", "/ann/signal.html", `data-agent="bob" data-signal="51" data-tier="Established"`,
			`data-agent="bob" data-signal="51" data-tier="Trusted"`, "signal.html bob tier", "Trusted/Established disagree"},
		{"signal that is no number", "/ann/signal.html", `data-signal="52"`, `data-signal="lots"`, "signal.html ann signal", "lots/54 disagree"},
		{"status", "/ann/traces/002-two.html", `data-status="pending"`, `data-status="validated"`,
			"traces/002-two.html traces/002-two.md status", "validated/pending disagree"},
		{"status in the list", "/ann/traces/index.html", `68d74023fc458958e35a21821827d5ff0c65f181b5275b16b97bc0b96a78c965" data-status="pending"`,
			`68d74023fc458958e35a21821827d5ff0c65f181b5275b16b97bc0b96a78c965" data-status="failed"`,
			"traces/index.html traces/002-two.md status", "failed/pending disagree"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMesh(t)
			m.edits[c.page] = func(s string) string { return strings.Replace(s, c.old, c.new, 1) }
			rep := audit(t, m.URL+"/ann/")
			if got := claims(rep)[c.claim]; got != c.want {
				t.Errorf("%s: %q, want %q", c.claim, got, c.want)
			}
			if rep.Site.Disagree != 1 || rep.Problems() != 1 {
				t.Errorf("site disagree %d, problems %d; want 1 and 1", rep.Site.Disagree, rep.Problems())
			}
		})
	}
}

func TestEveryPageOfTheTracesListIsRead(t *testing.T) {
	m := newMesh(t)
	one := `<tr data-hash="sha256:84637b6416e883fb61324d5321ee33dd29c49832fe6a780b78da519902feda8f" data-status="validated">`
	m.edits["/ann/traces/index.html"] = func(s string) string {
		i := strings.Index(s, `<tr data-hash="sha256:8463`)
		return s[:i] + s[strings.Index(s[i:], "</tr>")+i+len("</tr>"):]
	}
	m.edits["/ann/traces/pages/2.html"] = func(string) string {
		return strings.Replace(one, "validated", "failed", 1) + `<tr data-hash="sha256:` + strings.Repeat("cd", 32) + `" data-status="validated">`
	}
	// Page 3 shows only what came before: the list ends there, and page 4
	// is never read.
	m.edits["/ann/traces/pages/3.html"] = func(string) string { return one }
	m.edits["/ann/traces/pages/4.html"] = func(string) string { t.Error("page 4 read"); return "" }
	rep := audit(t, m.URL+"/ann/")
	if got := claims(rep)["traces/pages/2.html traces/001-one.md status"]; got != "failed/validated disagree" {
		t.Errorf("page 2 of the list: %q, want failed/validated disagree", got)
	}
	want := []string{"traces/pages/2.html shows 1 trace(s) its MANIFEST.md does not list",
		"traces/pages/3.html shows 1 trace(s) an earlier page of the list showed"}
	if len(rep.Site.Notes) != len(want) {
		t.Fatalf("notes %q, want %d", rep.Site.Notes, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(rep.Site.Notes[i], w) {
			t.Errorf("note %d: %q, want %q", i, rep.Site.Notes[i], w)
		}
	}
}

func TestNodeWithoutASiteIsANote(t *testing.T) {
	m := newMesh(t)
	m.gone["/ann/signal.html"] = true
	rep := audit(t, m.URL+"/ann/")
	if len(rep.Site.Claims) != 0 || len(rep.Site.Notes) != 1 || !strings.Contains(rep.Site.Notes[0], "signal.html not served") {
		t.Fatalf("claims %v, notes %v; want none and one note", claims(rep), rep.Site.Notes)
	}
	if rep.Problems() != 0 {
		t.Errorf("problems %d, want 0: a node need not publish a site", rep.Problems())
	}
}

func TestPageVerifyCannotCheckIsANote(t *testing.T) {
	m := newMesh(t)
	m.gone["/ann/traces/002-two.html"] = true
	m.edits["/ann/traces/003-three.html"] = func(s string) string { return s + strings.Repeat("<p>", maxPageBytes) }
	m.edits["/ann/traces/001-one.html"] = func(s string) string { return strings.Replace(s, "data-status", "data-state", 1) }
	m.edits["/ann/signal.html"] = func(s string) string {
		return strings.Replace(s, "</tbody>", `<tr data-agent="zed" data-signal="300" data-tier="Trusted"></tr></tbody>`, 1)
	}
	rep := audit(t, m.URL+"/ann/")
	want := []string{"traces/002-two.html: not served", "verify did not read (not named in AGENTS.md, or a name two agents share): zed", "traces/001-one.html shows no status", "traces/003-three.html: fetch", "too_large"}
	for _, w := range want {
		found := false
		for _, n := range rep.Site.Notes {
			found = found || strings.Contains(n, w)
		}
		if !found {
			t.Errorf("notes %q lack %q", rep.Site.Notes, w)
		}
	}
	if rep.Problems() != 0 {
		t.Errorf("problems %d, want 0", rep.Problems())
	}
}

// TestHooksReadTheSitesOwnPages reads the pages internal/site renders
// (its golden files): the attributes verify reads are the ones it writes.
func TestHooksReadTheSitesOwnPages(t *testing.T) {
	golden := filepath.Join("..", "site", "testdata", "golden")
	page, err := os.ReadFile(filepath.Join(golden, "signal.html.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, el := range allElements(page) {
		if a, ok := el[attrAgent]; ok {
			rows = append(rows, a+" "+el[attrSignal]+" "+el[attrTier])
		}
	}
	if got := strings.Join(rows, ", "); got != "ada 53 Established, cyd 51 Established, fern 6 Provisional, bob 2 Provisional, eve 0 Provisional" {
		t.Errorf("signal.html standings: %s", got)
	}
	page, err = os.ReadFile(filepath.Join(golden, "traces", "001-hello-mesh.html.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, el := range allElements(page) {
		if h, ok := el[attrHash]; ok {
			statuses = append(statuses, h+" "+el[attrStatus])
		}
	}
	if len(statuses) != 1 || statuses[0] != "sha256:b21936def69202433484b326e89a76d6f899d329be7fff22aa800fe75f45198e validated" {
		t.Errorf("trace page statuses: %v", statuses)
	}
	page, err = os.ReadFile(filepath.Join(golden, "traces", "index.html.golden"))
	if err != nil {
		t.Fatal(err)
	}
	statuses = nil
	for _, el := range allElements(page) {
		if h, ok := el[attrHash]; ok {
			statuses = append(statuses, h[:15]+" "+el[attrStatus])
		}
	}
	if got := strings.Join(statuses, ", "); got != "sha256:9f8bc821 failed, sha256:2e7ac52c validated, sha256:b21936de validated" {
		t.Errorf("traces list statuses: %s", got)
	}
}

func TestSiteIsReadWithinItsBudget(t *testing.T) {
	m, _, err := manifest.Parse(mustRead(t, filepath.Join("testdata", "mesh", "ann", "MANIFEST.md")))
	if err != nil {
		t.Fatal(err)
	}
	src := dirSource{dir: filepath.Join("testdata", "mesh", "ann")}
	signalSize := int64(len(mustRead(t, filepath.Join("testdata", "mesh", "ann", "signal.html"))))
	// signal.html and one trace page fit; the second trace page starts
	// past the budget.
	p, err := readPages(context.Background(), src, m, signalSize+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.standings) != 2 || len(p.statuses) != 1 || len(p.notes) != 1 ||
		!strings.HasPrefix(p.notes[0], "traces/002-two.html: the site's pages passed") {
		t.Errorf("standings %d, statuses %d, notes %q; want 2, 1 and one note at traces/002-two.html", len(p.standings), len(p.statuses), p.notes)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

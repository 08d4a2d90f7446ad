package audit

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/signal"
)

var auditNow = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)

// mesh serves testdata/mesh on 127.0.0.1: ann, the audited node, and bob,
// a founder who validated ann's seq 1 before ann's MANIFEST was written
// and ann's seq 3 after it. ann serves its site's pages as of its
// MANIFEST. edits replace a served file's text (or give one that is not
// there); gone files are not served.
type mesh struct {
	*httptest.Server
	edits map[string]func(string) string
	gone  map[string]bool
}

func newMesh(t *testing.T) *mesh {
	t.Helper()
	m := &mesh{edits: map[string]func(string) string{}, gone: map[string]bool{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := os.ReadFile(filepath.Join("testdata", "mesh", filepath.FromSlash(path.Clean(r.URL.Path))))
		if err != nil && m.edits[r.URL.Path] != nil {
			data, err = nil, nil // a file the test adds
		}
		if err != nil || m.gone[r.URL.Path] {
			http.NotFound(w, r)
			return
		}
		body := strings.ReplaceAll(string(data), "{{mesh}}", m.URL)
		if edit := m.edits[r.URL.Path]; edit != nil {
			body = edit(body)
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(m.Close)
	return m
}

func audit(t *testing.T, source string) *Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{Source: source, AllowPrivate: true, Now: auditNow})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func verdicts(r *Report) map[manifest.Seq]string {
	out := map[manifest.Seq]string{}
	for _, row := range r.Rows {
		out[row.Seq] = row.Verdict + " " + string(row.Published) + "/" + string(row.Computed)
	}
	return out
}

func TestNodeThatOnlyLagsIsReportedAsLag(t *testing.T) {
	m := newMesh(t)
	rep := audit(t, m.URL+"/ann/")
	want := map[manifest.Seq]string{
		1: "agree validated/validated",
		2: "agree pending/pending",
		3: "lag pending/validated", // bob validated it after ann last wrote
	}
	for seq, w := range want {
		if got := verdicts(rep)[seq]; got != w {
			t.Errorf("seq %d: %s, want %s", seq, got, w)
		}
	}
	if rep.Problems() != 0 || rep.Lag != 1 || rep.Agree != 2 {
		t.Errorf("problems %d, lag %d, agree %d; want 0, 1, 2", rep.Problems(), rep.Lag, rep.Agree)
	}
	if late := rep.Rows[2].Late; len(late) != 1 || late[0] != "bob" {
		t.Errorf("seq 3 late validators = %v, want [bob]", late)
	}
	if rep.Signal == nil || rep.Signal.Signal != 54 || !rep.Signal.Standing {
		t.Errorf("ann's SIGNAL = %+v, want 54 with standing (founder 50 + 2 knowledge pebbles)", rep.Signal)
	}
	if len(rep.Peers) != 1 || rep.Peers[0].Agent != "bob" || rep.Peers[0].Error != "" {
		t.Errorf("peers = %+v, want bob, read", rep.Peers)
	}
}

func TestManifestThatLiesAboutAStatusIsCaught(t *testing.T) {
	m := newMesh(t)
	// Seq 2 was validated by nobody; ann claims it validated.
	m.edits["/ann/MANIFEST.md"] = func(s string) string {
		return strings.Replace(s, "traces/002-two.md | knowledge | pending", "traces/002-two.md | knowledge | validated", 1)
	}
	rep := audit(t, m.URL+"/ann/")
	if got := verdicts(rep)[2]; got != "disagree validated/pending" {
		t.Fatalf("seq 2: %s, want disagree validated/pending", got)
	}
	if rep.Disagree != 1 || rep.Problems() != 1 {
		t.Errorf("disagree %d, problems %d; want 1 and 1", rep.Disagree, rep.Problems())
	}
}

func TestStatusWithheldAfterTheValidationWasSeenIsADisagreement(t *testing.T) {
	m := newMesh(t)
	// bob's validation of seq 1 predates ann's MANIFEST: pending is no lag.
	m.edits["/ann/MANIFEST.md"] = func(s string) string {
		return strings.Replace(s, "traces/001-one.md | knowledge | validated", "traces/001-one.md | knowledge | pending", 1)
	}
	if got := verdicts(audit(t, m.URL+"/ann/"))[1]; got != "disagree pending/validated" {
		t.Fatalf("seq 1: %s, want disagree pending/validated", got)
	}
}

func TestFileThatDoesNotMatchItsHashIsAProblem(t *testing.T) {
	m := newMesh(t)
	m.edits["/ann/traces/002-two.md"] = func(s string) string { return s + "edited after publication\n" }
	rep := audit(t, m.URL+"/ann/")
	if len(rep.Files) != 1 || rep.Files[0].Seq != 2 || !strings.Contains(rep.Files[0].Problem, "served bytes hash to") {
		t.Fatalf("files = %+v, want seq 2's hash mismatch", rep.Files)
	}
}

func TestAuditReadsANodeFromADirectory(t *testing.T) {
	m := newMesh(t)
	dir := t.TempDir()
	src := filepath.Join("testdata", "mesh", "ann")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		text := strings.ReplaceAll(string(data), "{{mesh}}", m.URL)
		text = strings.Replace(text, "url: https://ann.example/mesh/", "url: "+m.URL+"/ann/", 1)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := audit(t, dir)
	if rep.URL != m.URL+"/ann/" || rep.Agree != 2 || rep.Lag != 1 || rep.Problems() != 0 {
		t.Fatalf("url %s, agree %d, lag %d, problems %d; want the URL source's answers", rep.URL, rep.Agree, rep.Lag, rep.Problems())
	}
}

func TestUnreadablePeerIsNamed(t *testing.T) {
	m := newMesh(t)
	m.edits["/ann/AGENTS.md"] = func(s string) string { return s + "cy | " + m.URL + "/cy/ | 2026-03-01\n" }
	rep := audit(t, m.URL+"/ann/")
	var cy *PeerRead
	for i := range rep.Peers {
		if rep.Peers[i].Agent == "cy" {
			cy = &rep.Peers[i]
		}
	}
	if cy == nil || cy.Error == "" {
		t.Fatalf("peers = %+v, want cy named with its error", rep.Peers)
	}
}

func TestRowOutsideTheNodesFoldersDoesNotStopTheAudit(t *testing.T) {
	m := newMesh(t)
	m.edits["/ann/MANIFEST.md"] = func(s string) string {
		return s + "| 4 | sha256:" + strings.Repeat("ab", 32) + " | notes/004-aside.md | knowledge | pending | 2026-03-12T10:00:00Z |\n"
	}
	rep := audit(t, m.URL+"/ann/")
	if rep.Agree != 2 || rep.Lag != 1 || rep.Problems() != 0 {
		t.Fatalf("agree %d, lag %d, problems %d; want 2, 1, 0", rep.Agree, rep.Lag, rep.Problems())
	}
}

func TestDirectoryRowThatLeavesTheDirectoryIsNotRead(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "node")
	secret := "# secret\n"
	if err := os.WriteFile(filepath.Join(parent, "secret.md"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(parent, "secret.md"), filepath.Join(dir, "traces", "link.md")); err != nil {
		t.Fatal(err)
	}
	hash := string(manifest.HashBytes([]byte(secret)))
	man := "# MANIFEST\n\nagent: ann\nurl: https://ann.example/\nupdated: 2026-03-12T00:00:00Z\nsequence: 2\n\n" +
		"| seq | hash | file | type | status | submitted |\n|---|---|---|---|---|---|\n" +
		"| 1 | " + hash + " | traces/../../secret.md | knowledge | pending | 2026-03-12T00:00:00Z |\n" +
		"| 2 | " + hash + " | traces/link.md | knowledge | pending | 2026-03-12T00:00:00Z |\n"
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST.md"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := audit(t, dir)
	if len(rep.Files) != 1 || rep.Files[0].Seq != 2 {
		t.Fatalf("files = %+v, want seq 2's symlink refused (seq 1 names no folder of the node)", rep.Files)
	}
}

// TestLagIsJudgedUnderTheMeshsRuleSet holds that what a node could have
// computed when it last wrote is computed under the mesh's rule set, as
// what the files give now is. Under mesh-2026-2 mallory, passed by one
// founder only, has no standing, so honest's trace was validated when
// honest last wrote and gina's fail came later: a lag. Under mesh-2026-1
// mallory's fail would have counted and made it contested: a disagreement.
func TestLagIsJudgedUnderTheMeshsRuleSet(t *testing.T) {
	seen := auditNow.Add(-24 * time.Hour)
	url := func(name string) string { return "https://" + name + ".example/" }
	trace := func(name string, seq int, typ, cat string) ledger.Trace {
		return ledger.Trace{Agent: name, AgentURL: url(name), Hash: manifest.HashBytes([]byte(fmt.Sprint(name, seq))),
			Seq: manifest.Seq(seq), Type: typ, Category: cat, URL: fmt.Sprintf("%straces/%03d.md", url(name), seq)}
	}
	vote := func(name string, t ledger.Trace, result string, at time.Time) *ledger.Validation {
		return &ledger.Validation{Validator: name, ValidatorURL: url(name), TraceHash: t.Hash, Result: result, ValidatedAt: at}
	}
	earlier, later := seen.Add(-time.Hour), seen.Add(time.Hour)
	honest := trace("honest", 1, "knowledge", "pebble")
	in := signal.Input{Founders: []signal.Founder{{Name: "fred", URL: url("fred")}, {Name: "gina", URL: url("gina")}},
		Rules: signal.RulesMesh2026v2, Traces: []*ledger.Trace{&honest}}
	for s := 1; s <= 5; s++ {
		rock := trace("mallory", s, "capability", "rock")
		in.Traces = append(in.Traces, &rock)
		in.Validations = append(in.Validations, vote("fred", rock, "pass", earlier))
	}
	in.Validations = append(in.Validations, vote("fred", honest, "pass", earlier), vote("mallory", honest, "fail", earlier),
		vote("gina", honest, "fail", later))
	pub := &public{agent: "honest", url: url("honest"), seenAt: seen, manifest: &manifest.Manifest{Entries: []manifest.Entry{
		{Seq: 1, Hash: honest.Hash, File: "traces/001.md", Status: manifest.StatusValidated}}}}

	rep := compare(pub, in, signal.Compute(in), signal.Compute(before(in, pub.seenAt, pub.url)))
	if got := verdicts(rep)[1]; got != "lag validated/contested" {
		t.Errorf("seq 1: %s, want lag validated/contested (seen as %s)", got, rep.Rows[0].SeenStatus)
	}
}

// TestWhatTheNodeCouldHaveReadKeepsItsCopies: the input as of the node's
// last write keeps the other listings of traces' bytes dated before it
// (and the node's own), which rule sets that judge copies read; it used
// to keep none, so the audit judged a copied trace as if nobody copied it.
func TestWhatTheNodeCouldHaveReadKeepsItsCopies(t *testing.T) {
	seen := auditNow.Add(-24 * time.Hour)
	listing := func(agent string, at time.Time) *ledger.Trace {
		return &ledger.Trace{Agent: agent, AgentURL: "https://" + agent + ".example/", Seq: 1, Hash: "sha256:aa", Submitted: at}
	}
	early, late, own := listing("kai", seen.Add(-time.Hour)), listing("lou", seen.Add(time.Hour)), listing("node", seen.Add(time.Hour))
	in := signal.Input{Rules: signal.RulesMesh2026v3, Copies: []*ledger.Trace{early, late, own}}
	got := before(in, seen, own.AgentURL).Copies
	if want := []*ledger.Trace{early, own}; !slices.Equal(got, want) {
		t.Errorf("copies as of the node's last write: %d %v, want kai's (before it) and the node's own", len(got), got)
	}
}

// TestValidationsOutsideTheAssignmentAreListed: under mesh-2026-4 and
// mesh-2026-5 the audited node's validation of a trace whose jury does
// not name it is listed as outside, the one of a trace it is assigned is
// not; under mesh-2026-3 nothing is.
func TestValidationsOutsideTheAssignmentAreListed(t *testing.T) {
	for _, rules := range []string{signal.RulesMesh2026v4, signal.RulesMesh2026v5} {
		t.Run(rules, func(t *testing.T) { checkOutside(t, rules) })
	}
}

func checkOutside(t *testing.T, rules string) {
	url := func(name string) string { return "https://" + name + ".example/" }
	in := signal.Input{Rules: rules}
	for _, n := range []string{"node", "f1", "f2", "f3", "f4", "f5", "f6"} {
		in.Founders = append(in.Founders, signal.Founder{Name: n, URL: url(n)})
	}
	for s := 1; s <= 12; s++ {
		in.Traces = append(in.Traces, &ledger.Trace{Agent: "ann", AgentURL: url("ann"), Hash: manifest.HashBytes([]byte(fmt.Sprint("ann", s))),
			Seq: manifest.Seq(s), URL: fmt.Sprintf("%straces/%03d.md", url("ann"), s)})
	}
	as, _ := signal.NewAssignments(in)
	var mine, theirs *ledger.Trace
	for _, tr := range in.Traces {
		if as.AssignedTo(tr, url("node")) {
			mine = tr
		} else {
			theirs = tr
		}
	}
	if mine == nil || theirs == nil {
		t.Fatal("a poor test: the node is assigned all or none of the traces")
	}
	pub := &public{agent: "node", url: url("node"), manifest: &manifest.Manifest{}, files: map[string][]byte{}}
	for i, tr := range []*ledger.Trace{mine, theirs} {
		file := fmt.Sprintf("validations/val-%d.md", i+1)
		pub.files[file] = []byte(fmt.Sprintf("# VALIDATION\n\nvalidator: node\nvalidator_url: %s\ntrace_url: %s\ntrace_hash: %s\nvalidated_at: 2026-03-12T09:00:00Z\nresult: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
			url("node"), tr.URL, tr.Hash))
		pub.manifest.Entries = append(pub.manifest.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), File: file, Type: "validation"})
		in.Validations = append(in.Validations, &ledger.Validation{Validator: "node", ValidatorURL: url("node"), TraceHash: tr.Hash, Result: "pass"})
	}
	got := outside(pub, signal.Compute(in))
	if len(got) != 1 || got[0].TraceHash != theirs.Hash || got[0].Seq != 2 || len(got[0].Jury) != signal.JurySize {
		t.Fatalf("outside: %+v, want the validation of %s alone, with its jury", got, theirs.Hash)
	}
	in.Rules = signal.RulesMesh2026v3
	if got := outside(pub, signal.Compute(in)); got != nil {
		t.Fatalf("outside under mesh-2026-3: %+v, want none", got)
	}
}

// TestUnderMesh2026v6AValidationOfTheReserveIsNotOutside: of three
// validations by the audited node, of a trace whose jury names it, one
// whose reserve does and one that names it in neither, only the last is
// outside; under mesh-2026-5 the reserve's is outside too.
func TestUnderMesh2026v6AValidationOfTheReserveIsNotOutside(t *testing.T) {
	url := func(name string) string { return "https://" + name + ".example/" }
	in := signal.Input{Rules: signal.RulesMesh2026v6, Founders: []signal.Founder{{Name: "node", URL: url("node")}}}
	for i := 1; i <= 11; i++ {
		n := fmt.Sprintf("f%d", i)
		in.Founders = append(in.Founders, signal.Founder{Name: n, URL: url(n)})
	}
	for s := 1; s <= 40; s++ {
		in.Traces = append(in.Traces, &ledger.Trace{Agent: "ann", AgentURL: url("ann"), Hash: manifest.HashBytes([]byte(fmt.Sprint("ann", s))),
			Seq: manifest.Seq(s), URL: fmt.Sprintf("%straces/%03d.md", url("ann"), s)})
	}
	as, _ := signal.NewAssignments(in)
	picked := map[string]*ledger.Trace{}
	for _, tr := range in.Traces {
		switch {
		case as.AssignedTo(tr, url("node")):
			picked["jury"] = tr
		case as.InReserve(tr, url("node")):
			picked["reserve"] = tr
		default:
			picked["neither"] = tr
		}
	}
	if len(picked) != 3 {
		t.Fatalf("a poor test: the node is in %d of jury, reserve and neither", len(picked))
	}
	pub := &public{agent: "node", url: url("node"), manifest: &manifest.Manifest{}, files: map[string][]byte{}}
	for i, kind := range []string{"jury", "reserve", "neither"} {
		tr := picked[kind]
		file := fmt.Sprintf("validations/val-%d.md", i+1)
		pub.files[file] = []byte(fmt.Sprintf("# VALIDATION\n\nvalidator: node\nvalidator_url: %s\ntrace_url: %s\ntrace_hash: %s\nvalidated_at: 2026-03-12T09:00:00Z\nresult: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
			url("node"), tr.URL, tr.Hash))
		pub.manifest.Entries = append(pub.manifest.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), File: file, Type: "validation"})
		in.Validations = append(in.Validations, &ledger.Validation{Validator: "node", ValidatorURL: url("node"), TraceHash: tr.Hash, Result: "pass"})
	}
	got := outside(pub, signal.Compute(in))
	if len(got) != 1 || got[0].TraceHash != picked["neither"].Hash || len(got[0].Reserve) != signal.ReserveSize {
		t.Fatalf("outside: %+v, want the validation of %s alone, with its jury and reserve", got, picked["neither"].Hash)
	}
	in.Rules = signal.RulesMesh2026v5
	if got := outside(pub, signal.Compute(in)); len(got) != 2 || got[0].TraceHash != picked["reserve"].Hash {
		t.Fatalf("outside under mesh-2026-5: %+v, want the reserve's and the other", got)
	}
}

// TestUnderMesh2026v7ALateReserveValidationFromItsLateEpochIsNotOutside:
// of two validations by the audited node of a trace whose late reserve
// names it, the one dated in the late epoch is assigned, the one dated
// the day before it is outside, listed with the trace's late reserve;
// under mesh-2026-6 both are outside.
func TestUnderMesh2026v7ALateReserveValidationFromItsLateEpochIsNotOutside(t *testing.T) {
	url := func(name string) string { return "https://" + name + ".example/" }
	in := signal.Input{Rules: signal.RulesMesh2026v7, Founders: []signal.Founder{{Name: "node", URL: url("node")}}}
	for i := 1; i <= 15; i++ {
		n := fmt.Sprintf("f%d", i)
		in.Founders = append(in.Founders, signal.Founder{Name: n, URL: url(n)})
	}
	day := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	var late []*ledger.Trace
	for s := 1; s <= 60 && len(late) < 2; s++ {
		tr := ledger.Trace{Agent: "ann", AgentURL: url("ann"), Hash: manifest.HashBytes([]byte(fmt.Sprint("ann", s))),
			Seq: manifest.Seq(s), URL: fmt.Sprintf("%straces/%03d.md", url("ann"), s), Submitted: day}
		in.Traces = append(in.Traces, &tr)
		if as, _ := signal.NewAssignments(in); as.InLateReserve(&tr, url("node")) {
			late = append(late, &tr)
		} else {
			in.Traces = in.Traces[:len(in.Traces)-1]
		}
	}
	if len(late) != 2 {
		t.Fatalf("a poor test: the node is in %d late reserves", len(late))
	}
	pub := &public{agent: "node", url: url("node"), manifest: &manifest.Manifest{}, files: map[string][]byte{}}
	for i, at := range []time.Time{day.Add(39 * time.Hour), day.Add(38 * time.Hour)} { // March 12, 00:00 and March 11, 23:00
		tr := late[i]
		file := fmt.Sprintf("validations/val-%d.md", i+1)
		pub.files[file] = []byte(fmt.Sprintf("# VALIDATION\n\nvalidator: node\nvalidator_url: %s\ntrace_url: %s\ntrace_hash: %s\nvalidated_at: %s\nresult: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
			url("node"), tr.URL, tr.Hash, at.Format(time.RFC3339)))
		pub.manifest.Entries = append(pub.manifest.Entries, manifest.Entry{Seq: manifest.Seq(i + 1), File: file, Type: "validation"})
		in.Validations = append(in.Validations, &ledger.Validation{Validator: "node", ValidatorURL: url("node"), TraceHash: tr.Hash, Result: "pass", ValidatedAt: at})
	}
	got := outside(pub, signal.Compute(in))
	if len(got) != 1 || got[0].TraceHash != late[1].Hash || !slices.Contains(got[0].LateReserve, "node") {
		t.Fatalf("outside: %+v, want the validation dated before the late epoch alone, with its late reserve", got)
	}
	in.Rules = signal.RulesMesh2026v6
	if got := outside(pub, signal.Compute(in)); len(got) != 2 {
		t.Fatalf("outside under mesh-2026-6: %+v, want both", got)
	}
}

package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

func TestCheckPassesCleanNode(t *testing.T) {
	dir := cleanNode(t)
	tests := []struct {
		name  string
		files []string
	}{
		{"every file", nil},
		{"changed files", []string{"traces/2026-03-02-new.md", "validations/" + validation.FileName(bobTrace)}},
		{"deleted and absent node files", []string{"traces/deleted-draft.md", "traces/sub/x.md", "mesh.yaml", "traces/.gitkeep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ps := Check(options(dir, tt.files...)); len(ps) != 0 {
				t.Errorf("clean node has problems:\n%s", strings.Join(lines(ps), "\n"))
			}
		})
	}
}

func TestCheckReportsEachBrokenFileAtItsLine(t *testing.T) {
	valOf := func(h manifest.Hash) string { return "validations/" + validation.FileName(h) }
	bob := valOf(bobTrace)
	unknown := manifest.HashBytes([]byte("never seen\n"))
	tests := []struct {
		name string
		file string
		text string
		want string
		// prefixOnly: the message comes from the format packages, whose
		// wording is theirs; the file and line are ours to get right.
		prefixOnly bool
	}{
		{name: "score above 5", file: bob, text: validationFile(bobTrace, bobTraceURL, "substance: 7", "total_score: 23"),
			want: bob + ":12: ", prefixOnly: true},
		{name: "score not an integer", file: bob, text: validationFile(bobTrace, bobTraceURL, "substance: 3.5"),
			want: bob + ":12: ", prefixOnly: true},
		{name: "total is not the sum of the scores", file: bob, text: validationFile(bobTrace, bobTraceURL, "total_score: 21"),
			want: bob + ":9: ", prefixOnly: true},
		{name: "result contradicts the pass threshold", file: bob, text: validationFile(bobTrace, bobTraceURL, "result: fail"),
			want: bob + ":8: ", prefixOnly: true},
		{name: "validator is another agent", file: bob, text: validationFile(bobTrace, bobTraceURL, "validator: bob"),
			want: bob + `:3: validator is "bob", but this node is "ada": a pull request may add only this node's validations`},
		{name: "validator_url is another node", file: bob, text: validationFile(bobTrace, bobTraceURL, "validator_url: "+bobURL),
			want: bob + ":4: validator_url is " + bobURL + ", but this node's url is " + ourURL},
		{name: "trace hash unknown to the ledger", file: valOf(unknown), text: validationFile(unknown, bobTraceURL),
			want: valOf(unknown) + ":6: trace_hash " + string(unknown) + " is not in mesh-state/ledger.json: validate only traces the heartbeat fetched and verified"},
		{name: "trace hash never verified", file: valOf(unverified), text: validationFile(unverified, bobTraceURL),
			want: valOf(unverified) + ":6: trace_hash " + string(unverified) + " was never verified (its MANIFEST row names no file to fetch)"},
		{name: "trace hash rejected as a mismatch", file: valOf(rejected), text: validationFile(rejected, bobURL+"traces/tampered.md"),
			want: valOf(rejected) + ":6: trace_hash " + string(rejected) + " was rejected: the bytes served did not match it; never validate a trace whose hash did not verify"},
		{name: "self-validation", file: valOf(ownTrace), text: validationFile(ownTrace, ourURL+"traces/2026-03-01-polling-costs.md"),
			want: valOf(ownTrace) + ":5: self-validation: " + ourURL + "traces/2026-03-01-polling-costs.md is this node's own trace; never validate your own trace"},
		{name: "trace_url is not where the hash was fetched", file: bob, text: validationFile(bobTrace, bobURL+"traces/other.md"),
			want: bob + ":5: trace_url " + bobURL + "traces/other.md is not where trace_hash " + string(bobTrace) + " was fetched (" + bobTraceURL + ")"},
		{name: "file name does not match the trace hash", file: "validations/val-000000000000.md", text: validationFile(cydTrace, cydTraceURL),
			want: "validations/val-000000000000.md:6: file name should be " + validation.FileName(cydTrace) + " for trace_hash " + string(cydTrace)},
		{name: "trace without a title", file: "traces/untitled.md", text: "just words, no heading\n",
			want: "traces/untitled.md:1: ", prefixOnly: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := cleanNode(t)
			write(t, dir, tt.file, tt.text)
			got := lines(Check(options(dir, tt.file)))
			if len(got) != 1 {
				t.Fatalf("got %d problems, want 1:\n%s", len(got), strings.Join(got, "\n"))
			}
			if tt.prefixOnly && !strings.HasPrefix(got[0], tt.want) || !tt.prefixOnly && got[0] != tt.want {
				t.Errorf("got  %s\nwant %s", got[0], tt.want)
			}
		})
	}
}

func TestCheckReportsChangedPublishedFiles(t *testing.T) {
	const f = "traces/2026-03-01-polling-costs.md"
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string
	}{
		{
			name:   "edited",
			change: func(t *testing.T, dir string) { write(t, dir, f, ownTraceBytes+"typo fixed\n") },
			want: f + ":1: published file was edited (published as " + string(ownTrace) + ", now " + string(manifest.HashBytes([]byte(ownTraceBytes+"typo fixed\n"))) +
				"); published files are immutable: restore it (`git checkout BASE-BRANCH -- " + f + "`) and publish a correcting trace that cites it",
		},
		{
			name: "deleted",
			change: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
					t.Fatal(err)
				}
			},
			want: f + ":1: published file was deleted (published as " + string(ownTrace) +
				"); published files are immutable: restore it (`git checkout BASE-BRANCH -- " + f + "`) and publish a correcting trace that cites it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := cleanNode(t)
			tt.change(t, dir)
			// Even when the pull request lists other files only.
			got := lines(Check(options(dir, "traces/2026-03-02-new.md")))
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCheckEnforcesStanding(t *testing.T) {
	val := "validations/" + validation.FileName(bobTrace)
	tests := []struct {
		name     string
		founders string // FOUNDERS.md; "-" removes it
		want     []string
	}{
		{"a founder has standing", string(signal.FormatFounders(signal.RulesMesh2026v1, []signal.Founder{{Name: agent, URL: ourURL}})), nil},
		{"no founders: nobody has standing", "-",
			[]string{val + ":1: no standing: FOUNDERS.md names no founders"}},
		{"not a founder and SIGNAL below 50", "# FOUNDERS\nbob | " + bobURL + "\n",
			[]string{val + ":1: no standing yet: SIGNAL 0.5 of the 50 standing needs; 1 of your traces validated by agents with standing"}},
		{"a FOUNDERS.md that does not parse is reported at its line", "# FOUNDERS\nbob " + bobURL + "\n",
			[]string{"FOUNDERS.md:2: not an agent line (no '|')"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := cleanNode(t)
			if tt.founders == "-" {
				if err := os.Remove(filepath.Join(dir, node.FoundersFile)); err != nil {
					t.Fatal(err)
				}
			} else {
				write(t, dir, node.FoundersFile, tt.founders)
			}
			got := lines(Check(options(dir, val)))
			if len(got) != len(tt.want) {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("got %q\nwant prefix %q", got[i], tt.want[i])
				}
			}
		})
	}
}

func TestCheckReportsTwoValidationsOfOneTrace(t *testing.T) {
	dir := cleanNode(t)
	other := "validations/val-zzz.md"
	write(t, dir, other, validationFile(bobTrace, bobTraceURL))
	first := "validations/" + validation.FileName(bobTrace)
	// Given only the new file, the old one is still seen.
	got := lines(Check(options(dir, other)))
	want := []string{
		other + ":6: file name should be " + validation.FileName(bobTrace) + " for trace_hash " + string(bobTrace),
		other + ":6: " + first + " also validates trace_hash " + string(bobTrace) + ": one validation per trace, delete one",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckReportsCorruptLedger(t *testing.T) {
	dir := cleanNode(t)
	write(t, dir, node.LedgerFile, "{not json")
	got := Check(options(dir, "traces/2026-03-02-new.md"))
	if len(got) != 1 || got[0].File != node.LedgerFile || got[0].Line != 1 {
		t.Errorf("got %q, want one problem on %s", lines(got), node.LedgerFile)
	}
}

// TestCheckFailsClosedOnABaseThatDoesNotOpen: a base whose state does not
// decode (here a peer's cursors file) is one problem at that file, so no
// pull request passes until the node's owner fixes it.
func TestCheckFailsClosedOnABaseThatDoesNotOpen(t *testing.T) {
	dir := cleanNode(t)
	bad := filepath.ToSlash(statefile.PeerPath(node.CursorsFile, "https://bob.example.org/mesh/"))
	write(t, dir, bad, "{not json")
	got := Check(options(dir, "traces/2026-03-02-new.md"))
	if len(got) != 1 || got[0].File != bad || !strings.Contains(got[0].Message, "the node does not open") {
		t.Errorf("got %q, want one problem on %s", lines(got), bad)
	}
}

// TestCheckReportsEveryProblemOnceAtItsFile: one bad score no longer hides
// the others, messages say "not a validation" once, and a broken file of
// our own is reported at that file, not at mesh-state/ledger.json.
func TestCheckReportsEveryProblemOnceAtItsFile(t *testing.T) {
	bob := "validations/" + validation.FileName(bobTrace)
	t.Run("every bad score, each at its line", func(t *testing.T) {
		dir := cleanNode(t)
		write(t, dir, bob, validationFile(bobTrace, bobTraceURL, "substance: x", "uniqueness: 9", "specificity: y",
			"actionability: z", "structure: -1", "freshness: w"))
		got := lines(Check(options(dir, bob)))
		want := []string{
			bob + `:12: substance: score "x" is not an integer`,
			bob + ":13: uniqueness score 9 is outside 0–5",
			bob + `:14: specificity: score "y" is not an integer`,
			bob + `:15: actionability: score "z" is not an integer`,
			bob + ":16: structure score -1 is outside 0–5",
			bob + `:17: freshness: score "w" is not an integer`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("a file that is no validation, said once", func(t *testing.T) {
		dir := cleanNode(t)
		write(t, dir, "validations/notes.md", "# Notes\n\nto do\n")
		for _, files := range [][]string{{"validations/notes.md"}, nil} {
			got := lines(Check(options(dir, files...)))
			if len(got) != 1 || !strings.HasPrefix(got[0], "validations/notes.md:1: not a validation: no validator") {
				t.Errorf("files %v: got %q, want one problem at validations/notes.md", files, got)
			}
		}
	})
}

// TestCheckCapsAgentsAtWhatPeersRead: an AGENTS.md over limits.agents_bytes
// (256 KiB), which peers cut off, is refused; one at the cap passes.
func TestCheckCapsAgentsAtWhatPeersRead(t *testing.T) {
	for _, tt := range []struct {
		size int64
		want bool // a problem
	}{{maxAgentsBytes, false}, {maxAgentsBytes + 1, true}, {node.MaxTopFileBytes, true}} {
		dir := cleanNode(t)
		head := "# name | trace_url | joined\n"
		write(t, dir, node.AgentsFile, head+strings.Repeat("#", int(tt.size)-len(head)-1)+"\n")
		got := lines(Check(options(dir, node.AgentsFile)))
		want := fmt.Sprintf("AGENTS.md:1: %d bytes: peers read at most 262144 (limits.agents_bytes, 256 KiB) of an AGENTS.md", tt.size)
		if tt.want && (len(got) != 1 || got[0] != want) {
			t.Errorf("%d bytes: got %q, want %q", tt.size, got, want)
		}
		if !tt.want && len(got) != 0 {
			t.Errorf("%d bytes: got %q, want no problem", tt.size, got)
		}
	}
}

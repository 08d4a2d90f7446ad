package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
	"github.com/meshnode/meshnode/internal/statefile"
	"github.com/meshnode/meshnode/internal/validation"
)

// The base node of the hostile pull requests: one published trace, bob's
// trace fetched and verified, and FOUNDERS.md (ada, a founder, has
// standing; bob alone leaves ada without).
const (
	hostileURL       = "https://ada.example.org/mesh/"
	hostilePublished = "traces/2026-03-01-first.md"
	bobTraceURLCmd   = "https://bob.example.org/mesh/traces/gaps.md"
)

var bobTraceHash = manifest.HashBytes([]byte("bob's trace on gaps\n"))

const (
	adaFounder = "# FOUNDERS\n\nada | " + hostileURL + "\n"
	bobFounder = "# FOUNDERS\n\nbob | https://bob.example.org/mesh/\n"
)

// hostileBase writes the node as the base branch holds it, with founders
// as its FOUNDERS.md.
func hostileBase(t testing.TB, founders string) string {
	t.Helper()
	dir := t.TempDir()
	writeCheckNodeFile(t, dir, "mesh.yaml", "agent: ada\nurl: "+hostileURL+"\n")
	writeCheckNodeFile(t, dir, "FOUNDERS.md", founders)
	writeCheckNodeFile(t, dir, "IDENTITY.md", "# ada\n")
	writeCheckNodeFile(t, dir, hostilePublished, "---\ntitle: First\n---\n\n# First\n")
	_, err := publish.Publish(publish.Options{Dir: dir, Agent: "ada", URL: hostileURL, Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.New()
	l.AddTrace(&ledger.Trace{Agent: "bob", AgentURL: "https://bob.example.org/mesh/", Hash: bobTraceHash, File: "traces/gaps.md", URL: bobTraceURLCmd, Verified: true})
	if err := os.MkdirAll(filepath.Join(dir, "mesh-state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(filepath.Join(dir, "mesh-state", "ledger.json")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// prTree copies the base into the pull request's tree, as a checkout of
// its head would hold it.
func prTree(t *testing.T, base string) string { return prTreeFS(t, base) }

func prTreeFS(t testing.TB, base string) string {
	t.Helper()
	pr := t.TempDir()
	if err := os.CopyFS(pr, os.DirFS(base)); err != nil {
		t.Fatal(err)
	}
	return pr
}

func canonicalValidation(hash manifest.Hash, url string, extra ...string) string {
	lines := []string{"# VALIDATION", "", "validator: ada", "validator_url: " + hostileURL, "trace_url: " + url,
		"trace_hash: " + string(hash), "validated_at: 2026-03-01T11:00:00Z", "result: pass", "total_score: 20", "", "scores:",
		"  substance: 4", "  uniqueness: 3", "  specificity: 4", "  actionability: 3", "  structure: 3", "  freshness: 3"}
	return strings.Join(append(lines, extra...), "\n") + "\n"
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestCheckRefusesHostilePullRequests runs `meshnode check` the way the
// check workflow does (the pull request's tree as --dir, the base as
// --base, its changed files after --) over pull requests a stranger could
// open. Each must exit 3 and name the file at fault.
// forgedLedgerFile is where ledger.Save writes bob's records: the ledger
// keeps a file per peer under mesh-state/ledger/.
var forgedLedgerFile = filepath.ToSlash(statefile.PeerPath(node.LedgerFile, "https://bob.example.org/mesh/"))

func TestCheckRefusesHostilePullRequests(t *testing.T) {
	goodVal := "validations/" + validation.FileName(bobTraceHash)
	forged := manifest.HashBytes([]byte("a trace the heartbeat never saw\n"))
	// forgeLedger writes a ledger that claims forged was verified, and a
	// validation of it.
	forgeLedger := func(t *testing.T, pr string) {
		l := ledger.New()
		l.AddTrace(&ledger.Trace{Agent: "bob", AgentURL: "https://bob.example.org/mesh/", Hash: forged, URL: bobTraceURLCmd, Verified: true})
		if _, err := l.Save(filepath.Join(pr, "mesh-state", "ledger.json")); err != nil {
			t.Fatal(err)
		}
		writeCheckNodeFile(t, pr, "validations/"+validation.FileName(forged), canonicalValidation(forged, bobTraceURLCmd))
	}
	tests := []struct {
		name     string
		founders string
		pr       func(t *testing.T, pr string)
		args     []string // after "check --dir . --base BASE"
		want     string   // a line of stdout must start with it
	}{
		{name: "a file named -h cannot print help instead",
			pr:   func(t *testing.T, pr string) { writeCheckNodeFile(t, pr, "traces/x.html", "<script>alert(1)</script>") },
			args: []string{"--", "-h", "traces/x.html"}, want: "traces/x.html:1: not a publishable name"},
		{name: "a file named --dir=x cannot move the check elsewhere",
			pr:   func(t *testing.T, pr string) { writeCheckNodeFile(t, pr, "traces/x.svg", "<svg onload=alert(1)/>") },
			args: []string{"--", "--dir=/tmp", "traces/x.svg"}, want: "traces/x.svg:1: not a publishable name"},
		{name: "without --, a flag-like name after the first file is a file",
			pr:   func(t *testing.T, pr string) { writeCheckNodeFile(t, pr, "traces/x.html", "<b>") },
			args: []string{"traces/x.html", "-h", "--base=/"}, want: "traces/x.html:1: not a publishable name"},
		{name: "a pull request that only deletes a published trace",
			pr: func(t *testing.T, pr string) {
				if err := os.Remove(filepath.Join(pr, filepath.FromSlash(hostilePublished))); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"--", hostilePublished}, want: hostilePublished + ":1: published file was deleted"},
		{name: "a rename of a published trace is its deletion",
			pr: func(t *testing.T, pr string) {
				if err := os.Rename(filepath.Join(pr, filepath.FromSlash(hostilePublished)), filepath.Join(pr, "traces", "renamed.md")); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"--", hostilePublished, "traces/renamed.md"}, want: hostilePublished + ":1: published file was deleted"},
		{name: "a published trace replaced by a link to the same bytes",
			pr: func(t *testing.T, pr string) {
				p := filepath.Join(pr, filepath.FromSlash(hostilePublished))
				data, _ := os.ReadFile(p)
				writeCheckNodeFile(t, pr, "traces/copy.md", string(data))
				symlink(t, "copy.md", p)
			},
			args: []string{"--", hostilePublished}, want: hostilePublished + ":1: published file " + hostilePublished + " is a symbolic link"},
		{name: "a symlinked IDENTITY.md",
			pr:   func(t *testing.T, pr string) { symlink(t, "../../.git/config", filepath.Join(pr, "IDENTITY.md")) },
			args: []string{"--", "IDENTITY.md"}, want: "IDENTITY.md:1: IDENTITY.md is a symbolic link"},
		{name: "an IDENTITY.md the build would refuse for its size",
			pr: func(t *testing.T, pr string) {
				if err := os.Truncate(filepath.Join(pr, "IDENTITY.md"), 5<<20); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"--", "IDENTITY.md"}, want: "IDENTITY.md:1: 5242880 bytes: meshnode build copies at most"},
		{name: "a symlinked AGENTS.md",
			pr:   func(t *testing.T, pr string) { symlink(t, "/etc/passwd", filepath.Join(pr, "AGENTS.md")) },
			args: []string{"--", "AGENTS.md"}, want: "AGENTS.md:1: AGENTS.md is a symbolic link"},
		{name: "a symlink in traces/",
			pr:   func(t *testing.T, pr string) { symlink(t, "/etc/hostname", filepath.Join(pr, "traces", "leak.md")) },
			args: []string{"--", "traces/leak.md"}, want: "traces/leak.md:1: traces/leak.md is a symbolic link"},
		{name: "validations/ made a symlink",
			pr:   func(t *testing.T, pr string) { symlink(t, "/etc", filepath.Join(pr, "validations")) },
			args: []string{"--", "validations"}, want: "validations:1: validations is a symbolic link"},
		{name: "an html page in traces/",
			pr:   func(t *testing.T, pr string) { writeCheckNodeFile(t, pr, "traces/x.html", "<script>alert(1)</script>") },
			args: []string{"--", "traces/x.html"}, want: "traces/x.html:1: not a publishable name: only .md files are published"},
		{name: "an svg in validations/",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "validations/x.svg", "<svg onload=alert(1)/>")
			},
			args: []string{"--", "validations/x.svg"}, want: "validations/x.svg:1: not a publishable name: only .md files are published"},
		{name: "a file in a subdirectory of traces/",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "traces/sub/x.html", "<script>alert(1)</script>")
			},
			args: []string{"--", "traces/sub/x.html"}, want: "traces/sub/x.html:1: files in a subdirectory of traces/ are never published"},
		{name: "a hidden file in a directory at a validation's name",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "validations/val-"+strings.Repeat("a", 12)+".md/.gitkeep", "")
			},
			args: []string{"--", "validations/val-" + strings.Repeat("a", 12) + ".md/.gitkeep"},
			want: "validations/val-" + strings.Repeat("a", 12) + ".md/.gitkeep:1: files in a subdirectory of validations/ are never published"},
		{name: "a directory (a submodule's checkout) at a validation's name",
			pr: func(t *testing.T, pr string) {
				if err := os.MkdirAll(filepath.Join(pr, "validations", "val-"+strings.Repeat("b", 12)+".md"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"--", "validations/val-" + strings.Repeat("b", 12) + ".md"},
			want: "validations/val-" + strings.Repeat("b", 12) + ".md:1: a directory (or a submodule) where the node publishes files"},
		{name: "a 255-byte name",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "traces/"+strings.Repeat("a", 252)+".md", "# Long\n")
			},
			args: []string{"--", "traces/" + strings.Repeat("a", 252) + ".md"}, want: "traces/" + strings.Repeat("a", 252) + ".md:1: not a publishable name: the name is 255 bytes"},
		{name: "a newline in a name",
			pr:   func(t *testing.T, pr string) { writeCheckNodeFile(t, pr, "traces/a\nb.md", "# Newline\n") },
			args: []string{"--", "traces/a\nb.md"}, want: `"traces/a\nb.md":1: not a publishable name`},
		{name: "a trace whose page would replace the site's index of traces",
			pr:   func(t *testing.T, pr string) { writeCheckNodeFile(t, pr, "traces/index.md", "# Index\n") },
			args: []string{"--", "traces/index.md"}, want: "traces/index.md:1: not a publishable name: index.md is taken"},
		{name: "a name that would break a MANIFEST row",
			pr:   func(t *testing.T, pr string) { writeCheckNodeFile(t, pr, "traces/a | 99 | x.md", "# Pipe\n") },
			args: []string{"--", "traces/a | 99 | x.md"}, want: "traces/a | 99 | x.md:1: not a publishable name"},
		{name: "a 60 MB validation",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, goodVal, canonicalValidation(bobTraceHash, bobTraceURLCmd))
				if err := os.Truncate(filepath.Join(pr, filepath.FromSlash(goodVal)), 60<<20); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"--", goodVal}, want: goodVal + ":1: 62914560 bytes: peers read at most 1048576"},
		{name: "a forged ledger that claims a trace was verified",
			pr:   forgeLedger,
			args: []string{"--", forgedLedgerFile, "validations/" + validation.FileName(forged)},
			want: forgedLedgerFile + ":1: written only by the heartbeat"},
		{name: "the forged ledger does not vouch for the validation either",
			pr:   forgeLedger,
			args: []string{"--", forgedLedgerFile, "validations/" + validation.FileName(forged)},
			want: "validations/" + validation.FileName(forged) + ":6: trace_hash " + string(forged) + " is not in mesh-state/ledger.json"},
		{name: "MANIFEST.md edited to forget a row, and the file deleted",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "MANIFEST.md", "# MANIFEST\n\nagent: ada\nurl: "+hostileURL+"\nsequence: 1\n")
				os.Remove(filepath.Join(pr, filepath.FromSlash(hostilePublished)))
			},
			args: []string{"--", "MANIFEST.md", hostilePublished}, want: hostilePublished + ":1: published file was deleted"},
		{name: "a dispute added by hand",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "disputes/dispute-000000000000.md", "# MANIFEST-DISPUTE\n")
			},
			args: []string{"--", "disputes/dispute-000000000000.md"}, want: "disputes/dispute-000000000000.md:1: written only by the heartbeat"},
		{name: "FOUNDERS.md edited to name its author a founder gives no standing",
			founders: bobFounder,
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "FOUNDERS.md", bobFounder+"ada | "+hostileURL+"\n")
				writeCheckNodeFile(t, pr, goodVal, canonicalValidation(bobTraceHash, bobTraceURLCmd))
			},
			args: []string{"--", "FOUNDERS.md", goodVal}, want: goodVal + ":1: no standing yet"},
		{name: "a symlinked FOUNDERS.md",
			pr:   func(t *testing.T, pr string) { symlink(t, "/etc/passwd", filepath.Join(pr, "FOUNDERS.md")) },
			args: []string{"--", "FOUNDERS.md"}, want: "FOUNDERS.md:1: FOUNDERS.md is a symbolic link"},
		// Trust-changing edits are never passed, however well formed: the
		// required status must not be green for them.
		{name: "a founder added to FOUNDERS.md",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "FOUNDERS.md", adaFounder+"eve | https://eve.example.org/mesh/\n")
			},
			args: []string{"--", "FOUNDERS.md"}, want: "FOUNDERS.md:1: changes the mesh's founders, who decide every agent's standing: the gate never passes a change to it; a person must review it"},
		{name: "allow_private_addresses turned on in mesh.yaml",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "mesh.yaml", "agent: ada\nurl: "+hostileURL+"\nallow_private_addresses: true\n")
			},
			args: []string{"--", "mesh.yaml"}, want: "mesh.yaml:1: changes this node's settings (allow_private_addresses, gossip, limits): the gate never passes"},
		{name: "an agent added to AGENTS.md",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "AGENTS.md", "# name | trace_url | joined\nbob | https://eve.example.org/mesh/ | 2026-03-01\n")
			},
			args: []string{"--", "AGENTS.md"}, want: "AGENTS.md:1: changes the agents this node polls and the URL each name is bound to: the gate never passes"},
		{name: "FOUNDERS.md deleted",
			pr: func(t *testing.T, pr string) {
				if err := os.Remove(filepath.Join(pr, "FOUNDERS.md")); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"--", "FOUNDERS.md"}, want: "FOUNDERS.md:1: changes the mesh's founders"},
		{name: "an AGENTS.md larger than peers read",
			pr: func(t *testing.T, pr string) {
				writeCheckNodeFile(t, pr, "AGENTS.md", "# name | trace_url | joined\n"+strings.Repeat("# padding\n", 30<<10))
			},
			args: []string{"--", "AGENTS.md"}, want: "AGENTS.md:1: 307228 bytes: peers read at most 262144 (limits.agents_bytes, 256 KiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			founders := tt.founders
			if founders == "" {
				founders = adaFounder
			}
			base := hostileBase(t, founders)
			pr := prTree(t, base)
			tt.pr(t, pr)
			t.Chdir(pr)
			out, errOut, err := runPublishingCLI(t, append([]string{"check", "--dir", ".", "--base", base}, tt.args...)...)
			var pf *problemsFound
			if !errors.As(err, &pf) {
				t.Fatalf("err = %v, want problems found (exit 3)\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
			}
			if !hasLinePrefix(out, tt.want) {
				t.Errorf("stdout has no line starting %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestCheckPassesAnHonestPullRequest: the same gate lets a good validation
// and a good trace through, on a branch that is behind its base.
func TestCheckPassesAnHonestPullRequest(t *testing.T) {
	base := hostileBase(t, adaFounder)
	pr := prTree(t, base)
	goodVal := "validations/" + validation.FileName(bobTraceHash)
	writeCheckNodeFile(t, pr, goodVal, canonicalValidation(bobTraceHash, bobTraceURLCmd))
	writeCheckNodeFile(t, pr, "traces/2026-03-02-second.md", "---\ntitle: Second\n---\n\n# Second\n")
	// The base moved on since the branch was made: a trace published there
	// is absent from the pull request's tree, which is no deletion.
	writeCheckNodeFile(t, base, "traces/2026-03-03-later.md", "---\ntitle: Later\n---\n\n# Later\n")
	if _, err := publish.Publish(publish.Options{Dir: base, Agent: "ada", URL: hostileURL, Now: time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pr)
	out, errOut, err := runPublishingCLI(t, "check", "--dir", ".", "--base", base, "--", goodVal, "traces/2026-03-02-second.md")
	if err != nil {
		t.Fatalf("err = %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
}

func hasLinePrefix(out, prefix string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

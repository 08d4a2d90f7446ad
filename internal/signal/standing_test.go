package signal

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
)

func TestOwnAndSelfFindTheAgentAtItsURL(t *testing.T) {
	in := Input{
		Traces: []*ledger.Trace{tr("ann", 1, "knowledge", "pebble"), tr("ann", 2, "knowledge", "pebble"), tr("ann", 3, "knowledge", "pebble"), tr("bob", 1, "knowledge", "pebble")},
		Validations: []*ledger.Validation{
			val("bob", hash("ann", 1), "pass"),
			val("bob", hash("ann", 2), "fail"),
			val("cy", hash("bob", 1), "pass"), // cy has no standing
			val("cy", hash("ann", 3), "pass"),
		},
		Founders: founders("bob"),
	}
	r := Compute(in)
	own := Own(r, "https://ann.example/")
	want := map[manifest.Hash]manifest.Status{hash("ann", 1): manifest.StatusValidated, hash("ann", 2): manifest.StatusFailed, hash("ann", 3): manifest.StatusPending}
	if !reflect.DeepEqual(own, want) {
		t.Fatalf("Own = %v, want %v", own, want)
	}
	ann, ok := Self(r, "https://ANN.example")
	if !ok || ann.Agent != "ann" || ann.TracesValidated != 1 {
		t.Errorf("Self(ann) = %+v, %v", ann, ok)
	}
	if _, ok := Self(r, "https://nobody.example/"); ok {
		t.Error("Self found an agent the report does not hold")
	}
	p := ProgressOf(r, "https://ann.example/")
	if p.HasStanding() || p.Uncounted != 1 || !reflect.DeepEqual(p.Founders, []string{"bob"}) {
		t.Errorf("ProgressOf(ann) = %+v", p)
	}
	for _, s := range []string{"SIGNAL 2 of the 50", "1 of your traces validated", "1 validations of them by agents without standing"} {
		if !strings.Contains(p.Reason(), s) {
			t.Errorf("reason %q does not say %q", p.Reason(), s)
		}
	}
	if !strings.Contains(p.Next(), "founders: bob") || !strings.Contains(p.Next(), "AGENTS.md") {
		t.Errorf("next step %q does not say whom to ask", p.Next())
	}
	if b := ProgressOf(r, "https://bob.example/"); !b.HasStanding() || b.Next() != "" || !strings.Contains(b.Reason(), "founder") {
		t.Errorf("ProgressOf(bob) = %+v, %q", b, b.Reason())
	}
}

func TestProgressWithoutFoundersSaysHowToFoundOrJoin(t *testing.T) {
	p := ProgressOf(Compute(Input{Traces: []*ledger.Trace{tr("ann", 1, "knowledge", "rock")}}), "https://ann.example/")
	if p.HasStanding() || !strings.Contains(p.Reason(), "FOUNDERS.md names no founders") {
		t.Errorf("reason %q", p.Reason())
	}
	if !strings.Contains(p.Next(), "init --founder") || !strings.Contains(p.Next(), "copy its FOUNDERS.md") {
		t.Errorf("next %q", p.Next())
	}
}

func TestFoundersDeclaration(t *testing.T) {
	fs := []Founder{{Name: "ann", URL: "https://ann.example/"}, {Name: "bob", URL: "https://bob.example/t/"}}
	data := FormatFounders("mesh-test-9", fs)
	d, err := ParseFounders(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Founders, fs) || !strings.HasPrefix(string(d.Hash), "sha256:") || d.Rules != "mesh-test-9" || !d.RulesDeclared {
		t.Fatalf("round trip gave %+v", d)
	}
	t.Run("no rules line is the rules of meshes before rule sets had names", func(t *testing.T) {
		d, err := ParseFounders([]byte("ann | https://ann.example/\n"))
		if err != nil || d.Rules != RulesMesh2026v1 || d.RulesDeclared {
			t.Fatalf("got %+v, %v", d, err)
		}
	})
	t.Run("a bad or second rules line is an error at its line", func(t *testing.T) {
		for data, at := range map[string]string{
			"rules: mesh-2026-1\nann | https://ann.example/\nrules: mesh-2026-1\n": "FOUNDERS.md:3:",
			"ann | https://ann.example/\nrules: Mesh 2026\n":                       "FOUNDERS.md:2:",
			"rules:\n": "FOUNDERS.md:1:",
		} {
			if _, err := ParseFounders([]byte(data)); err == nil || !strings.Contains(err.Error(), at) {
				t.Errorf("%q: got %v, want an error at %s", data, err, at)
			}
		}
	})
	t.Run("a line that is not a founder is an error at its line", func(t *testing.T) {
		_, err := ParseFounders([]byte("# FOUNDERS\nann | https://ann.example/\nbob https://bob.example/\n"))
		var fe *FoundersError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "FOUNDERS.md:3:") {
			t.Fatalf("got %v, want an error at FOUNDERS.md:3", err)
		}
	})
	t.Run("no file is no founders", func(t *testing.T) {
		d, err := ReadFounders(t.TempDir())
		if err != nil || len(d.Founders) != 0 || d.Hash != "" {
			t.Fatalf("got %+v, %v", d, err)
		}
	})
	t.Run("a symlink is refused", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "real.md"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("real.md", filepath.Join(dir, FoundersFile)); err != nil {
			t.Skip(err)
		}
		if _, err := ReadFounders(dir); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Fatalf("got %v, want a refusal", err)
		}
	})
	t.Run("too large is an error", func(t *testing.T) {
		dir := t.TempDir()
		big := append([]byte("# FOUNDERS\n"), []byte(strings.Repeat("#\n", MaxFoundersBytes))...)
		if err := os.WriteFile(filepath.Join(dir, FoundersFile), big, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFounders(dir); err == nil || !strings.Contains(err.Error(), "larger") {
			t.Fatalf("got %v", err)
		}
	})
}

func FuzzParseFounders(f *testing.F) {
	f.Add(FormatFounders(NewMeshRules, founders("ann", "bob")))
	f.Add([]byte("| Agent | URL |\n|---|---|\n| ann | https://ann.example/ |\n"))
	f.Add([]byte("ann | ftp://x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseFounders(data)
		if err != nil {
			return
		}
		// What parses writes back and parses to the same founders.
		again, err := ParseFounders(FormatFounders(d.Rules, d.Founders))
		if err != nil || !reflect.DeepEqual(again.Founders, d.Founders) || again.Rules != d.Rules {
			t.Fatalf("round trip of %+v gave %+v, %v", d.Founders, again.Founders, err)
		}
	})
}

func TestProgressUnderNewRulesSaysAMeshOfOneFounderAdmitsNobody(t *testing.T) {
	in := Input{Founders: founders("fred"), Rules: RulesMesh2026v2}
	for s := 1; s <= 5; s++ {
		in.Traces = append(in.Traces, tr("ann", s, "capability", "rock"))
		in.Validations = append(in.Validations, val("fred", hash("ann", s), "pass"))
	}
	p := ProgressOf(Compute(in), "https://ann.example/")
	if p.HasStanding() {
		t.Fatalf("ann has standing on one founder's passes: %+v", p.Self)
	}
	if !strings.Contains(p.Reason(), "passed by 1 of the 2 agents with standing") {
		t.Errorf("reason %q does not say how many agents passed ann", p.Reason())
	}
	if !strings.Contains(p.Next(), "FOUNDERS.md names 1 founder(s) (fred)") || !strings.Contains(p.Next(), "another founder") {
		t.Errorf("next %q does not say the mesh needs another founder", p.Next())
	}
}

package dispute

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const (
	hashA = "sha256:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	hashB = "sha256:3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"
)

func TestFormatGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*.md")
	for _, in := range inputs {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".md"), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			got := d.Format()
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update && filepath.Base(in) != "canonical.md" {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestParseReadsVariant(t *testing.T) {
	data, err := os.ReadFile("testdata/variant.md")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want := Dispute{
		Agent: "czero", FileURL: "https://mycelnet.ai/basecamp/agents-hosted/czero/traces/001-first-trace.md", Seq: 1,
		ClaimedHash: hashA, ServedHash: hashB, ObservedAt: time.Date(2026, 3, 1, 11, 0, 0, 500_000_000, time.UTC),
		Notes: "CRLF rewritten",
	}
	if *d != want {
		t.Errorf("\n got %+v\nwant %+v", *d, want)
	}
}

func TestParseRejects(t *testing.T) {
	tests := map[string]string{
		"empty":          "",
		"validation":     "# VALIDATION\n\nvalidator: a\ntrace_hash: " + hashA + "\n",
		"one hash only":  "claimed_hash: " + hashA + "\n",
		"not utf-8":      Title + "\n\xff",
		"bad seq":        Title + "\nseq: seven\n",
		"bad time":       Title + "\nobserved_at: yesterday\n",
		"year past 9999": Title + "\nobserved_at: 9999-12-31T23:59:59-23:00\n",
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			if d, err := Parse([]byte(data)); err == nil {
				t.Errorf("accepted as %+v", d)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	good := Dispute{Agent: "a", FileURL: "https://a.example/t.md", Seq: 3, ClaimedHash: hashA, ServedHash: hashB}
	tests := []struct {
		name   string
		change func(*Dispute)
		want   string
	}{
		{"complete", func(*Dispute) {}, ""},
		{"same hashes", func(d *Dispute) { d.ServedHash = hashA }, "equal"},
		{"truncated claim", func(d *Dispute) { d.ClaimedHash = "sha256:abc" }, "claimed_hash"},
		{"no file", func(d *Dispute) { d.FileURL = "" }, "file_url"},
		{"no agent", func(d *Dispute) { d.Agent = "" }, "agent"},
		{"seq zero", func(d *Dispute) { d.Seq = 0 }, "seq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := good
			tt.change(&d)
			got := strings.Join(d.Check(), "; ")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("Check() = %q, want it to mention %q", got, tt.want)
			}
		})
	}
}

func TestFileNameUsesTwelveHexDigitsOfTheClaim(t *testing.T) {
	tests := map[string]string{
		hashA:                     "dispute-ca978112ca1b.md",
		strings.ToUpper(hashA):    "dispute-ca978112ca1b.md",
		"ca978112ca1bbdcafac2":    "dispute-ca978112ca1b.md",
		"sha256:../../etc/passwd": "dispute-ecad.md",
	}
	for in, want := range tests {
		if got := FileName(manifest.Hash(in)); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFileNameAboutAnotherAgentKeepsTheClaimAndNamesTheAgent: a second
// agent's dispute of one claimed hash is named by the claim's 12 hex
// digits and 12 of its agent URL's sha256: one name per claim and agent,
// never FileName's, whatever the URL holds.
func TestFileNameAboutAnotherAgentKeepsTheClaimAndNamesTheAgent(t *testing.T) {
	const gamma, puppet = "https://gamma.example/mesh/", "https://puppet.example/../etc/"
	g, p := FileNameAbout(manifest.Hash(hashA), gamma), FileNameAbout(manifest.Hash(hashA), puppet)
	form := regexp.MustCompile(`^dispute-` + manifest.Hash(hashA).Hex(12) + `-[0-9a-f]{12}\.md$`)
	for _, name := range []string{g, p} {
		if !form.MatchString(name) {
			t.Errorf("FileNameAbout = %q, want it to match %s", name, form)
		}
		if name == FileName(manifest.Hash(hashA)) {
			t.Errorf("FileNameAbout = %q, FileName's", name)
		}
	}
	if g == p {
		t.Errorf("two agents' disputes of one claim share the name %q", g)
	}
	if again := FileNameAbout(manifest.Hash(strings.ToUpper(hashA)), gamma); again != g {
		t.Errorf("FileNameAbout of one claim and agent = %q, then %q", g, again)
	}
}

// FuzzParse checks that Parse never panics and that parse → Format →
// parse gives the same dispute.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.md")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		out := d.Format()
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format) failed: %v\n%s", err, out)
		}
		if *back != *d {
			t.Fatalf("round trip\n got %+v\nwant %+v", *back, *d)
		}
	})
}

// TestFileNameAtNeverRunsOut: the names of a dispute, in the order a node
// tries them, begin with FileName and FileNameAbout, all keep the claim's
// 12 hex digits, and never repeat, so a claim sharing those digits with
// any number of others finds one free.
func TestFileNameAtNeverRunsOut(t *testing.T) {
	const agent = "https://gamma.example/mesh/"
	claim := manifest.Hash(hashA)
	if got, want := FileNameAt(claim, agent, 0), FileName(claim); got != want {
		t.Errorf("FileNameAt(0) = %q, want FileName's %q", got, want)
	}
	if got, want := FileNameAt(claim, agent, 1), FileNameAbout(claim, agent); got != want {
		t.Errorf("FileNameAt(1) = %q, want FileNameAbout's %q", got, want)
	}
	if got, want := FileNameAt(claim, agent, -1), FileName(claim); got != want {
		t.Errorf("FileNameAt(-1) = %q, want FileName's %q", got, want)
	}
	form := regexp.MustCompile(`^dispute-` + claim.Hex(12) + `(-[0-9a-f]{12}|-[1-9][0-9]*)?\.md$`)
	seen := map[string]int{}
	for i := range 1000 {
		name := FileNameAt(claim, agent, i)
		if !form.MatchString(name) {
			t.Fatalf("FileNameAt(%d) = %q, want it to match %s", i, name, form)
		}
		if j, ok := seen[name]; ok {
			t.Fatalf("FileNameAt(%d) = FileNameAt(%d) = %q", i, j, name)
		}
		seen[name] = i
	}
}

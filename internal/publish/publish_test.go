package publish

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

func TestPublishWritesCanonicalManifest(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		golden string
	}{
		{
			name: "first publication of traces, a validation and a dispute",
			files: map[string]string{
				"traces/b-second.md":               traceText("Second", "capability"),
				"traces/a-first.md":                traceText("First", ""),
				"validations/val-111111111111.md":  validationText,
				"disputes/dispute-222222222222.md": disputeText,
				"traces/notes.txt":                 "not markdown",
				"traces/.draft.md":                 "hidden",
				"traces/sub/nested.md":             traceText("Nested", "knowledge"),
				"IDENTITY.md":                      "# ada\n",
			},
			golden: "first-publication.golden",
		},
		{
			name: "a new trace after a manifest with gaps and a larger sequence",
			files: map[string]string{
				"MANIFEST.md": "# MANIFEST\n\nagent: ada\nurl: https://ada.example.org/mesh/\nupdated: 2026-02-01T00:00:00Z\nsequence: 9\n\n## Traces\n\n" +
					"| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n" +
					"| 3 | " + string(manifest.HashBytes([]byte(traceText("Old", "signal")))) + " | traces/old.md | signal | pending | 2026-02-01T00:00:00Z |\n",
				"traces/old.md": traceText("Old", "signal"),
				"traces/new.md": traceText("New", "Knowledge Note"),
			},
			golden: "after-gaps.golden",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeNode(t, tt.files)
			res := mustPublish(t, opts(dir, t0))
			if !res.Changed {
				t.Error("Changed = false, want true")
			}
			checkGolden(t, tt.golden, readFile(t, dir, node.ManifestFile))
		})
	}
}

func TestPublishAssignsSeqsByPathNeverByTime(t *testing.T) {
	dir := writeNode(t, nil)
	// Written in reverse order with reverse mtimes: neither may matter.
	names := []string{"disputes/d.md", "validations/val-a.md", "traces/z.md", "traces/m.md", "traces/a.md"}
	for i, n := range names {
		text := traceText(n, "knowledge")
		switch {
		case strings.HasPrefix(n, "validations/"):
			text = validationText
		case strings.HasPrefix(n, "disputes/"):
			text = disputeText
		}
		writeFile(t, dir, n, text)
		mt := t0.Add(-time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, n), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	res := mustPublish(t, opts(dir, t0))
	want := []string{"traces/a.md", "traces/m.md", "traces/z.md", "validations/val-a.md", "disputes/d.md"}
	if len(res.NewFiles) != len(want) {
		t.Fatalf("published %d files, want %d", len(res.NewFiles), len(want))
	}
	for i, e := range res.NewFiles {
		if e.File != want[i] || e.Seq != manifest.Seq(i+1) {
			t.Errorf("NewFiles[%d] = seq %d %s, want seq %d %s", i, e.Seq, e.File, i+1, want[i])
		}
	}
}

func TestPublishKeepsSeqsOnceGiven(t *testing.T) {
	dir := writeNode(t, map[string]string{"traces/m.md": traceText("M", "knowledge")})
	mustPublish(t, opts(dir, t0))
	// A file that sorts before the published one arrives later: it gets
	// the next seq, and the published one keeps its seq and submitted time.
	writeFile(t, dir, "traces/a.md", traceText("A", "knowledge"))
	res := mustPublish(t, opts(dir, t1))
	_, got := published(t, dir)
	if e := got["traces/m.md"]; e.Seq != 1 || !e.Submitted.Equal(t0) {
		t.Errorf("traces/m.md = seq %d submitted %v, want seq 1 submitted %v", e.Seq, e.Submitted, t0)
	}
	if e := got["traces/a.md"]; e.Seq != 2 || !e.Submitted.Equal(t1) {
		t.Errorf("traces/a.md = seq %d submitted %v, want seq 2 submitted %v", e.Seq, e.Submitted, t1)
	}
	if len(res.NewFiles) != 1 || res.NewFiles[0].File != "traces/a.md" {
		t.Errorf("NewFiles = %+v, want only traces/a.md", res.NewFiles)
	}
}

func TestPublishRerunWithNothingNewChangesNothing(t *testing.T) {
	dir := writeNode(t, map[string]string{
		"traces/a.md":                     traceText("A", "knowledge"),
		"validations/val-111111111111.md": validationText,
	})
	statuses := map[manifest.Hash]manifest.Status{manifest.HashBytes([]byte(traceText("A", "knowledge"))): manifest.StatusValidated}
	o := opts(dir, t0)
	o.Statuses = statuses
	mustPublish(t, o)
	p := filepath.Join(dir, node.ManifestFile)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, dir, node.ManifestFile)

	o.Now = t1
	res := mustPublish(t, o)
	if res.Changed || len(res.NewFiles) != 0 {
		t.Errorf("rerun: Changed = %v, NewFiles = %d; want false, 0", res.Changed, len(res.NewFiles))
	}
	if after := readFile(t, dir, node.ManifestFile); string(after) != string(before) {
		t.Errorf("rerun changed MANIFEST.md:\n%s\nwas:\n%s", after, before)
	}
	if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("rerun touched MANIFEST.md's mtime (err %v)", err)
	}
}

func TestPublishRefreshUpdatedOnlyMovesUpdated(t *testing.T) {
	dir := writeNode(t, map[string]string{"traces/a.md": traceText("A", "knowledge")})
	mustPublish(t, opts(dir, t0))
	o := opts(dir, t1)
	o.RefreshUpdated = true
	res := mustPublish(t, o)
	m, got := published(t, dir)
	if !res.Changed || !m.Updated.Equal(t1) {
		t.Errorf("Changed = %v, updated = %v; want true, %v", res.Changed, m.Updated, t1)
	}
	if e := got["traces/a.md"]; e.Seq != 1 || !e.Submitted.Equal(t0) || m.Sequence != 1 {
		t.Errorf("refresh changed a row or the sequence: %+v, sequence %d", e, m.Sequence)
	}
}

func TestPublishWritesStatuses(t *testing.T) {
	a, b := traceText("A", "knowledge"), traceText("B", "knowledge")
	dir := writeNode(t, map[string]string{
		"traces/a.md": a, "traces/b.md": b, "traces/c.md": traceText("C", "knowledge"),
		"traces/v.md":                     traceText("A validation written as a trace", "validation"),
		"validations/val-111111111111.md": validationText,
	})
	mustPublish(t, opts(dir, t0))
	o := opts(dir, t1)
	o.Statuses = map[manifest.Hash]manifest.Status{
		manifest.HashBytes([]byte(a)): manifest.StatusValidated,
		manifest.HashBytes([]byte(b)): "bogus",
		// A status for a validation's hash never applies to it.
		manifest.HashBytes([]byte(validationText)): manifest.StatusFailed,
	}
	res := mustPublish(t, o)
	m, got := published(t, dir)
	tests := []struct {
		file string
		want manifest.Status
	}{
		{"traces/a.md", manifest.StatusValidated},
		{"traces/b.md", manifest.StatusPending},
		{"traces/c.md", manifest.StatusPending},
		{"traces/v.md", manifest.StatusPending},
		{"validations/val-111111111111.md", StatusPublished},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if got[tt.file].Status != tt.want {
				t.Errorf("status = %q, want %q", got[tt.file].Status, tt.want)
			}
		})
	}
	if !res.Changed || !m.Updated.Equal(t1) {
		t.Errorf("a status change must move updated: Changed = %v, updated = %v", res.Changed, m.Updated)
	}
}

func TestPublishSequenceNeverDecreases(t *testing.T) {
	row := func(seq, file, text string) string {
		return "| " + seq + " | " + string(manifest.HashBytes([]byte(text))) + " | " + file + " | knowledge | pending | 2026-02-01T00:00:00Z |\n"
	}
	head := func(seq string) string {
		return "# MANIFEST\n\nagent: ada\nurl: https://ada.example.org/mesh/\nupdated: 2026-02-01T00:00:00Z\nsequence: " + seq +
			"\n\n## Traces\n\n| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n"
	}
	old := traceText("Old", "knowledge")
	tests := []struct {
		name         string
		manifest     string
		wantNewSeq   manifest.Seq
		wantSequence manifest.Seq
	}{
		{"declared sequence above the rows (noobagent)", head("254") + row("204", "traces/old.md", old), 255, 255},
		{"declared sequence below the rows", head("2") + row("7", "traces/old.md", old), 8, 8},
		{"no declared sequence", head("0") + row("4", "traces/old.md", old), 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeNode(t, map[string]string{"MANIFEST.md": tt.manifest, "traces/old.md": old})
			mustPublish(t, opts(dir, t0))
			m, _ := published(t, dir)
			if m.Sequence < tt.wantNewSeq-1 {
				t.Errorf("sequence went down to %d", m.Sequence)
			}
			writeFile(t, dir, "traces/zz-new.md", traceText("New", "knowledge"))
			mustPublish(t, opts(dir, t1))
			m, got := published(t, dir)
			if got["traces/zz-new.md"].Seq != tt.wantNewSeq || m.Sequence != tt.wantSequence {
				t.Errorf("new seq %d, sequence %d; want %d, %d", got["traces/zz-new.md"].Seq, m.Sequence, tt.wantNewSeq, tt.wantSequence)
			}
		})
	}
}

func TestPublishRefusesChangedPublishedFiles(t *testing.T) {
	a := traceText("A", "knowledge")
	tests := []struct {
		name    string
		change  func(t *testing.T, dir string)
		want    Violation
		deleted bool
	}{
		{
			name:   "edited trace",
			change: func(t *testing.T, dir string) { writeFile(t, dir, "traces/a.md", a+"\nfixed a typo\n") },
			want: Violation{File: "traces/a.md", Seq: 1, PublishedHash: manifest.HashBytes([]byte(a)),
				CurrentHash: manifest.HashBytes([]byte(a + "\nfixed a typo\n"))},
		},
		{
			name: "deleted trace",
			change: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "traces", "a.md")); err != nil {
					t.Fatal(err)
				}
			},
			want:    Violation{File: "traces/a.md", Seq: 1, PublishedHash: manifest.HashBytes([]byte(a))},
			deleted: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeNode(t, map[string]string{"traces/a.md": a})
			mustPublish(t, opts(dir, t0))
			before := readFile(t, dir, node.ManifestFile)
			tt.change(t, dir)
			writeFile(t, dir, "traces/b.md", traceText("B", "knowledge"))

			_, err := Publish(opts(dir, t1))
			var ie *ImmutableError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *ImmutableError", err)
			}
			if len(ie.Files) != 1 || ie.Files[0] != tt.want || ie.Files[0].Deleted() != tt.deleted {
				t.Errorf("violations = %+v, want [%+v]", ie.Files, tt.want)
			}
			for _, s := range []string{"traces/a.md", "git checkout -- traces/a.md", "correcting trace"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if after := readFile(t, dir, node.ManifestFile); string(after) != string(before) {
				t.Error("MANIFEST.md was written although a published file changed")
			}
		})
	}
}

func TestPublishHoldsDraftsAndFilesThatDoNotParse(t *testing.T) {
	dir := writeNode(t, map[string]string{
		"traces/draft.md":           "---\ntitle: Not yet\ndraft: true\n---\n\n# Not yet\n",
		"traces/ready.md":           traceText("Ready", "knowledge"),
		"validations/val-broken.md": "scores: whatever\n",
	})
	res := mustPublish(t, opts(dir, t0))
	if len(res.NewFiles) != 1 || res.NewFiles[0].File != "traces/ready.md" {
		t.Errorf("NewFiles = %+v, want only traces/ready.md", res.NewFiles)
	}
	held := map[string]bool{}
	for _, h := range res.Held {
		held[h.File] = true
	}
	if !held["traces/draft.md"] || !held["validations/val-broken.md"] || len(held) != 2 {
		t.Errorf("Held = %+v, want the draft and the broken validation", res.Held)
	}
	// Once the author removes the draft line, it is published.
	writeFile(t, dir, "traces/draft.md", "---\ntitle: Now ready\n---\n\n# Now ready\n")
	res = mustPublish(t, opts(dir, t1))
	if len(res.NewFiles) != 1 || res.NewFiles[0].File != "traces/draft.md" || res.NewFiles[0].Seq != 2 {
		t.Errorf("NewFiles = %+v, want traces/draft.md as seq 2", res.NewFiles)
	}
}

func TestPublishCrashBeforeManifestWriteLeavesNodeConsistent(t *testing.T) {
	files := map[string]string{"traces/a.md": traceText("A", "knowledge"), "traces/b.md": traceText("B", "signal")}
	clean := writeNode(t, files)
	mustPublish(t, opts(clean, t0))

	dir := writeNode(t, files)
	crash := errors.New("killed")
	writeManifest = func(string, []byte, os.FileMode) (bool, error) { return false, crash }
	_, err := Publish(opts(dir, t0))
	writeManifest = defaultWriteManifest
	if !errors.Is(err, crash) {
		t.Fatalf("err = %v, want the simulated crash", err)
	}
	if _, err := os.Stat(filepath.Join(dir, node.ManifestFile)); !os.IsNotExist(err) {
		t.Fatalf("a crashed run left a MANIFEST.md behind (err %v)", err)
	}
	// The next heartbeat publishes exactly what an uninterrupted run did.
	mustPublish(t, opts(dir, t0))
	if got, want := readFile(t, dir, node.ManifestFile), readFile(t, clean, node.ManifestFile); string(got) != string(want) {
		t.Errorf("after a crash and a rerun:\n%s\nwant:\n%s", got, want)
	}
}

func TestPublishRefusesManifestPathsOutsideTheNode(t *testing.T) {
	dir := writeNode(t, map[string]string{"MANIFEST.md": "# MANIFEST\n\nagent: ada\nsequence: 1\n\n" +
		"| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n" +
		"| 1 | sha256:0000000000000000000000000000000000000000000000000000000000000000 | ../../etc/passwd | knowledge | pending | 2026-02-01T00:00:00Z |\n"})
	_, err := Publish(opts(dir, t0))
	if err == nil || !strings.Contains(err.Error(), "not a path inside the node") {
		t.Errorf("err = %v, want a refusal of the path", err)
	}
}

func TestPublishRefusesOwnManifestWithRowsThatDoNotParse(t *testing.T) {
	text := "# MANIFEST\n\nagent: ada\nsequence: 2\n\n" +
		"| seq | hash | file | type | status | submitted |\n|-----|------|------|------|--------|-----------|\n" +
		"| two | sha256:1111111111111111111111111111111111111111111111111111111111111111 | traces/a.md | knowledge | pending | 2026-02-01T00:00:00Z |\n"
	dir := writeNode(t, map[string]string{"MANIFEST.md": text, "traces/a.md": traceText("A", "knowledge")})
	_, err := Publish(opts(dir, t0))
	if err == nil || !strings.Contains(err.Error(), "MANIFEST.md:8:") {
		t.Errorf("err = %v, want the unparsed row named by its line", err)
	}
	if got := readFile(t, dir, node.ManifestFile); string(got) != text {
		t.Error("MANIFEST.md was rewritten, dropping a published row")
	}
}

// TestPublishAddsGivenRowsAfterTheNewFiles: a row of a file outside the
// published directories (a key statement of the log) gets the seq after
// the new files', keeps its status, and a second run keeps it.
func TestPublishAddsGivenRowsAfterTheNewFiles(t *testing.T) {
	dir := writeNode(t, map[string]string{
		"traces/a.md":        traceText("A", "knowledge"),
		"log/key/rotation-2": "statement\n",
	})
	stmt := manifest.Entry{Hash: manifest.HashBytes([]byte("statement\n")), File: "log/key/rotation-2", Type: node.TypeKey, Status: StatusPublished, Submitted: t0}
	o := opts(dir, t0)
	o.Add = []manifest.Entry{stmt}
	res := mustPublish(t, o)
	if len(res.NewFiles) != 2 || res.NewFiles[1].Seq != 2 || res.NewFiles[1].File != stmt.File {
		t.Fatalf("new rows %+v, want the trace at 1 and the statement at 2", res.NewFiles)
	}
	again := mustPublish(t, opts(dir, t1))
	if again.Changed || len(again.NewFiles) != 0 {
		t.Fatalf("a second run changed MANIFEST.md: %+v", again.NewFiles)
	}
	m, _, err := manifest.Parse(readFile(t, dir, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Entries[0]; got.Seq != 2 || got.Status != StatusPublished || got.Type != node.TypeKey {
		t.Fatalf("statement row %+v", got)
	}
}

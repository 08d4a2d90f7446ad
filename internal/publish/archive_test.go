package publish

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// sized are the options of a publish with a window of 3 rows and pages
// of 2.
func sized(dir string, o Options) Options {
	o.Dir, o.Window, o.Chunk = dir, 3, 2
	return o
}

func addTraces(t *testing.T, dir string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		writeFile(t, dir, fmt.Sprintf("traces/t%02d.md", i), traceText(fmt.Sprintf("T%d", i), "knowledge"))
	}
}

func TestPublishArchivesTheOldestRowsInWholePages(t *testing.T) {
	dir := writeNode(t, nil)
	addTraces(t, dir, 0, 4)
	if res := mustPublish(t, sized(dir, opts(dir, t0))); len(res.Archived) != 0 {
		t.Fatalf("4 rows, under window+chunk, archived %d pages", len(res.Archived))
	}
	addTraces(t, dir, 4, 9)
	res := mustPublish(t, sized(dir, opts(dir, t1)))
	m, _ := published(t, dir)
	// 9 rows: seqs 1-2 and 3-4 move out (9 → 7 → 5), 5 to 9 stay, then
	// 5-6 move too (5 ≥ 3+2) and 3 stay.
	want := []manifest.Archive{{First: 1, Last: 2}, {First: 3, Last: 4}, {First: 5, Last: 6}}
	if len(m.Archives) != len(want) || len(res.Archived) != len(want) {
		t.Fatalf("archives %+v, want %+v", m.Archives, want)
	}
	for i, a := range m.Archives {
		if a.First != want[i].First || a.Last != want[i].Last || a.File != node.ArchivePage(a.First, a.Last) {
			t.Errorf("archive %d = %+v, want seqs %d-%d at %s", i, a, want[i].First, want[i].Last, node.ArchivePage(want[i].First, want[i].Last))
		}
		data := readFile(t, dir, a.File)
		if manifest.HashBytes(data) != a.Hash {
			t.Errorf("%s does not hash to its link", a.File)
		}
		pm, problems, err := manifest.Parse(data)
		if err != nil || len(problems) > 0 || len(pm.Entries) != 2 || pm.Sequence != a.Last || pm.Agent != agent {
			t.Errorf("%s: %v %v, %d rows, sequence %d, agent %q", a.File, err, problems, len(pm.Entries), pm.Sequence, pm.Agent)
		}
	}
	if len(m.Entries) != 3 || m.Sequence != 9 || m.MaxSeq() != 9 {
		t.Errorf("MANIFEST.md: %d rows, sequence %d", len(m.Entries), m.Sequence)
	}
	// Pages are immutable: later publishes add pages, never rewrite one,
	// and a status change never reaches an archived row.
	before := readFile(t, dir, m.Archives[0].File)
	addTraces(t, dir, 9, 11)
	o := sized(dir, opts(dir, t1.Add(time.Hour)))
	o.Statuses = map[manifest.Hash]manifest.Status{manifest.HashBytes([]byte(traceText("T0", "knowledge"))): manifest.StatusValidated}
	mustPublish(t, o)
	if after := readFile(t, dir, m.Archives[0].File); string(after) != string(before) {
		t.Errorf("an archive page was rewritten:\n%s", after)
	}
	m2, _ := published(t, dir)
	if len(m2.Archives) != 4 || m2.Archives[3].First != 7 || len(m2.Entries) != 3 {
		t.Errorf("after 11 files: archives %+v, %d rows", m2.Archives, len(m2.Entries))
	}
}

func TestPublishNeverRepublishesAnArchivedFile(t *testing.T) {
	dir := writeNode(t, nil)
	addTraces(t, dir, 0, 9)
	mustPublish(t, sized(dir, opts(dir, t0)))
	// A default-sized publish reads the same history: nothing archived is
	// new, nothing gets a second seq.
	res := mustPublish(t, opts(dir, t1))
	if len(res.NewFiles) != 0 {
		t.Errorf("archived files published again: %+v", res.NewFiles)
	}
	m, _ := published(t, dir)
	if m.Sequence != 9 {
		t.Errorf("sequence %d, want 9", m.Sequence)
	}
}

func TestPublishRefusesAnAlteredOrMissingArchivePage(t *testing.T) {
	for _, tt := range []struct {
		name   string
		damage func(t *testing.T, dir, page string)
		want   string
	}{
		{"edited", func(t *testing.T, dir, page string) { writeFile(t, dir, page, "# MANIFEST\n\nsequence: 2\n") }, "hashes to"},
		{"deleted", func(t *testing.T, dir, page string) { os.Remove(filepath.Join(dir, page)) }, "no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeNode(t, nil)
			addTraces(t, dir, 0, 6)
			mustPublish(t, sized(dir, opts(dir, t0)))
			m, _ := published(t, dir)
			tt.damage(t, dir, m.Archives[0].File)
			before := readFile(t, dir, node.ManifestFile)
			addTraces(t, dir, 6, 7)
			_, err := Publish(sized(dir, opts(dir, t1)))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "git checkout") {
				t.Fatalf("err = %v, want one saying %q and how to restore the page", err, tt.want)
			}
			if string(readFile(t, dir, node.ManifestFile)) != string(before) {
				t.Error("MANIFEST.md was rewritten over a damaged archive")
			}
		})
	}
}

func TestPublishCrashBetweenPageAndManifestRepeatsThePage(t *testing.T) {
	dir := writeNode(t, nil)
	addTraces(t, dir, 0, 5)
	crash := errors.New("power lost")
	writeManifest = func(string, []byte, os.FileMode) (bool, error) { return false, crash }
	_, err := Publish(sized(dir, opts(dir, t0)))
	writeManifest = defaultWriteManifest
	if !errors.Is(err, crash) {
		t.Fatalf("err = %v", err)
	}
	// The page is on disk, unlinked; the next run writes it again, with
	// the statuses of its time, and links it.
	o := sized(dir, opts(dir, t1))
	o.Statuses = map[manifest.Hash]manifest.Status{manifest.HashBytes([]byte(traceText("T0", "knowledge"))): manifest.StatusFailed}
	mustPublish(t, o)
	m, _ := published(t, dir)
	if len(m.Archives) != 1 || manifest.HashBytes(readFile(t, dir, m.Archives[0].File)) != m.Archives[0].Hash {
		t.Fatalf("archives %+v after the rerun", m.Archives)
	}
	if !strings.Contains(string(readFile(t, dir, m.Archives[0].File)), "| failed |") {
		t.Error("the rerun's page does not carry the status of its time")
	}
}

func TestPublishArchivesMoreRatherThanWriteAManifestPeersRefuse(t *testing.T) {
	dir := writeNode(t, nil)
	addTraces(t, dir, 0, 10)
	o := opts(dir, t0)
	o.Window, o.Chunk, o.MaxBytes = 100, 2, 1600
	res := mustPublish(t, o)
	data := readFile(t, dir, node.ManifestFile)
	if len(data) > 1600 || len(res.Archived) == 0 {
		t.Errorf("MANIFEST.md is %d bytes over %d pages, want at most 1600", len(data), len(res.Archived))
	}
}

func TestPublishBoundsATracesTypeInItsRow(t *testing.T) {
	dir := writeNode(t, map[string]string{"traces/long.md": traceText("Long", strings.Repeat("k", 5000))})
	mustPublish(t, opts(dir, t0))
	_, got := published(t, dir)
	if typ := got["traces/long.md"].Type; len(typ) != maxTypeBytes {
		t.Errorf("type of %d bytes in the row, want %d", len(typ), maxTypeBytes)
	}
}

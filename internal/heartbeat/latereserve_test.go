package heartbeat

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// TestTheLateReserveStepsInTwoDaysOnOnlyForATraceShortOfVotes: twelve
// founders under mesh-2026-7, eleven of them peers; ada's trace of March
// 14, 10:00, which the node first sees at 13:00, ranks the node 11th or
// 12th: its late reserve (nobody else is away). With fewer than three
// counted votes, or three and a vote of the other late reserve member
// dated March 16 (one that counts), the node queues and validates it at
// the first heartbeat 48 hours after it first saw the trace (March 16,
// 13:00: the reserve's due time and a day more), not before, nor at the
// start of March 16; the derived record says when (reserve_due), so a
// quiet node wakes for it; its validation is dated when written, in the
// late epoch. With three votes alone, or three and the other member's
// vote dated March 15 (unassigned), it never does; nor under mesh-2026-6.
func TestTheLateReserveStepsInTwoDaysOnOnlyForATraceShortOfVotes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: the derived record is kept only in a repository")
	}
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		rules string
		votes int       // by the first ranks of the order
		other time.Time // the other late reserve member's vote, when set
		want  int
	}{
		{"none voted", "mesh-2026-7", 0, time.Time{}, 1},
		{"two of the jury voted", "mesh-2026-7", 2, time.Time{}, 1},
		{"three voted", "mesh-2026-7", 3, time.Time{}, 0},
		{"three voted, and the other late member on March 16", "mesh-2026-7", 3, day.Add(50 * time.Hour), 1},
		{"three voted, and the other late member on March 15", "mesh-2026-7", 3, day.Add(40 * time.Hour), 0},
		{"no late reserve under mesh-2026-6", "mesh-2026-6", 0, time.Time{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, srv, pool, peers, founders := newFoundersMesh(t, tc.rules)
			var body string
			var h manifest.Hash
			for i := 0; ; i++ {
				body = fmt.Sprintf("# Ada's note %d\n\n## Work\n\nDone, step %d.\n", i, i)
				h = manifest.HashBytes([]byte(body))
				if r := slices.Index(byWeight(h, pool), "tester"); r >= 10 {
					break
				}
			}
			ms.publish("ada", "traces/001.md", "knowledge", body, day.Add(10*time.Hour))
			vote := func(n string, at time.Time) {
				ms.publish(n, "validations/val-ada.md", "validation", fmt.Sprintf(
					"# VALIDATION\n\nvalidator: %s\nvalidator_url: %s/%s/\ntrace_url: %s/ada/traces/001.md\ntrace_hash: %s\nvalidated_at: %s\nresult: pass\ntotal_score: 22\n\nscores:\n  substance: 4\n  uniqueness: 3\n  specificity: 4\n  actionability: 4\n  structure: 4\n  freshness: 3\n",
					n, srv.URL, n, srv.URL, h, at.Format(time.RFC3339)), at)
			}
			for _, n := range byWeight(h, pool)[:tc.votes] {
				vote(n, day.Add(12*time.Hour))
			}
			dir := newNode(t, peers, "polling:\n  quiet_after: 0\n")
			write(t, dir, node.FoundersFile, founders)
			for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"}} {
				if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v: %s", args, err, out)
				}
			}
			voted := false
			for _, at := range []time.Duration{13 * time.Hour, 37*time.Hour + 30*time.Minute, 48*time.Hour + 30*time.Minute, 60*time.Hour + 59*time.Minute} {
				if !tc.other.IsZero() && !voted && !day.Add(at).Before(tc.other) {
					vote(other(h, pool), tc.other) // published when dated, read at the next heartbeat
					voted = true
				}
				if sum := beat(t, dir, day.Add(at)); sum.Reserve != 0 || sum.Queued != 0 {
					t.Fatalf("at +%v: reserve %d, queued %d; want nothing before it is due", at, sum.Reserve, sum.Queued)
				}
				if at == 13*time.Hour && tc.want == 1 && tc.other.IsZero() {
					d, err := readDerived(dir)
					if err != nil || d == nil || !d.ReserveDue.Equal(day.Add(61*time.Hour)) {
						t.Fatalf("derived record %+v (%v): want reserve_due March 16, 13:00", d, err)
					}
				}
			}
			sum := beat(t, dir, day.Add(61*time.Hour+30*time.Minute))
			if sum.Reserve != tc.want || sum.Queued != tc.want || sum.ValidationsPublished != tc.want {
				t.Fatalf("due: reserve %d, queued %d, published %d; want %d of each", sum.Reserve, sum.Queued, sum.ValidationsPublished, tc.want)
			}
			if tc.want == 1 {
				checkDatedAt(t, dir, "2026-03-16T13:30:00Z")
			}
			if sum := beat(t, dir, day.Add(62*time.Hour)); sum.Reserve != 0 || sum.Queued != 0 {
				t.Fatalf("the next heartbeat stepped in again: reserve %d, queued %d", sum.Reserve, sum.Queued)
			}
		})
	}
}

// other is the late reserve member of h's order over pool that is not
// the node: ranks 11 and 12 are the late reserve of a pool of twelve
// with nobody away.
func other(h manifest.Hash, pool []string) string {
	return slices.DeleteFunc(byWeight(h, pool)[10:], func(n string) bool { return n == "tester" })[0]
}

// checkDatedAt checks that the node's one validation states at.
func checkDatedAt(t *testing.T, dir, at string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, node.ValidationsDir, "*.md"))
	if err != nil || len(files) != 1 {
		t.Fatalf("validations %v: %v", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(b), "validated_at: "+at+"\n") {
		t.Fatalf("the validation does not state %s: %s (%v)", at, b, err)
	}
}

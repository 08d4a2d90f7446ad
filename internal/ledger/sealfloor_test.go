package ledger

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAPeersDatesSealNoSegmentPerQuarter: a hostile peer dates its
// validations and disputes a quarter apart, from year 1 on (validated_at
// and observed_at are its word). On a1601b37 each quarter got a shard
// segment and a summary: 400 records made 800 files, and a heartbeat's
// 5,000 rows of one peer 10,000. Dated before any mesh, they are sealed
// as records without a date are, in one quarter; every record loads back.
func TestAPeersDatesSealNoSegmentPerQuarter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mesh-state", "ledger.json")
	const eve = "https://eve.example/"
	l := New()
	for i := range 400 {
		at := time.Date(1+i/4, time.Month(1+3*(i%4)), 1, 0, 0, 0, 0, time.UTC)
		h := manifest.HashBytes(fmt.Append(nil, i))
		if i%2 == 0 {
			l.AddValidation(&Validation{Validator: "eve", ValidatorURL: eve, TraceHash: h, Result: "pass", ValidatedAt: at})
		} else {
			l.AddDispute(&Dispute{Reporter: "eve", ReporterURL: eve, Agent: "ada", AgentURL: "https://ada.example/", Seq: manifest.Seq(i), ClaimedHash: h, ServedHash: h, ObservedAt: at})
		}
	}
	want := whole(t, l)
	compacted(t, l, later)
	if _, err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	if n := filesUnder(t, filepath.Dir(p)); n > 4 {
		t.Errorf("%d files for one peer's records of 400 quarters before any mesh: a segment per quarter", n)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := whole(t, back); !reflect.DeepEqual(got, want) {
		t.Errorf("loaded back:\n%v\nwant:\n%v", got, want)
	}
}

// TestADateSinceTheFloorSealsInItsQuarter: a record dated since
// sealFloor is sealed in its own quarter, one before it with the
// records that carry no date.
func TestADateSinceTheFloorSealsInItsQuarter(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{sealFloor, "2020-Q1"},
		{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), "2026-Q1"},
		{sealFloor.Add(-time.Nanosecond), "0001-Q1"},
		{time.Date(1000, 5, 1, 0, 0, 0, 0, time.UTC), "0001-Q1"},
		{time.Time{}, "0001-Q1"},
	} {
		v := &Validation{ValidatedAt: c.at}
		d := &Dispute{ObservedAt: c.at}
		tr := &Trace{Submitted: c.at}
		if got := []string{quarter(validationTime(v)), quarter(disputeTime(d)), quarter(traceTime(tr))}; got[0] != c.want || got[1] != c.want || got[2] != c.want {
			t.Errorf("dated %s: sealed in %v, want %s", c.at, got, c.want)
		}
	}
}

func filesUnder(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

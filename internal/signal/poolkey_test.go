package signal

import (
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
)

// TestPoolKeyCoversEveryFieldSignalReads: changing any field of a trace,
// copy, validation or dispute record changes its digest, and so the keys
// of the pools after its date, except the trace fields SIGNAL never reads
// (which a node learns after a trace's date). A field added to a record
// fails here until the digest covers it or it is named as unread.
func TestPoolKeyCoversEveryFieldSignalReads(t *testing.T) {
	unread := map[string]bool{"FirstSeen": true, "Status": true, "Title": true, "Cites": true, "Fingerprint": true, "TakenDown": true}
	checkFields(t, &ledger.Trace{}, func(r any) poolKey { return traceDigest('t', r.(*ledger.Trace)) }, unread)
	checkFields(t, &ledger.Validation{}, func(r any) poolKey { return validationDigest(r.(*ledger.Validation)) }, nil)
	checkFields(t, &ledger.Dispute{}, func(r any) poolKey { return disputeDigest(*r.(*ledger.Dispute)) }, nil)
	if traceDigest('t', &ledger.Trace{}) == traceDigest('c', &ledger.Trace{}) {
		t.Error("a trace and a copy of the same record digest alike")
	}
}

// checkFields changes each leaf field of the record r points to (slices
// given one element first) and checks that digest changes exactly for
// the fields not in unread.
func checkFields(t *testing.T, r any, digest func(any) poolKey, unread map[string]bool) {
	t.Helper()
	v := reflect.ValueOf(r).Elem()
	var leaves []leaf
	collectLeaves(t, v, "", &leaves)
	base := digest(r)
	for _, l := range leaves {
		old := reflect.New(l.v.Type()).Elem()
		old.Set(l.v)
		setNonZero(t, l.v, l.path)
		changed := digest(r) != base
		l.v.Set(old)
		top := l.path
		for i := range top {
			if top[i] == '.' || top[i] == '[' {
				top = top[:i]
				break
			}
		}
		if changed == unread[top] {
			t.Errorf("%T.%s: digest changed %v, want %v", r, l.path, changed, !unread[top])
		}
	}
}

type leaf struct {
	path string
	v    reflect.Value
}

func collectLeaves(t *testing.T, v reflect.Value, path string, out *[]leaf) {
	switch {
	case v.Type() == reflect.TypeOf(time.Time{}):
		*out = append(*out, leaf{path, v})
	case v.Kind() == reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			name := v.Type().Field(i).Name
			if path != "" {
				name = path + "." + name
			}
			collectLeaves(t, v.Field(i), name, out)
		}
	case v.Kind() == reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		collectLeaves(t, v.Index(0), path+"[0]", out)
	case v.Kind() == reflect.Array:
		for i := 0; i < v.Len(); i++ {
			collectLeaves(t, v.Index(i), path+"["+string(rune('0'+i))+"]", out)
		}
	default:
		*out = append(*out, leaf{path, v})
	}
}

func setNonZero(t *testing.T, v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct: // time.Time
		v.Set(reflect.ValueOf(time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)))
	default:
		t.Fatalf("%s: a field of kind %s: teach this test to change it", path, v.Kind())
	}
}

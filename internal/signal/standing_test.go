package signal

import (
	"reflect"
	"testing"
)

func TestOwnValidatedCountsOnlyResolvedValidatedOwnTraces(t *testing.T) {
	in := Input{
		Traces: []Trace{tr("ann", 1, "knowledge", "pebble"), tr("ann", 2, "knowledge", "pebble"), tr("ann", 3, "knowledge", "pebble"), tr("bob", 1, "knowledge", "pebble")},
		Validations: []Validation{
			val("bob", hash("ann", 1), "pass"),
			val("bob", hash("ann", 2), "fail"),
			val("cy", hash("bob", 1), "pass"), // validated, but not ann's
		},
	}
	r := Compute(in)
	own := Own(r, "https://ann.example/")
	want := map[string]string{hash("ann", 1): StatusValidated, hash("ann", 2): StatusFailed, hash("ann", 3): StatusPending}
	if !reflect.DeepEqual(own, want) {
		t.Fatalf("Own = %v, want %v", own, want)
	}
	if n := OwnValidated(r, "https://ann.example/"); n != 1 {
		t.Errorf("OwnValidated(ann) = %d, want 1", n)
	}
	if n := OwnValidated(r, ""); n != 0 {
		t.Errorf("OwnValidated with no URL = %d, want 0", n)
	}
}

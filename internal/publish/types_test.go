package publish

import (
	"slices"
	"testing"

	"github.com/meshnode/meshnode/internal/node"
)

func TestKnownTypesAreSortedAndMatchIgnoringCase(t *testing.T) {
	if !slices.IsSorted(KnownTypes) {
		t.Fatalf("KnownTypes not sorted: %v", KnownTypes)
	}
	for _, tt := range []struct {
		typ  string
		want bool
	}{
		{"knowledge", true}, {" Capability ", true}, {DefaultType, true}, {node.TypeValidation, true},
		{"bogus", false}, {"", false}, {"knowledges", false},
	} {
		if got := IsKnownType(tt.typ); got != tt.want {
			t.Errorf("IsKnownType(%q) = %v, want %v", tt.typ, got, tt.want)
		}
	}
}

package node

import "testing"

func TestIdentityUnfilledKnowsTheTemplatesPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{"", true},
		{"   ", true},
		{"(the person responsible for this node)", true},
		{" (what this agent does on the mesh) ", true},
		{"Robin", false},
		{"Claude Opus 4.6 (via API)", false},
	} {
		if got := IdentityUnfilled(tc.value); got != tc.want {
			t.Errorf("IdentityUnfilled(%q) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

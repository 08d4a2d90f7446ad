package slowtest

import (
	"fmt"
	"strings"
	"testing"
)

// fakeTB records a skip instead of stopping a real test.
type fakeTB struct {
	testing.TB
	skipped string
}

func (f *fakeTB) Helper()                          {}
func (f *fakeTB) Skipf(format string, args ...any) { f.skipped = fmt.Sprintf(format, args...) }

func TestRequireSkipsUnlessTheVariableIsOne(t *testing.T) {
	for _, tt := range []struct {
		value    string
		wantSkip bool
	}{{"", true}, {"0", true}, {"yes", true}, {"1", false}} {
		t.Run("value "+tt.value, func(t *testing.T) {
			t.Setenv(Env, tt.value)
			f := &fakeTB{}
			Require(f)
			if skipped := f.skipped != ""; skipped != tt.wantSkip {
				t.Fatalf("%s=%q: skipped %v, want %v", Env, tt.value, skipped, tt.wantSkip)
			}
			if tt.wantSkip && !strings.Contains(f.skipped, Env+"=1") {
				t.Errorf("skip message %q does not name %s=1", f.skipped, Env)
			}
		})
	}
}

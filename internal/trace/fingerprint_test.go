package trace

import (
	"encoding/json"
	"testing"
)

func TestFingerprintIsWrittenAsSixteenHexDigits(t *testing.T) {
	type rec struct {
		FP Fingerprint `json:"fp,omitempty"`
	}
	b, _ := json.Marshal(rec{FP: 0xab})
	if string(b) != `{"fp":"00000000000000ab"}` {
		t.Errorf("marshal = %s", b)
	}
	if b, _ := json.Marshal(rec{}); string(b) != `{}` {
		t.Errorf("the zero fingerprint = %s, want it left out", b)
	}
	var r rec
	if err := json.Unmarshal([]byte(`{"fp":""}`), &r); err != nil || r.FP != 0 {
		t.Errorf(`"" = %v, %v; want 0`, r.FP, err)
	}
	for _, bad := range []string{`"ab"`, `"zzzzzzzzzzzzzzzz"`, `"-000000000000001"`} {
		if err := json.Unmarshal([]byte(`{"fp":`+bad+`}`), &r); err == nil {
			t.Errorf("%s decoded without an error", bad)
		}
	}
}

func FuzzFingerprintText(f *testing.F) {
	f.Add("00000000000000ab")
	f.Add("")
	f.Add("+0000000000000ab")
	f.Fuzz(func(t *testing.T, s string) {
		var fp Fingerprint
		if err := fp.UnmarshalText([]byte(s)); err != nil {
			return
		}
		out, _ := fp.MarshalText()
		var again Fingerprint
		if err := again.UnmarshalText(out); err != nil || again != fp {
			t.Fatalf("%q → %d → %q → %d, %v", s, fp, out, again, err)
		}
	})
}

package trace

import (
	"fmt"
	"strconv"
)

// Fingerprint is a 64-bit simhash of a trace's body (score.Fingerprint
// computes it): bodies that share most of their text are a small Hamming
// distance apart. It is written as 16 hex digits, which is how the ledger
// stores it; the zero value is "no fingerprint" and is written as "".
type Fingerprint uint64

// String returns the 16 hex digits, "" for the zero value.
func (f Fingerprint) String() string {
	if f == 0 {
		return ""
	}
	return fmt.Sprintf("%016x", uint64(f))
}

// MarshalText writes String.
func (f Fingerprint) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads what MarshalText wrote: "" or 16 hex digits.
func (f *Fingerprint) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*f = 0
		return nil
	}
	if len(b) != 16 {
		return fmt.Errorf("fingerprint %q: want 16 hex digits", b)
	}
	v, err := strconv.ParseUint(string(b), 16, 64)
	if err != nil {
		return fmt.Errorf("fingerprint %q: want 16 hex digits", b)
	}
	*f = Fingerprint(v)
	return nil
}

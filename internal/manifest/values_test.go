package manifest

import (
	"testing"
	"time"
)

func TestNormalizeStatus(t *testing.T) {
	tests := map[Status]Status{
		"":          StatusPending,
		"submitted": StatusPending,
		"pending":   StatusPending,
		"whatever":  StatusPending,
		"validated": StatusValidated,
		" Failed ":  StatusFailed,
		"CONTESTED": StatusContested,
	}
	for in, want := range tests {
		t.Run(string(in), func(t *testing.T) {
			if got := NormalizeStatus(in); got != want {
				t.Errorf("NormalizeStatus(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestHashBytesMatchesSha256sum(t *testing.T) {
	// printf abc | sha256sum
	const want = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := HashBytes([]byte("abc")); got != want {
		t.Errorf("got %s", got)
	}
}

func TestNormalizeHash(t *testing.T) {
	const hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	const want = "sha256:" + hex
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"canonical", want, true},
		{"upper case", "SHA256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", true},
		{"bare hex", hex, true},
		{"dash", "sha256-" + hex, true},
		{"backticks", "`" + want + "`", true},
		{"truncated", "sha256:abc123…", false},
		{"not hex", "sha256:" + hex[:63] + "g", false},
		{"too long", want + "00", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeHash(tt.in)
			if (err == nil) != tt.ok || (tt.ok && got != want) {
				t.Errorf("NormalizeHash(%q) = %q, %v", tt.in, got, err)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Time
	}{
		{"whole seconds", "2026-02-23T16:00:00Z", time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC)},
		{"milliseconds", "2026-02-26T16:20:18.349Z", time.Date(2026, 2, 26, 16, 20, 18, 349_000_000, time.UTC)},
		{"offset", "2026-02-23T17:00:00+01:00", time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC)},
		{"no zone", "2026-02-23T16:00:00", time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC)},
		{"space", "2026-02-23 16:00:00", time.Date(2026, 2, 23, 16, 0, 0, 0, time.UTC)},
		{"date", "2026-02-23", time.Date(2026, 2, 23, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTime(tt.in)
			if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("ParseTime(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
	for _, bad := range []string{"yesterday", "", "9999-12-31T23:59:59-23:59"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) accepted", bad)
		}
	}
}

func TestFormatTimeWritesFractionOnlyWhenNonzero(t *testing.T) {
	if got := FormatTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); got != "2026-01-02T03:04:05Z" {
		t.Errorf("got %s", got)
	}
	if got := FormatTime(time.Date(2026, 1, 2, 3, 4, 5, 120_000_000, time.UTC)); got != "2026-01-02T03:04:05.12Z" {
		t.Errorf("got %s", got)
	}
	if got := FormatTime(time.Time{}); got != "" {
		t.Errorf("zero time written as %q", got)
	}
}

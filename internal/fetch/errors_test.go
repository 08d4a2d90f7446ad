package fetch

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestErrorSaysWhatAndWhy(t *testing.T) {
	until := time.Date(2026, 3, 1, 12, 10, 0, 0, time.UTC)
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"status", &Error{Kind: KindGone, URL: "https://p.example/MANIFEST.md", Status: 410},
			"fetch https://p.example/MANIFEST.md: gone (http 410 Gone)"},
		{"rate limit", &Error{Kind: KindRateLimited, URL: "https://p.example/", Status: 429, RetryAfter: until},
			"fetch https://p.example/: rate_limited (http 429 Too Many Requests) until 2026-03-01T12:10:00Z"},
		{"cause", &Error{Kind: KindTimeout, URL: "https://p.example/t.md", Err: context.DeadlineExceeded},
			"fetch https://p.example/t.md: timeout: context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsKindSeesThroughWrapping(t *testing.T) {
	err := fmt.Errorf("poll peer x: %w", &Error{Kind: KindGone, URL: "u", Err: context.Canceled})
	if !IsKind(err, KindGone) || IsKind(err, KindNotFound) || KindOf(err) != KindGone {
		t.Errorf("IsKind/KindOf do not see the wrapped *Error")
	}
	if !errors.Is(err, context.Canceled) {
		t.Error("Unwrap does not reach the cause")
	}
	if IsKind(nil, "") || KindOf(errors.New("plain")) != "" {
		t.Error("a nil or foreign error has a kind")
	}
	if KindGone.String() != "gone" {
		t.Errorf("String() = %q", KindGone.String())
	}
}

func TestRealSleepHeedsTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if err := sleep(ctx, 0); err != nil {
		t.Errorf("sleep(0) = %v", err)
	}
	cancel()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep on a canceled context = %v, want context.Canceled at once", err)
	}
}

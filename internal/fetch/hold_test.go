package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestHoldIsToldTheBodyAsItGrows holds that Request.Hold sees the body's
// bytes as they arrive, never more than one read ahead of what is kept,
// and last the whole body.
func TestHoldIsToldTheBodyAsItGrows(t *testing.T) {
	body := strings.Repeat("z", 200<<10)
	p := newPeer(t, serve(200, body))
	c := newTestClient(newFakeClock(), func(o *Options) { o.IgnoreRobots = true })
	var told []int64
	resp, err := c.Get(context.Background(), Request{URL: p.URL + "/t.md", MaxBytes: 1 << 20,
		Hold: func(n int64) error { told = append(told, n); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != body {
		t.Fatalf("body of %d bytes, want %d", len(resp.Body), len(body))
	}
	if len(told) < 2 || told[len(told)-1] != int64(len(body)) {
		t.Fatalf("hold told %v, want several sizes ending at %d", told, len(body))
	}
	for i := 1; i < len(told); i++ {
		if step := told[i] - told[i-1]; step <= 0 || step > readChunk {
			t.Fatalf("hold told %d then %d: steps must grow by at most %d", told[i-1], told[i], readChunk)
		}
	}
}

// TestHoldRefusalFailsTheFetchOnce holds that a refusal by Hold stops the
// read with KindHeld, wrapping the refusal, and is neither retried nor
// read further.
func TestHoldRefusalFailsTheFetchOnce(t *testing.T) {
	p := newPeer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("x"), 16<<10)
		for range 64 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	c := newTestClient(newFakeClock(), func(o *Options) { o.IgnoreRobots = true })
	full := errors.New("no room")
	var most int64
	_, err := c.Get(context.Background(), Request{URL: p.URL + "/big.md", MaxBytes: 4 << 20,
		Hold: func(n int64) error {
			if n > 100<<10 {
				return full
			}
			most = max(most, n)
			return nil
		}})
	wantKind(t, err, KindHeld)
	if !errors.Is(err, full) {
		t.Errorf("error %v does not wrap the hold's refusal", err)
	}
	if p.Hits("/big.md") != 1 {
		t.Errorf("a refused body was asked for %d times, want 1", p.Hits("/big.md"))
	}
	if most > 100<<10 {
		t.Errorf("kept %d bytes past the hold's refusal", most)
	}
}

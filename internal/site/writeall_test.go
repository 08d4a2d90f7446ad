package site

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestWriteAllPutsEachOutputOnceWithItsKey: the writers share the outputs
// between them, each put once with the key made for it, the keys returned
// in the outputs' order, the changed ones counted.
func TestWriteAllPutsEachOutputOnceWithItsKey(t *testing.T) {
	var outs []output
	for i := range 1000 {
		key := fmt.Sprintf("key-%d", i)
		outs = append(outs, output{Path: fmt.Sprintf("p%04d", i), Key: func() string { return key }})
	}
	outs = append(outs, output{Path: "unkeyed"})
	var mu sync.Mutex
	put := map[string]string{}
	keys, written, err := writeAll(context.Background(), outs, func(o output, key string) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if _, again := put[o.Path]; again {
			t.Errorf("%s put twice", o.Path)
		}
		put[o.Path] = key
		return len(put)%2 == 0, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(put) != len(outs) || written != len(outs)/2 {
		t.Errorf("put %d outputs, %d written; want %d, %d", len(put), written, len(outs), len(outs)/2)
	}
	for i, o := range outs {
		want := ""
		if o.Key != nil {
			want = o.Key()
		}
		if keys[i] != want || put[o.Path] != want {
			t.Errorf("%s: key %q, put with %q; want %q", o.Path, keys[i], put[o.Path], want)
		}
	}
}

// TestWriteAllStopsAtAWritersError: an output that cannot be put fails
// the build with its error.
func TestWriteAllStopsAtAWritersError(t *testing.T) {
	outs := make([]output, 100)
	for i := range outs {
		outs[i].Path = fmt.Sprintf("p%02d", i)
	}
	broken := errors.New("disk full")
	_, _, err := writeAll(context.Background(), outs, func(o output, _ string) (bool, error) {
		if o.Path == "p42" {
			return false, broken
		}
		return true, nil
	})
	if !errors.Is(err, broken) {
		t.Errorf("writeAll = %v, want %v", err, broken)
	}
}

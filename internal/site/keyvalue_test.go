package site

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestAppendValueMatchesFmt wants appendValue to write what fmt's %v
// writes for every kind it knows, so that cache keys stay as they were;
// every field of each struct is set, so a field added to one shows here.
func TestAppendValueMatchesFmt(t *testing.T) {
	odd := []string{"", "plain", "two words", "{[a b]}", "nul\x00", "naïve ✓", "bad\xffutf8", "%v %d"}
	vote := Vote{Validator: odd[1], ValidatorURL: odd[2], Agent: odd[3], TraceURL: odd[4], Read: odd[5], TraceHash: manifest.Hash(odd[6]),
		TraceTitle: odd[7], Seq: 42, Result: "pass", Total: -3, Scores: [6]int{1, 2, 3, 4, 5, -6}, HasScores: true,
		ValidatedAt: time.Date(2026, 3, 1, 12, 30, 5, 7, time.FixedZone("X", 3600)), File: "validations/val-x.md", SourceURL: "https://x.org/"}
	values := []any{0, 7, -7, math.MaxInt, math.MinInt, int64(math.MinInt64), int64(1e18), manifest.Seq(0), manifest.Seq(123),
		true, false, []string(nil), []string{}, odd, []Field(nil), []Field{{Name: odd[2], Value: odd[3], Unfilled: true}, {}},
		refLink{Label: odd[3], Title: odd[2], Href: odd[4], External: true}, refLink{}, []refLink(nil),
		[]refLink{{Label: "ada/1", Href: "../x.html"}, {Title: odd[6]}}, agentRef{Name: odd[2], Href: odd[3]}, agentRef{},
		vote, Vote{}}
	for _, v := range values {
		got, ok := appendValue([]byte("prefix"), v)
		if want := "prefix" + fmt.Sprintf("%v", v); !ok || string(got) != want {
			t.Errorf("appendValue(%T) = %q, %v; fmt gives %q", v, got, ok, want)
		}
	}
	for _, v := range []any{1.5, uint(3), &vote, map[string]int{"a": 1}} {
		if got, ok := appendValue(nil, v); ok {
			t.Errorf("appendValue(%T) = %q, true; want it left to appendReflect", v, got)
		}
	}
}

// TestAppendReflectTellsValuesNotPointers wants equal values at two
// addresses to append the same bytes (%v wrote a pointer's address, so a
// key holding one changed at every build), and values that differ in
// one field, however deep, or in a list's length, to append different
// ones.
func TestAppendReflectTellsValuesNotPointers(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	peer := func() *Peer { return &Peer{Name: "ada", LastPolled: at, Failures: 2} }
	standing := func() Standing {
		return Standing{Agent: "ada", Signal: 12.5, Breakdown: []Earning{{Words: "a rock", Points: 12.5}}}
	}
	key := func(v any) string { return string(appendReflect(nil, reflect.ValueOf(v))) }
	if a, b := key([]*Peer{peer()}), key([]*Peer{peer()}); a != b {
		t.Errorf("two equal peers at two addresses append %q and %q", a, b)
	}
	base := key(standing())
	for name, change := range map[string]func(s *Standing){
		"an earning's points": func(s *Standing) { s.Breakdown[0].Points++ },
		"an earning's words":  func(s *Standing) { s.Breakdown[0].Words += "s" },
		"one earning more":    func(s *Standing) { s.Breakdown = append(s.Breakdown, Earning{}) },
		"the tier":            func(s *Standing) { s.Tier = "Trusted" },
	} {
		s := standing()
		change(&s)
		if key(s) == base {
			t.Errorf("changing %s appends the same bytes %q", name, base)
		}
	}
	p := peer()
	p.LastPolled = at.Add(time.Second)
	if key(p) == key(peer()) {
		t.Error("a peer polled a second later appends the same bytes")
	}
	if key(map[string]int{"a": 1, "b": 2}) != key(map[string]int{"b": 2, "a": 1}) {
		t.Error("a map's entries are not in one order")
	}
}

package site

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// TestAppendValueTellsEveryFieldApart wants two values that differ in
// any one field of a struct, or whose strings are cut at another place,
// to append different bytes, so that two pages' views never share a key:
// on 0825e87e appendValue wrote what %v writes, fields and items joined by
// a bare space, and ("a b", "c") and ("a", "b c") appended the same.
func TestAppendValueTellsEveryFieldApart(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"an agent's name and link", agentRef{Name: "a b", Href: "c"}, agentRef{Name: "a", Href: "b c"}},
		{"two tags or one", []string{"a", "b"}, []string{"a b"}},
		{"a field's name and value", []Field{{Name: "a b", Value: "c"}}, []Field{{Name: "a", Value: "b c"}}},
		{"two fields or one", []Field{{Name: "a", Value: "b false} {c"}}, []Field{{Name: "a", Value: "b"}, {Name: "c"}}},
		{"a link's label and title", refLink{Label: "a b", Title: "c"}, refLink{Label: "a", Title: "b c"}},
		{"a vote's validator and URL", Vote{Validator: "a b", ValidatorURL: "c"}, Vote{Validator: "a", ValidatorURL: "b c"}},
	} {
		a, okA := appendValue(nil, c.a)
		b, okB := appendValue(nil, c.b)
		if !okA || !okB || bytes.Equal(a, b) {
			t.Errorf("%s: %#v and %#v append %q (%v) and %q (%v)", c.name, c.a, c.b, a, okA, b, okB)
		}
		if keyOf(c.a) == keyOf(c.b) {
			t.Errorf("%s: %#v and %#v have one key", c.name, c.a, c.b)
		}
	}
	vote := Vote{Validator: "v", ValidatorURL: "u", Agent: "a", TraceURL: "t", Read: "r", TraceHash: "h", TraceTitle: "tt",
		Seq: 42, Result: "pass", Total: -3, Scores: [6]int{1, 2, 3, 4, 5, -6}, HasScores: true,
		ValidatedAt: time.Date(2026, 3, 1, 12, 30, 5, 7, time.UTC), File: "f", SourceURL: "s"}
	for _, v := range []any{Field{Name: "n", Value: "v", Unfilled: true}, refLink{Label: "l", Title: "t", Href: "h", External: true},
		agentRef{Name: "n", Href: "h"}, vote} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			w := reflect.New(rv.Type()).Elem()
			w.Set(rv)
			changeField(t, w.Field(i))
			a, _ := appendValue(nil, asKeyed(v))
			b, ok := appendValue(nil, asKeyed(w.Interface()))
			if !ok || bytes.Equal(a, b) {
				t.Errorf("%T with another %s appends the same %q (%v)", v, rv.Type().Field(i).Name, a, ok)
			}
		}
	}
	for _, v := range []any{1.5, uint(3), &vote, map[string]int{"a": 1}} {
		if got, ok := appendValue(nil, v); ok {
			t.Errorf("appendValue(%T) = %q, true; want it left to appendReflect", v, got)
		}
	}
}

// asKeyed is v as keys hold it: a Field only in a list.
func asKeyed(v any) any {
	if f, ok := v.(Field); ok {
		return []Field{f}
	}
	return v
}

// changeField sets f to another value of its kind.
func changeField(t *testing.T, f reflect.Value) {
	t.Helper()
	switch {
	case f.Type() == timeType:
		f.Set(reflect.ValueOf(f.Interface().(time.Time).Add(time.Second)))
	case f.Kind() == reflect.String:
		f.SetString(f.String() + "x")
	case f.Kind() == reflect.Bool:
		f.SetBool(!f.Bool())
	case f.CanInt():
		f.SetInt(f.Int() + 1)
	case f.Kind() == reflect.Array:
		changeField(t, f.Index(f.Len()-1))
	default:
		t.Fatalf("no change written for a field of kind %s", f.Kind())
	}
}

// FuzzAppendValueTellsAgentRefsApart: two agent links append the same
// bytes only when their names and links are the same.
func FuzzAppendValueTellsAgentRefsApart(f *testing.F) {
	f.Add("a b", "c", "a", "b c")
	f.Add("", "{}", "}{", "")
	f.Fuzz(func(t *testing.T, n1, h1, n2, h2 string) {
		a, _ := appendValue(nil, agentRef{Name: n1, Href: h1})
		b, _ := appendValue(nil, agentRef{Name: n2, Href: h2})
		if bytes.Equal(a, b) != (n1 == n2 && h1 == h2) {
			t.Fatalf("(%q, %q) appends %q and (%q, %q) %q", n1, h1, a, n2, h2, b)
		}
	})
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

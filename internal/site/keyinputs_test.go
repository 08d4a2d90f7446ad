package site

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestAnUnchangedRebuildRendersNoPage builds the fixture, then checks
// that every output of the same node has a key, and the key the build
// recorded: an unchanged rebuild then skips every one of them without
// rendering it (writeOutput).
func TestAnUnchangedRebuildRendersNoPage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Write(context.Background(), loadFixture(t, "testdata/node"), out); err != nil {
		t.Fatal(err)
	}
	cached := readCache(out)
	for _, o := range siteOutputs(loadFixture(t, "testdata/node")) {
		switch {
		case o.Key == nil:
			t.Errorf("%s has no key: every rebuild renders it", o.Path)
		case o.Key() != cached[o.Path]:
			t.Errorf("%s's key %q is not the one the build recorded, %q", o.Path, o.Key(), cached[o.Path])
		}
	}
}

// TestEveryInputOfAPageIsInItsKey changes, by reflection, every field of
// the fixture node one at a time (each value, and each list without its
// last item), renders every output again, and wants each output whose
// bytes changed to have a new key: a key that missed an input would
// leave a stale page on a rebuild. The fields no page shows as such are
// left alone: Agents and CitedBy, which prepare derives from the rest;
// Dir, where published files are linked from; and a published file's
// bytes, which its hash names (loadPublished).
func TestEveryInputOfAPageIsInItsKey(t *testing.T) {
	before := renderOutputs(t, loadFixture(t, "testdata/node"))
	changes := mutations(loadFixture(t, "testdata/node"))
	if changes < 100 {
		t.Fatalf("only %d changes found in the fixture", changes)
	}
	for i := range changes {
		n := loadFixture(t, "testdata/node")
		field := mutate(n, i)
		for path, a := range renderOutputs(t, n) {
			b, ok := before[path]
			if ok && !bytes.Equal(a.data, b.data) && a.key == b.key {
				t.Errorf("changing %s changes %s but not its key", field, path)
			}
		}
	}
}

type rendered struct {
	key  string
	data []byte
}

// renderOutputs renders every output of n, with its key.
func renderOutputs(t *testing.T, n *Node) map[string]rendered {
	t.Helper()
	m := map[string]rendered{}
	var buf bytes.Buffer
	for _, o := range siteOutputs(n) {
		var r rendered
		if o.Key != nil {
			r.key = o.Key()
		}
		data, err := o.Render(&buf)
		if err != nil {
			t.Fatalf("render %s: %v", o.Path, err)
		}
		r.data = bytes.Clone(data)
		m[o.Path] = r
	}
	return m
}

// mutations counts the changes mutate can make to n.
func mutations(n *Node) int {
	w := &mutator{target: -1}
	w.walk(reflect.ValueOf(n).Elem(), "Node")
	return w.seen
}

// mutate makes the i-th change to n and names the field it changed.
func mutate(n *Node, i int) string {
	w := &mutator{target: i}
	w.walk(reflect.ValueOf(n).Elem(), "Node")
	return w.done
}

// mutator walks a value depth first, counting the changes it could make,
// and makes the one numbered target.
type mutator struct {
	target, seen int
	done         string
	visited      map[uintptr]bool
}

// skipped are the fields mutate leaves alone (TestEveryInputOfAPageIsInItsKey).
var skipped = map[string]bool{"Node.Agents": true, "Node.Dir": true, "Trace.CitedBy": true, "File.Data": true, "File.Hash": true}

// change counts one possible change, and makes it when it is the target.
func (w *mutator) change(name string, apply func()) {
	if w.seen == w.target {
		apply()
		w.done = name
	}
	w.seen++
}

func (w *mutator) walk(v reflect.Value, name string) {
	switch {
	case v.Type() == timeType:
		w.change(name, func() { v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(37 * time.Hour).UTC())) })
		return
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		w.change(name, func() { v.SetBytes(append(bytes.Clone(v.Bytes()), "\nOne more line.\n"...)) })
		return
	}
	switch v.Kind() {
	case reflect.String:
		w.change(name, func() { v.SetString(v.String() + "x") })
	case reflect.Int:
		w.change(name, func() { v.SetInt(v.Int() + 1) })
	case reflect.Float64:
		w.change(name, func() { v.SetFloat(v.Float() + 1.25) })
	case reflect.Bool:
		w.change(name, func() { v.SetBool(!v.Bool()) })
	case reflect.Pointer:
		w.walkPointer(v, name)
	case reflect.Slice:
		w.walkSlice(v, name)
	case reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", name, i))
		}
	case reflect.Struct:
		w.walkStruct(v)
	}
}

func (w *mutator) walkPointer(v reflect.Value, name string) {
	if v.IsNil() || !v.Elem().CanSet() {
		return
	}
	if w.visited == nil {
		w.visited = map[uintptr]bool{}
	}
	if w.visited[v.Pointer()] {
		return
	}
	w.visited[v.Pointer()] = true
	w.walk(v.Elem(), name)
}

func (w *mutator) walkSlice(v reflect.Value, name string) {
	if v.Len() == 0 {
		return
	}
	w.change(name+" without its last item", func() { v.Set(v.Slice(0, v.Len()-1)) })
	for i := range v.Len() {
		w.walk(v.Index(i), fmt.Sprintf("%s[%d]", name, i))
	}
}

func (w *mutator) walkStruct(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || skipped[t.Name()+"."+f.Name] {
			continue
		}
		if f.Anonymous {
			w.walk(v.Field(i), t.Name()+"."+f.Name)
			continue
		}
		w.walk(v.Field(i), t.Name()+"."+f.Name)
	}
}

// TestOnlyABuildThatRendersRaisesTheMemoryLimit wants write to call
// rendering (which raises the collector's limit to buildMemoryFloor,
// gcSettings.rendering) once in a cold build and in a rebuild with a page
// to render again, and never in an unchanged rebuild, which would
// otherwise let its heap grow to the higher limit for nothing.
func TestOnlyABuildThatRendersRaisesTheMemoryLimit(t *testing.T) {
	n := loadFixture(t, "testdata/node")
	out := filepath.Join(t.TempDir(), "site")
	calls := func() int {
		c := 0
		if _, err := write(context.Background(), n, out, func() { c++ }); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := calls(); c != 1 {
		t.Errorf("a cold build called rendering %d times, want 1", c)
	}
	if c := calls(); c != 0 {
		t.Errorf("an unchanged rebuild called rendering %d times, want 0", c)
	}
	n.Traces[0].Title = "Renamed"
	if c := calls(); c != 1 {
		t.Errorf("a rebuild after a title changed called rendering %d times, want 1", c)
	}
}

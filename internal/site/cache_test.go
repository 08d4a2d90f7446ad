package site

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestKeyedPagesFollowTheirInputs changes, one at a time, each thing the
// traces index and a trace page show, rebuilds over the earlier site, and
// checks every page matches a cold build of the changed node: a key that
// missed an input would leave a stale page behind.
func TestKeyedPagesFollowTheirInputs(t *testing.T) {
	tests := []struct {
		name   string
		change func(n *Node)
	}{
		{"a trace's title", func(n *Node) { n.Traces[1].Title = "Renamed" }},
		{"a trace's type", func(n *Node) { n.Traces[1].Type = "capability" }},
		{"a trace's status", func(n *Node) { n.Traces[1].Status = "contested" }},
		{"a trace's seq", func(n *Node) { n.Traces[1].Seq = 42 }},
		{"a validation received", func(n *Node) {
			n.Traces[1].Received = append(n.Traces[1].Received, &Vote{Validator: "zed", Result: "pass"})
		}},
		{"a trace's time", func(n *Node) { n.Traces[1].Submitted = n.Traces[1].Submitted.Add(time.Hour) }},
		{"a trace gone", func(n *Node) { n.Traces = n.Traces[1:] }},
		{"the agent's name", func(n *Node) { n.Agent = "renamed" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			n := loadFixture(t, "testdata/node")
			inc := filepath.Join(t.TempDir(), "site")
			if _, err := Write(ctx, n, inc); err != nil {
				t.Fatal(err)
			}
			tt.change(n)
			if _, err := Write(ctx, n, inc); err != nil {
				t.Fatal(err)
			}
			cold := filepath.Join(t.TempDir(), "site")
			if _, err := Write(ctx, n, cold); err != nil {
				t.Fatal(err)
			}
			for _, f := range siteFiles(t, cold) {
				a, _ := os.ReadFile(filepath.Join(cold, f))
				b, err := os.ReadFile(filepath.Join(inc, f))
				if err != nil || !bytes.Equal(a, b) {
					t.Errorf("%s after the change differs from a cold build (err %v)", f, err)
				}
			}
		})
	}
}

package site

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestKeyedPagesFollowTheirInputs changes, one at a time, each thing the
// keyed pages show (the traces index, a trace page, the mesh's list, the
// feeds), rebuilds over the earlier site, and checks every page matches a
// cold build of the changed node (a key that missed an input would leave
// a stale page behind), and that it wrote exactly the files that changed.
func TestKeyedPagesFollowTheirInputs(t *testing.T) {
	tests := []struct {
		name   string
		change func(n *Node)
	}{
		{"a trace's title", func(n *Node) { n.Traces[1].Title = "Renamed" }},
		{"a trace's type", func(n *Node) { n.Traces[1].Type = "capability" }},
		{"a trace's status", func(n *Node) { n.Traces[1].Status = "contested" }},
		{"a trace's seq", func(n *Node) { n.Traces[1].Seq = 42 }},
		{"a trace's hash", func(n *Node) { n.Traces[1].Hash = n.Traces[0].Hash }},
		{"a validation received", func(n *Node) {
			n.Traces[1].Received = append(n.Traces[1].Received, &Vote{Validator: "zed", Result: "pass"})
		}},
		{"a trace's time", func(n *Node) { n.Traces[1].Submitted = n.Traces[1].Submitted.Add(time.Hour) }},
		{"a trace gone", func(n *Node) { n.Traces = n.Traces[1:] }},
		{"the agent's name", func(n *Node) { n.Agent = "renamed" }},
		{"the node's URL", func(n *Node) { n.URL = "https://renamed.example.org/" }},
		{"a file the footer links gone", func(n *Node) {
			n.Files = slices.DeleteFunc(n.Files, func(f File) bool { return f.Path == "IDENTITY.md" })
		}},
		{"the MANIFEST's time", func(n *Node) { n.Updated = n.Updated.Add(time.Hour) }},
		{"a trace's copy flag", func(n *Node) { n.Traces[1].Copy = true }},
		{"a trace's body", func(n *Node) { n.Traces[0].Body = append(n.Traces[0].Body, "\nOne more line.\n"...) }},
		{"a peer trace's title", func(n *Node) { n.Others[0].Title = "Renamed peer trace" }},
		{"a peer trace's status", func(n *Node) { n.Others[0].Status = "contested" }},
		{"a peer trace's count", func(n *Node) { n.Others[0].Passing, n.Others[0].Seen = 2, 3 }},
		{"a peer trace's copy flag", func(n *Node) { n.Others[0].Copy = true }},
		{"a peer trace's excerpt", func(n *Node) { n.Others[0].Excerpt = "Another excerpt." }},
		{"a peer trace's time", func(n *Node) { n.Others[0].Submitted = n.Others[0].Submitted.Add(-time.Hour) }},
		{"a peer trace disputed", func(n *Node) { n.Others[0].Disputed, n.Others[0].Excerpt = true, "" }},
		{"a peer trace's own page", func(n *Node) { n.Others[0].Page = "https://ada.example.org/pages/renamed.html" }},
		{"a peer trace's URL", func(n *Node) { n.Others[0].URL = "https://ada.example.org/traces/renamed.md" }},
		{"our validation of a peer trace", func(n *Node) { n.Others[0].Ours = &Vote{File: "validations/val-4f2a9c1b7d3e.md", Total: 21} }},
		{"a peer trace gone", func(n *Node) { n.Others = n.Others[1:] }},
		{"a peer trace's agent", func(n *Node) { n.Others[0].Agent = "zoe" }},
		{"a validation we gave", func(n *Node) { n.Given[0].Total, n.Given[0].Result = 3, "fail" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			n := loadFixture(t, "testdata/node")
			inc := filepath.Join(t.TempDir(), "site")
			if _, err := Write(ctx, n, inc); err != nil {
				t.Fatal(err)
			}
			before := map[string][]byte{}
			for _, f := range siteFiles(t, inc) {
				before[f], _ = os.ReadFile(filepath.Join(inc, f))
			}
			tt.change(n)
			st, err := Write(ctx, n, inc)
			if err != nil {
				t.Fatal(err)
			}
			cold := filepath.Join(t.TempDir(), "site")
			if _, err := Write(ctx, n, cold); err != nil {
				t.Fatal(err)
			}
			changed := 0
			for _, f := range siteFiles(t, cold) {
				a, _ := os.ReadFile(filepath.Join(cold, f))
				b, err := os.ReadFile(filepath.Join(inc, f))
				if err != nil || !bytes.Equal(a, b) {
					t.Errorf("%s after the change differs from a cold build (err %v)", f, err)
				}
				if old, ok := before[f]; f != markerFile && (!ok || !bytes.Equal(old, a)) {
					changed++
				}
			}
			// Only the files whose bytes changed are written: the rest
			// keep their mtimes.
			if st.Written != changed {
				t.Errorf("the rebuild wrote %d files; %d changed", st.Written, changed)
			}
		})
	}
}

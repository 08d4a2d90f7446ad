package heartbeat

import (
	"bytes"
	"strings"
	"testing"
)

// TestHeartbeatHoldsBackFilesItMustNotPublish: a file in validations/ that
// is not a validation, a traces/x.html and a draft do not stop the
// heartbeat (it used to exit 1 on the first); each is named in the summary
// with its reason, and the rest is published.
func TestHeartbeatHoldsBackFilesItMustNotPublish(t *testing.T) {
	dir := newNode(t, nil, "")
	write(t, dir, "traces/good.md", "---\ntitle: Good\n---\n\n# Good\n")
	write(t, dir, "traces/draft.md", "---\ntitle: Draft\ndraft: true\n---\n\n# Draft\n")
	write(t, dir, "traces/x.html", "<script>alert(1)</script>")
	write(t, dir, "validations/notes.md", "# Notes\n\nnot a validation\n")
	sum := beat(t, dir, testNow)
	if sum.TracesPublished != 1 {
		t.Errorf("published %d traces, want 1", sum.TracesPublished)
	}
	want := map[string]string{
		"traces/draft.md":      "draft: true",
		"traces/x.html":        "only .md files are published",
		"validations/notes.md": "not a validation",
	}
	if len(sum.Held) != len(want) {
		t.Fatalf("held %+v, want %d files", sum.Held, len(want))
	}
	for _, h := range sum.Held {
		if !strings.Contains(h.Reason, want[h.File]) || want[h.File] == "" {
			t.Errorf("held %s because %q, want %q", h.File, h.Reason, want[h.File])
		}
	}
	var b bytes.Buffer
	sum.WriteText(&b)
	if !strings.Contains(b.String(), `not published: "validations/notes.md": not a validation`) {
		t.Errorf("the summary does not name the held file:\n%s", b.String())
	}
}

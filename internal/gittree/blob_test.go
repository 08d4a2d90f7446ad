package gittree

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestWithBlobIsWhatGitListsOnceTheBytesAreCommitted: the listing WithBlob
// gives for new bytes at a path is, byte for byte, the one Of gives once
// those bytes are written and committed, the path's attributes applied
// (here git stores the file's CRLF line ends as LF: an ID computed from
// the raw bytes would differ).
func TestWithBlobIsWhatGitListsOnceTheBytesAreCommitted(t *testing.T) {
	ctx := context.Background()
	paths := []string{"MANIFEST.md", "validations"}
	for _, tc := range []struct{ name, attributes, content string }{
		{"plain bytes", "", "updated: 2026-11-28T05:00:00Z\n| a | b |\n"},
		{"bytes git converts on the way in", "MANIFEST.md text eol=lf\n", "updated: 2026-11-28T05:00:00Z\r\n| a | b |\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t)
			write(t, dir, "MANIFEST.md", "updated: 2026-11-28T04:00:00Z\n")
			if tc.attributes != "" {
				write(t, dir, ".gitattributes", tc.attributes)
			}
			commit(t, dir)
			before, err := Of(ctx, dir, paths)
			if err != nil {
				t.Fatal(err)
			}
			got, err := WithBlob(ctx, dir, before, "MANIFEST.md", []byte(tc.content))
			if err != nil {
				t.Fatal(err)
			}
			write(t, dir, "MANIFEST.md", tc.content)
			commit(t, dir)
			want, err := Of(ctx, dir, paths)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("WithBlob gave\n%s\ngit lists, once the bytes are committed,\n%s", got, want)
			}
			if bytes.Equal(got, before) {
				t.Error("WithBlob changed nothing")
			}
		})
	}
}

// TestWithBlobNeedsAFileEntryOfThatPath: a listing without the path's
// file (absent, or a directory of that name) is an error, not a listing
// that silently lacks the new bytes.
func TestWithBlobNeedsAFileEntryOfThatPath(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	listing, err := Of(ctx, dir, []string{"validations", "MANIFEST.md"})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"MANIFEST.md", "validations", "validations/val-a.md"} {
		if out, err := WithBlob(ctx, dir, listing, path, []byte("x")); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("WithBlob(%s) = %q, %v; want an error naming the path", path, out, err)
		}
	}
}

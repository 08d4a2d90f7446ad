package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestDataElementsReadsOddMarkup(t *testing.T) {
	cases := []struct{ name, page, want string }{
		{"quotes of both kinds and none", `<tr data-a="1" data-b='2' data-c=3>`, "[map[data-a:1 data-b:2 data-c:3]]"},
		{"names are case-insensitive", `<TR DATA-Agent="ann">`, "[map[data-agent:ann]]"},
		{"entities are unescaped", `<tr data-agent="a&amp;b&quot;">`, `[map[data-agent:a&b"]]`},
		{"other attributes are left out", `<p class="x" data-a="1" hidden>`, "[map[data-a:1]]"},
		{"a tag without data is left out", `<p class="x"><b data-a=1>`, "[map[data-a:1]]"},
		{"a comment hides a tag", `<!-- <p data-a=1> --><p data-b=2>`, "[map[data-b:2]]"},
		{"an unclosed comment ends the page", `<!-- <p data-a=1>`, "[]"},
		{"an unclosed quote ends the page", `<p data-a=1><p data-b="2>`, "[map[data-a:1]]"},
		{"a tag that does not end is left out", `<p data-a=1`, "[]"},
		{"text that is no tag", `a < b and 1<2 <p data-a="1"/>`, "[map[data-a:1]]"},
		{"spaces around the equals sign", "<p data-a = \"1\"\n data-b\t=\t2>", "[map[data-a:1 data-b:2]]"},
		{"an attribute with no value", `<p data-a data-b=2>`, "[map[data-a: data-b:2]]"},
		{"empty", ``, "[]"},
		{"a lone bracket", `<`, "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := fmt.Sprint(allElements([]byte(c.page)))
			if got != c.want {
				t.Errorf("%s: %s, want %s", c.page, got, c.want)
			}
		})
	}
}

// allElements is every tagged element of page, within the page bound.
func allElements(page []byte) []map[string]string {
	els, _ := dataElements(page, maxPageValues)
	return els
}

func TestDataElementsStopsAtItsLimit(t *testing.T) {
	els, more := dataElements([]byte(`<p data-a=1><p class=x><p data-b=2><p data-c=3>`), 2)
	if fmt.Sprint(els) != "[map[data-a:1] map[data-b:2]]" || !more {
		t.Errorf("%v, more %t; want the first two and more", els, more)
	}
	if _, more := dataElements([]byte(`<p data-a=1><p data-b=2>`), 2); more {
		t.Error("a page of exactly the limit reports more")
	}
}

// BenchmarkDataElementsOnAFullPage reads a page of the largest size
// verify reads, made of the site's own signal.html over and over.
func BenchmarkDataElementsOnAFullPage(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("..", "site", "testdata", "golden", "signal.html.golden"))
	if err != nil {
		b.Fatal(err)
	}
	page := bytes.Repeat(one, maxPageBytes/len(one))
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		dataElements(page, maxPageValues)
	}
}

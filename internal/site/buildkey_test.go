package site

import (
	"context"
	"strings"
	"testing"
)

// The site's tests build with a fixed build, so that the golden marker's
// keys do not depend on the Go version or commit the tests are built at.
func init() { templateKey = fixedKey("test build") }

// fixedKey is a templateKey that names the given build.
func fixedKey(build string) func() string {
	k := templateKeyOf(build)
	return func() string { return k }
}

func TestAnotherBuildRendersEveryPageAgain(t *testing.T) {
	a, b := templateKeyOf("module=(devel) go=go1.26.0 vcs.revision=aaaa "), templateKeyOf("module=(devel) go=go1.26.0 vcs.revision=bbbb ")
	if a == b {
		t.Fatalf("two builds of other code give the same template key %s: a new binary would keep pages the old one rendered", a)
	}
	if again := templateKeyOf("module=(devel) go=go1.26.0 vcs.revision=aaaa "); again != a {
		t.Errorf("the same build gives two keys: %s, %s", a, again)
	}
	out, _ := buildFixture(t)
	before := readCache(out)
	saved := templateKey
	t.Cleanup(func() { templateKey = saved })
	templateKey = fixedKey("another build")
	st, err := Build(context.Background(), Options{Dir: "testdata/node", Out: out, Now: fixtureNow})
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 0 {
		t.Errorf("a build of other code rendering the same bytes wrote %d files", st.Written)
	}
	after := readCache(out)
	if len(before) == 0 {
		t.Fatal("the first build keyed no output")
	}
	for path, key := range before {
		if strings.HasSuffix(path, ".md") {
			continue // a published file is copied, keyed by its sha256 alone
		}
		if after[path] == key {
			t.Errorf("%s kept its key %s after a build of other code", path, key)
		}
	}
}

package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Directories whose files the node publishes, in the order new files get
// their sequence numbers: traces first, then validations, then disputes,
// each by path. The order depends only on names, never on modification
// times, which git does not keep: a rerun after a crash gives every file
// the seq the crashed run would have given it.
const (
	TracesDir      = "traces"
	ValidationsDir = "validations"
	DisputesDir    = "disputes"
)

// ManifestFile is the node's MANIFEST.md, relative to its directory.
const ManifestFile = "MANIFEST.md"

var publishedDirs = []string{TracesDir, ValidationsDir, DisputesDir}

// ownFiles lists the files the node may publish, as slash paths relative to
// dir, in seq order. Only regular *.md files directly inside the three
// directories count: hidden files (editor and atomicfile temporaries),
// other extensions and subdirectories are ignored, so drafts and notes can
// live beside traces without being published.
func ownFiles(dir string) ([]string, error) {
	var out []string
	for _, d := range publishedDirs {
		names, err := mdFiles(filepath.Join(dir, d))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			out = append(out, path.Join(d, n))
		}
	}
	return out, nil
}

// mdFiles returns the sorted names of the publishable files in dir; a
// missing dir holds none.
func mdFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if Publishable(e) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Publishable reports whether a directory entry of traces/, validations/
// or disputes/ is one the node publishes: a regular *.md file that is not
// hidden (editors' and writers' temporaries are). Every reader of those
// directories uses it, so they agree on what the node's files are.
func Publishable(e fs.DirEntry) bool {
	n := e.Name()
	return e.Type().IsRegular() && !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".md")
}

// kindOf tells what a published path holds by its directory.
func kindOf(file string) string {
	switch path.Dir(file) {
	case ValidationsDir:
		return ValidationsDir
	case DisputesDir:
		return DisputesDir
	default:
		return TracesDir
	}
}

// localPath turns a MANIFEST file column into a path under dir, refusing
// one that would leave it (a hand-edited MANIFEST is still input).
func localPath(dir, file string) (string, error) {
	p := filepath.FromSlash(file)
	if !filepath.IsLocal(p) {
		return "", fmt.Errorf("%s lists %q, which is not a path inside the node", ManifestFile, file)
	}
	return filepath.Join(dir, p), nil
}

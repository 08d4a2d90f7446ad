package publish

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/meshnode/meshnode/internal/node"
)

// linkedTopFiles holds back the node's top-level published files
// (IDENTITY.md, AGENTS.md, FOUNDERS.md) that are symbolic links: the site
// would ship the link's target, so meshnode build refuses them, and every
// heartbeat says so until a person replaces the link with the file.
func linkedTopFiles(dir string) []Held {
	var held []Held
	for _, f := range node.TopFiles {
		if f == node.ManifestFile {
			continue // rewritten by rename below: a link is replaced by the file
		}
		if _, err := node.Stat(dir, f); errors.Is(err, node.ErrSymlink) {
			held = append(held, Held{File: f, Reason: "a symbolic link: meshnode build refuses it, since the site would publish its target; replace it with the file itself"})
		}
	}
	return held
}

// localPath turns a MANIFEST file column into a path under dir, refusing
// one that would leave it (a hand-edited MANIFEST is still input).
func localPath(dir, file string) (string, error) {
	p := filepath.FromSlash(file)
	if !filepath.IsLocal(p) {
		return "", fmt.Errorf("%s lists %q, which is not a path inside the node", node.ManifestFile, file)
	}
	return filepath.Join(dir, p), nil
}

package check

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/integrity"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/signal"
)

// file applies the rules for one path a pull request touched: the
// heartbeat's files are not a pull request's to change, a published file
// never changes, nothing the node publishes is a symbolic link, and a file
// in traces/ or validations/ has a publishable name and size and parses.
// Any other path (code, workflows, git's own files, docs) is not data the
// gate checks: it needs a person (needsReview).
func (c *checker) file(f string) {
	if gitControl(f) || !node.Node(f) {
		c.needsReview(f)
		return
	}
	if row, ok := c.rows[f]; ok {
		c.published(f, row)
		return
	}
	if heartbeatOnly(f) {
		if !c.o.Heartbeat && c.changedOrModed(f) {
			c.add(f, 1, "written only by the heartbeat: a pull request must not add, edit, delete it or change its mode (restore it from the base branch)")
		}
		return
	}
	c.unpublished(f)
	if why, ok := trustFiles[f]; ok && (c.o.Base != c.o.Dir || c.o.Heartbeat) && c.changedFromBase(f) {
		c.add(f, 1, "%s: the gate never passes a change to it; a person must review it and merge it by hand (an administrator's bypass of the required check, or a commit of their own)", why)
	}
	if f == node.IdentityFile {
		c.identity(f)
	}
	fi, err := node.Stat(c.o.Dir, f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return // deleted, and never published: nothing left to check
	case errors.Is(err, node.ErrSymlink):
		c.add(f, 1, "%v: replace the link with the file itself", err)
		return
	case err != nil:
		c.add(f, 1, "cannot read: %v", err)
		return
	}
	if f == node.TracesDir || f == node.ValidationsDir {
		if !fi.IsDir() {
			c.add(f, 1, "the node keeps its files in the directory %s/; restore it", f)
		}
		return
	}
	if top, _, _ := cutTop(f); top == f && !c.plain(f, fi) {
		return
	}
	if f == node.FoundersFile {
		c.founders(f)
		return
	}
	if top, _, _ := cutTop(f); top == f {
		// IDENTITY.md, AGENTS.md, mesh.yaml: people's to edit, within what
		// the site copies and peers read.
		if f == node.AgentsFile && fi.Size() > maxAgentsBytes {
			c.add(f, 1, "%d bytes: peers read at most %d (limits.agents_bytes, 256 KiB) of an AGENTS.md", fi.Size(), maxAgentsBytes)
		} else if fi.Size() > node.MaxTopFileBytes {
			c.add(f, 1, "%d bytes: meshnode build copies at most %d (4 MiB) of a top-level file", fi.Size(), node.MaxTopFileBytes)
		}
		return
	}
	c.published1(f, fi)
}

// trustFiles are the node's files that decide whom it trusts, each with
// what a change to it does. A pull request that changes one is never
// passed by the gate, whatever it contains: its author could otherwise
// name itself a founder, bind a name to its own URL or open the node to
// private addresses behind a green status (docs/security.md).
var trustFiles = map[string]string{
	node.FoundersFile: "changes the mesh's founders, who decide every agent's standing",
	node.AgentsFile:   "changes the agents this node polls and the URL each name is bound to",
	node.ConfigFile:   "changes this node's settings (allow_private_addresses, gossip, limits)",
}

// maxAgentsBytes is the most of an AGENTS.md peers read: the default
// limits.agents_bytes. A larger one would be cut off for every peer.
var maxAgentsBytes = config.Default().Limits.AgentsBytes

// unpublished reports a pull request's edit or deletion of a file of
// traces/ or validations/ that the base holds but has not published yet.
// The next heartbeat publishes the base's bytes, and a status stays on the
// pull request's head: the change, merged after that heartbeat, would
// edit or delete a published file, and every heartbeat after it would
// refuse to publish. A file new to the base is the pull request's own.
func (c *checker) unpublished(f string) {
	if c.o.Base == c.o.Dir || c.o.Heartbeat || node.PublishedDir(f) == "" || node.CheckName(path.Base(f)) != nil {
		return
	}
	if _, err := node.Stat(c.o.Base, f); err != nil {
		return // new to the base, or nothing the base publishes
	}
	if c.changedFromBase(f) {
		c.add(f, 1, "not published yet, but the next heartbeat publishes it as the base holds it: a green check would outlive that, and this change merged after it would edit a published file; a person must review it and merge it by hand, or publish a new file instead")
	}
}

// published1 checks a file under traces/ or validations/ that is not
// published yet: where it is, its name and size, then its content.
func (c *checker) published1(f string, fi fs.FileInfo) {
	dir, name := node.PublishedDir(f), path.Base(f)
	switch {
	case dir == "":
		// Hidden or not: a directory at a file's name (validations/val-x.md/
		// holding a .gitkeep) would stop the heartbeat from ever writing
		// that validation.
		top, _, _ := cutTop(f)
		c.add(f, 1, "files in a subdirectory of %s/ are never published, and the subdirectory takes a file's name; move it to %s/ or out of the node's files", top, top)
		return
	case name == node.Placeholder:
		return // never published: it keeps an empty directory in git
	case node.Hidden(name):
		// Never published, so never checked: not data the gate can pass.
		c.needsReview(f)
		return
	case !c.plain(f, fi):
		return
	}
	if err := node.CheckName(name); err != nil {
		c.add(f, 1, "not a publishable name: %v; rename it (docs/publishing.md, \"File names\")", err)
		return
	}
	if fi.Size() > node.MaxFileBytes {
		c.add(f, 1, "%d bytes: peers read at most %d (1 MiB), so it would be published for nobody", fi.Size(), node.MaxFileBytes)
		return
	}
	data, ok := c.read(f)
	if !ok {
		return
	}
	switch dir {
	case node.TracesDir:
		c.trace(f, data)
	case node.ValidationsDir:
		c.validation(f, data)
	}
}

// founders reports every line of a changed FOUNDERS.md that names no
// founder. The standing this pull request is judged by still comes from
// the base's: a pull request cannot name its author a founder and pass.
func (c *checker) founders(f string) {
	data, ok := c.read(f)
	if !ok {
		return
	}
	var fe *signal.FoundersError
	if _, err := signal.ParseFounders(data); errors.As(err, &fe) {
		for _, p := range fe.Problems {
			c.add(f, p.Line, "%s", p.Reason)
		}
	} else if err != nil {
		c.add(f, 1, "%v", err)
	}
}

// published reports a published file that a pull request edited,
// deleted or replaced with a link: peers hold its hash.
func (c *checker) published(f string, row manifest.Entry) {
	data, err := node.ReadFile(c.o.Dir, f, c.publishedMax(f))
	fix := "published files are immutable: restore it (`git checkout BASE-BRANCH -- " + f + "`) and publish a correcting trace that cites it"
	switch {
	case errors.Is(err, node.ErrTooLarge):
		c.add(f, 1, "published file was edited (published as %s, now %v); %s", row.Hash, err, fix)
	case errors.Is(err, fs.ErrNotExist):
		c.add(f, 1, "published file was deleted (published as %s); %s", row.Hash, fix)
	case errors.Is(err, node.ErrSymlink):
		c.add(f, 1, "published file %v; %s", err, fix)
	case err != nil:
		c.add(f, 1, "cannot read published file: %v", err)
	default:
		c.unchanged(f, row, data, fix)
	}
}

// publishedMax is the most of a published file f worth reading to hash:
// what the node publishes (node.MaxFileBytes), or the base's bytes of it
// when a node published more before that bound. A pull request's larger
// file cannot be the published one, and is not read whole.
func (c *checker) publishedMax(f string) int64 {
	if fi, err := node.Stat(c.o.Base, f); err == nil && fi.Mode().IsRegular() && fi.Size() > node.MaxFileBytes {
		return fi.Size()
	}
	return node.MaxFileBytes
}

// unchanged reports a published file whose bytes no longer verify against
// its row (integrity.Verifier.Check, the check every reader of the file
// makes), or whether it is still a plain file.
func (c *checker) unchanged(f string, row manifest.Entry, data []byte, fix string) {
	var ie *integrity.Error
	switch err := (integrity.Verifier{}).Check(integrity.Claim{Hash: row.Hash, MaxBytes: 1 << 40}, f, data); {
	case errors.As(err, &ie) && ie.Kind == integrity.KindHash:
		c.add(f, 1, "published file was edited (published as %s, now %s); %s", row.Hash, ie.Served, fix)
	case err != nil:
		c.add(f, 1, "published file does not verify: %v; %s", err, fix)
	default:
		if fi, err := node.Stat(c.o.Dir, f); err == nil {
			c.plain(f, fi)
		}
	}
}

// plain reports whether a node file is a plain file, and a problem when it
// is not: git keeps a mode with each file, and the node's data is never a
// directory (a submodule's checkout is one), a device or executable.
func (c *checker) plain(f string, fi fs.FileInfo) bool {
	switch {
	case fi.IsDir():
		c.add(f, 1, "a directory (or a submodule) where the node publishes files: it takes a file's name; remove it")
	case !fi.Mode().IsRegular():
		c.add(f, 1, "not a regular file; the node's data is only regular files")
	case fi.Mode().Perm()&0o111 != 0:
		c.add(f, 1, "an executable file: the node's data is never executable; clear the bit (git update-index --chmod=-x -- %s)", f)
	default:
		return true
	}
	return false
}

// changedFromBase reports whether f differs between the pull request's
// tree and the base: absent from one, a link in either, or other bytes.
func (c *checker) changedFromBase(f string) bool {
	if c.o.Base == c.o.Dir {
		return len(c.o.Files) > 0 // a file named as changed is changed
	}
	return c.statBoth(f).changed(c.o.Dir, c.o.Base, f)
}

// changedOrModed reports whether f differs between the pull request's tree
// and the base in its bytes (changedFromBase) or in its mode alone, from
// one stat of each side.
func (c *checker) changedOrModed(f string) bool {
	if c.o.Base == c.o.Dir {
		return len(c.o.Files) > 0
	}
	p := c.statBoth(f)
	return p.modesDiffer() || p.changed(c.o.Dir, c.o.Base, f)
}

// statFile is node.Stat, a variable so that a test can count the stats a
// comparison with the base makes.
var statFile = node.Stat

// statPair is f as one node.Stat of each side found it: a in the pull
// request's tree, b in the base.
type statPair struct {
	a, b       fs.FileInfo
	errA, errB error
}

func (c *checker) statBoth(f string) statPair {
	var p statPair
	p.a, p.errA = statFile(c.o.Dir, f)
	p.b, p.errB = statFile(c.o.Base, f)
	return p
}

// changed reports whether f differs between dir and base, telling it from
// the stats when it can and otherwise comparing the bytes.
func (p statPair) changed(dir, base, f string) bool {
	if p.sizesDiffer() || p.onlyOneHolds() {
		return true // without reading a pull request's file whole
	}
	a, errA := node.ReadFile(dir, f, 1<<40)
	b, errB := node.ReadFile(base, f, 1<<40)
	if errors.Is(errA, fs.ErrNotExist) && errors.Is(errB, fs.ErrNotExist) {
		return false
	}
	return errA != nil || errB != nil || string(a) != string(b)
}

// bothRegular reports whether f is a regular file on both sides.
func (p statPair) bothRegular() bool {
	return p.errA == nil && p.errB == nil && p.a.Mode().IsRegular() && p.b.Mode().IsRegular()
}

// sizesDiffer reports whether f is a regular file on both sides, of two
// sizes: changed, told without reading either, so that comparing a pull
// request's file reads at most the base's bytes (a file of equal size),
// never a large file the pull request brought.
func (p statPair) sizesDiffer() bool {
	return p.bothRegular() && p.a.Size() != p.b.Size()
}

// modesDiffer reports whether f is a regular file on both sides, of two
// modes: a change git records (an executable bit) though the bytes are
// the same.
func (p statPair) modesDiffer() bool {
	return p.bothRegular() && p.a.Mode() != p.b.Mode()
}

// onlyOneHolds reports whether f is on one side and not on the other:
// changed, told without reading the one that holds it, which may be a
// large file a pull request brought.
func (p statPair) onlyOneHolds() bool {
	return errors.Is(p.errA, fs.ErrNotExist) != errors.Is(p.errB, fs.ErrNotExist)
}

func (c *checker) read(f string) ([]byte, bool) {
	data, err := node.ReadFile(c.o.Dir, f, node.MaxFileBytes)
	if err != nil {
		c.add(f, 1, "cannot read: %v", err)
		return nil, false
	}
	return data, true
}

// all lists, for a check of the whole node, every entry of traces/ and
// validations/ and every published file.
func (c *checker) all() []string {
	var out []string
	for _, d := range []string{node.TracesDir, node.ValidationsDir} {
		entries, err := os.ReadDir(filepath.Join(c.o.Dir, d))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.add(d, 1, "cannot list: %v", err)
		}
		for _, e := range entries {
			if !node.Hidden(e.Name()) {
				out = append(out, path.Join(d, e.Name()))
			}
		}
	}
	return out
}

// cutTop splits a slash path at its first element.
func cutTop(f string) (top, rest string, found bool) { return strings.Cut(f, "/") }

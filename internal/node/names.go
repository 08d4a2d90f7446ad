package node

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/queue"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/state"
)

// The node's published files and directories, relative to its directory.
// Directories are listed in the order new files get their sequence numbers.
const (
	ManifestFile   = manifest.FileName
	IdentityFile   = "IDENTITY.md"
	AgentsFile     = roster.FileName
	FoundersFile   = "FOUNDERS.md"
	ConfigFile     = "mesh.yaml"
	TracesDir      = "traces"
	ValidationsDir = "validations"
	DisputesDir    = "disputes"
	StateDir       = "mesh-state"
	// ArchiveDir holds MANIFEST.md's archive pages (ArchivePage), written
	// by the heartbeat alone and never rewritten (docs/protocol.md §3.3).
	ArchiveDir = "archive"
	// LogDir holds the node's signed log (internal/translog, docs/protocol.md
	// §3.4): its checkpoint and tiles, written by the heartbeat alone.
	LogDir = "log"
)

// The node's state under StateDir. Each of the state files is kept
// as a directory of a file per peer named after it without ".json"
// (polling-cursors/, ledger/, queue/, copies/); the single file of that name is
// what older nodes wrote, read once and migrated (internal/state). The
// lock files are empty: the flock is what holds.
const (
	CursorsFile = StateDir + "/polling-cursors.json"
	LedgerFile  = StateDir + "/ledger.json"
	QueueFile   = StateDir + "/queue.json"
	// CopiesFile names copies/, the bounded copies of peers' traces the
	// site republishes (internal/copies).
	CopiesFile = StateDir + "/copies.json"
	// LogPinsFile names log-pins/, the keys and checkpoints of peers'
	// signed logs and their alarms (internal/logpin).
	LogPinsFile = StateDir + "/log-pins.json"
	// PoolsFile holds the pools of past epochs under mesh-2026-4 and mesh-2026-5, kept
	// between heartbeats so that they are not computed again
	// (signal.Pools): one file, only an optimisation.
	PoolsFile = StateDir + "/assignment-pools.json"
	// RelaysFile names relays/, what the node holds of each relay it
	// reads and a relay's fault with its evidence (internal/relay).
	RelaysFile = StateDir + "/relays.json"
	LockFile   = StateDir + "/heartbeat.lock"
	// DerivedFile is what the heartbeat last computed from the node's
	// history, with the digest of the history it was computed from
	// (docs/decisions.md, "A quiet heartbeat").
	DerivedFile = StateDir + "/derived.json"
)

// HistoryPaths are the node's committed files a heartbeat computes its
// derived state from, besides its cursors and the copies (CopiesPaths):
// its configuration and top-level files, its published files, its archive
// and log, and the ledger (its shards, the segments, and an older node's
// single file).
var HistoryPaths = []string{ConfigFile, ManifestFile, AgentsFile, IdentityFile, FoundersFile,
	TracesDir, ValidationsDir, DisputesDir, ArchiveDir, LogDir,
	LedgerFile, StateDir + "/ledger", StateDir + "/ledger-segments"}

// CopiesPaths are where the copies of peers' traces are kept (copies/ and
// an older node's single file): a cache beside the checkout that is never
// committed, since it is other people's text, which would stay in the
// repository's history for ever, a trace taken down included
// (docs/decisions.md, "What the node commits").
var CopiesPaths = []string{CopiesFile, StateDir + "/copies"}

// CursorsSeenFile names polling-cursors-seen/, the hashes seen from each
// peer, kept apart from its cursor so that a heartbeat reads them only
// when a poll of the peer lists a file (internal/state names it so).
var CursorsSeenFile = state.SeenPath(CursorsFile)

// QueueSettledFile names queue-settled/, each peer's settled queue items,
// kept apart from the items at work so that a heartbeat reads them only
// when it settles or drops items of the peer (internal/queue names it
// so).
var QueueSettledFile = queue.SettledPath(QueueFile)

// StateFiles are the state files kept as a directory of a file per peer.
var StateFiles = []string{CursorsFile, CursorsSeenFile, LedgerFile, QueueFile, QueueSettledFile, CopiesFile}

// TopFiles are the files at the top of the node that the site publishes
// byte for byte.
var TopFiles = []string{ManifestFile, IdentityFile, AgentsFile, FoundersFile}

// Paths are every top-level file and directory that is the node's rather
// than the program's: what `meshnode commit` stages and nothing else.
var Paths = []string{ConfigFile, ManifestFile, AgentsFile, IdentityFile, FoundersFile, TracesDir, ValidationsDir, DisputesDir, ArchiveDir, LogDir, StateDir}

// PublishedDirs hold the node's published files, in seq order.
var PublishedDirs = []string{TracesDir, ValidationsDir, DisputesDir}

// Placeholder is the file the template keeps in an empty directory so git
// tracks it; it is never published.
const Placeholder = ".gitkeep"

// Limits of a published name. MaxNameBytes leaves room under the 255
// bytes a file system allows for the temporary names and the .html page a
// build derives from it; real names are at most 81 bytes (the corpus) and
// a scaffolded one at most 77.
const (
	MaxNameBytes = 128
	Extension    = ".md"
	// reservedName would render to index.html, the page the site lists a
	// directory's files on.
	reservedName = "index.md"
)

// MaxFileBytes is the largest file the node publishes in traces/,
// validations/ or disputes/: the default limits.trace_bytes, above which
// peers refuse to read a file (docs/config.md), so a larger one would be
// published for nobody.
const MaxFileBytes = 1 << 20

// CheckName says why name (a base name, no directory) cannot be a
// published file's, or returns nil. A publishable name is at most
// MaxNameBytes bytes of ASCII letters, digits, '.', '-' and '_', starts
// with a letter or a digit and ends in ".md": it is safe in a MANIFEST
// row, a URL, a shell command and every file system, cannot be taken for
// a flag, and cannot be served as HTML or SVG.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the name is empty")
	case len(name) > MaxNameBytes:
		return fmt.Errorf("the name is %d bytes; at most %d are published", len(name), MaxNameBytes)
	case !strings.HasSuffix(name, Extension) || len(name) == len(Extension):
		return fmt.Errorf("only %s files are published (a browser would run an .html or .svg file on the node's site)", Extension)
	case !alnum(name[0]):
		return fmt.Errorf("the name must start with a letter or a digit")
	case name == reservedName:
		return fmt.Errorf("%s is taken: the site's index of the directory is index.html", reservedName)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '.' && c != '-' && c != '_' {
			return fmt.Errorf("the name holds %q; only ASCII letters, digits, '.', '-' and '_' are published", rune(c))
		}
	}
	return nil
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Publishable reports whether a directory entry of traces/, validations/
// or disputes/ is one the node publishes: a regular file (not a symbolic
// link) with a publishable name. Every reader of those directories uses
// it, so they agree on what the node's files are.
func Publishable(e fs.DirEntry) bool {
	return e.Type().IsRegular() && CheckName(e.Name()) == nil
}

// Hidden reports whether a name is a dotfile: an editor's or a writer's
// temporary, or the Placeholder. Such files are never published and
// never reported.
func Hidden(name string) bool { return strings.HasPrefix(name, ".") }

// PublishedDir returns the published directory a slash path is directly
// inside ("traces/x.md" → "traces"), or "" when it is in none.
func PublishedDir(file string) string {
	d := path.Dir(file)
	for _, p := range PublishedDirs {
		if d == p {
			return p
		}
	}
	return ""
}

// Node reports whether a slash path belongs to the node rather than to
// the program: a top-level node file, mesh.yaml, or anything under a
// published directory, archive/ or mesh-state/.
func Node(file string) bool {
	top, _, _ := strings.Cut(file, "/")
	switch top {
	case ManifestFile, IdentityFile, AgentsFile, FoundersFile, ConfigFile, TracesDir, ValidationsDir, DisputesDir, ArchiveDir, LogDir, StateDir:
		return true
	}
	return false
}

// MaxTopFileBytes bounds the top-level files the site copies (MANIFEST.md,
// IDENTITY.md, AGENTS.md): the default limits.manifest_bytes, the largest
// of the three limits peers read them with (docs/config.md).
const MaxTopFileBytes = 4 << 20

// ArchivePage is the name of the archive page holding MANIFEST.md's rows
// with seqs first to last: "archive/MANIFEST-000000001-000005000.md". The
// nine digits hold every seq a manifest accepts, so names sort in seq
// order.
func ArchivePage(first, last manifest.Seq) string {
	return fmt.Sprintf("%s/MANIFEST-%09d-%09d.md", ArchiveDir, first, last)
}

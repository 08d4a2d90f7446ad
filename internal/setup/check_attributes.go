package setup

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/node"
)

// rewriting are the git attributes that make a checkout's bytes differ
// from what was committed: line endings (text, eol, the old crlf), a
// filter, another encoding, $Id$ expansion. Peers hash the bytes served,
// which are a checkout's, so none may apply to a node file.
var rewriting = []string{"text", "eol", "crlf", "filter", "working-tree-encoding", "ident"}

const fixAttributes = "keep the template's .gitattributes (MANIFEST.md, IDENTITY.md, AGENTS.md, traces/**, validations/**, disputes/** -text) and delete any line that sets text, eol, filter, working-tree-encoding or ident for them"

// CheckAttributes says whether git stores the node's tracked files byte
// for byte: no attribute of .gitattributes (in any directory) rewrites
// them on checkout. One that does makes a fresh clone, the heartbeat's
// included, hash the node's published files differently from what peers
// hold, and every heartbeat then fails.
func CheckAttributes(ctx context.Context, dir string) Finding {
	f := Finding{Check: "attributes"}
	out, err := git(ctx, dir, append([]string{"ls-files", "-z", "--"}, node.Paths...)...)
	if err != nil {
		f.Status, f.Message = StatusWarn, "cannot list the node's files in git: "+err.Error()
		f.Fix = "run doctor in the node's git repository"
		return f
	}
	files := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	if out == "" {
		f.Status, f.Message = StatusOK, "no node file is committed yet"
		return f
	}
	attrs, err := gitAttributes(ctx, dir, files)
	if err != nil {
		f.Status, f.Message, f.Fix = StatusWarn, "cannot read the git attributes of the node's files: "+err.Error(), "run doctor in the node's git repository"
		return f
	}
	bad := rewritten(attrs)
	if len(bad) == 0 {
		f.Status, f.Message = StatusOK, fmt.Sprintf("git keeps the node's %d committed file(s) byte for byte", len(files))
		return f
	}
	f.Status, f.Fix = StatusFail, fixAttributes
	f.Message = fmt.Sprintf("git rewrites %d node file(s) on checkout (%s): a fresh clone hashes them differently from what peers hold, and the heartbeat fails", len(bad), listFirst(bad, 3))
	return f
}

// gitAttributes returns, for each file, its attributes among rewriting
// that are set to anything but "unset" or "unspecified".
func gitAttributes(ctx context.Context, dir string, files []string) (map[string][]string, error) {
	cmd := execGit(ctx, dir, append([]string{"check-attr", "-z", "--stdin"}, rewriting...)...)
	cmd.Stdin = strings.NewReader(strings.Join(files, "\x00") + "\x00")
	cmd.Env = append(cmd.Environ(), "GIT_ATTR_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git check-attr in %s: %w", dir, err)
	}
	fields := strings.Split(string(out), "\x00")
	attrs := map[string][]string{}
	for i := 0; i+2 < len(fields); i += 3 {
		file, attr, value := fields[i], fields[i+1], fields[i+2]
		if value != "unset" && value != "unspecified" {
			attrs[file] = append(attrs[file], attr+"="+value)
		}
	}
	return attrs, nil
}

// rewritten lists the files with a rewriting attribute, sorted, each as
// "FILE (attr=value …)".
func rewritten(attrs map[string][]string) []string {
	var out []string
	for f, a := range attrs {
		out = append(out, f+" "+strings.Join(a, " "))
	}
	slices.Sort(out)
	return out
}

func listFirst(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}

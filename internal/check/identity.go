package check

import (
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/meshnode/meshnode/internal/logsource"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// identity reports a pull request's change to IDENTITY.md, whatever it
// changes: its log_key line decides who may sign the node's history, its
// mirror lines where every reader of that history turns while the origin
// is down (a mirror can delay them, never forge the log), and its other
// lines who the node says it is, on its site and to its peers. No pull
// request the gate may pass touches it (a scorer's adds validations), so
// a change is a person's to review and merge by hand. The heartbeat's own
// commit (a rotation of the key) is judged against itself and passes.
func (c *checker) identity(f string) {
	if c.o.Base == c.o.Dir || c.o.Heartbeat || !c.changedFromBase(f) {
		return
	}
	c.add(f, 1, "%s: the gate never passes a change to %s; a person must review it and merge it by hand (an administrator's bypass of the required check, or a commit of their own)", identityChange(c.o.Dir, c.o.Base, f), f)
}

// identityChange says what a pull request's IDENTITY.md changes against
// the base's, most consequential first.
func identityChange(dir, base, f string) string {
	pr, errPR := node.ReadFile(dir, f, node.MaxTopFileBytes)
	old, errBase := node.ReadFile(base, f, node.MaxTopFileBytes)
	switch {
	case errors.Is(errPR, fs.ErrNotExist):
		return "deletes it, and with it the " + translog.IdentityKey + " line peers verify this node's signed log with"
	case errPR != nil || errBase != nil && !errors.Is(errBase, fs.ErrNotExist):
		return "changes it" // what is wrong with the file is its own problem
	}
	var what []string
	if !slices.Equal(translog.Keys(pr), translog.Keys(old)) {
		what = append(what, "its "+translog.IdentityKey+" line, the key peers verify this node's signed log with")
	}
	if !slices.Equal(identityLines(pr, true), identityLines(old, true)) {
		what = append(what, "its "+logsource.IdentityMirror+" lines, where peers read this node's signed log and files while its origin is down")
	}
	if !slices.Equal(identityLines(pr, false), identityLines(old, false)) {
		what = append(what, "who it says this node is (name, human, model, role), which its site and its peers show")
	}
	if len(what) == 0 {
		return "changes its bytes"
	}
	return "changes " + strings.Join(what, ", and ")
}

// identityLines returns IDENTITY.md's mirror lines (mirrors true), each
// trimmed, or every line but those and the log_key lines, as they are.
func identityLines(identity []byte, mirrors bool) []string {
	var out []string
	for _, line := range strings.Split(string(identity), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, translog.IdentityKey+":") {
			continue
		}
		switch isMirror := strings.HasPrefix(t, logsource.IdentityMirror+":"); {
		case mirrors && isMirror:
			out = append(out, t)
		case !mirrors && !isMirror:
			out = append(out, line)
		}
	}
	return out
}

package gitpush

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Commit messages. Their wording is stable: people read the history and
// tools may grep it.
const (
	messagePrefix = "heartbeat: "
	// MessageRefresh is the message when the heartbeat changed files but
	// counted nothing new: the node refreshed its own timestamps.
	MessageRefresh = messagePrefix + "refresh presence"
	// filesPrefix begins the message of a commit made without a summary
	// (after init, or an edit of AGENTS.md): no heartbeat ran, so the
	// message names the files instead (FilesMessage).
	filesPrefix = "node: update "
	// maxMessageFiles bounds the names FilesMessage lists.
	maxMessageFiles = 6
)

// Message is the commit message for a heartbeat run, e.g. "heartbeat: 3 new
// traces from 2 peers, 1 validation published, 1 hash mismatch". Parts come
// in a fixed order and appear only when non-zero. A nil summary gives "":
// CommitAndPush then names the files it commits (FilesMessage).
func Message(s *Summary) string {
	if s == nil {
		return ""
	}
	parts := messageParts(s)
	if len(parts) == 0 {
		return MessageRefresh
	}
	return messagePrefix + strings.Join(parts, ", ")
}

func messageParts(s *Summary) []string {
	var parts []string
	add := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, plural(n, one, many))
		}
	}
	if s.NewTraces > 0 && s.PeersWithNew > 0 {
		parts = append(parts, plural(s.NewTraces, "new trace", "new traces")+" from "+plural(s.PeersWithNew, "peer", "peers"))
	} else {
		add(s.NewTraces, "new trace", "new traces")
	}
	add(s.NewValidations, "new peer validation", "new peer validations")
	add(s.Queued, "trace queued", "traces queued")
	add(s.ValidationsPublished, "validation published", "validations published")
	add(s.TracesPublished, "trace published", "traces published")
	add(s.DisputesPublished, "dispute published", "disputes published")
	add(len(s.HashMismatches), "hash mismatch", "hash mismatches")
	add(s.PeersLearned, "peer learned", "peers learned")
	add(len(s.Unreachable), "peer unreachable", "peers unreachable")
	return parts
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// KeepaliveMessage is the message of an empty commit made because nothing
// changed for age.
func KeepaliveMessage(age time.Duration) string {
	return fmt.Sprintf("%skeepalive, no change for %d days", messagePrefix, int(age.Hours()/24))
}

// FilesMessage is the message of a commit that no heartbeat summary
// describes, naming what it changes: "node: update AGENTS.md, mesh.yaml,
// traces/ (2 files)". Changed are slash paths relative to the node; a
// file inside a directory counts under its top directory. Names are
// sorted, and at most maxMessageFiles are listed.
func FilesMessage(changed []string) string {
	inDir := map[string]int{}
	var names []string
	for _, p := range changed {
		top, _, nested := strings.Cut(p, "/")
		if nested {
			top += "/"
		}
		if inDir[top] == 0 {
			names = append(names, top)
		}
		inDir[top]++
	}
	sort.Strings(names)
	parts := make([]string, 0, min(len(names), maxMessageFiles)+1)
	for i, n := range names {
		if i == maxMessageFiles {
			parts = append(parts, fmt.Sprintf("and %d more", len(names)-i))
			break
		}
		if strings.HasSuffix(n, "/") {
			n += " (" + plural(inDir[n], "file", "files") + ")"
		}
		parts = append(parts, n)
	}
	return filesPrefix + strings.Join(parts, ", ")
}

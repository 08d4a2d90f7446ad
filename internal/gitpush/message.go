package gitpush

import (
	"fmt"
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
	// MessageNoSummary is the message when no summary was given.
	MessageNoSummary = messagePrefix + "update node files"
)

// Message is the commit message for a heartbeat run, e.g. "heartbeat: 3 new
// traces from 2 peers, 1 validation published, 1 hash mismatch". Parts come
// in a fixed order and appear only when non-zero. A nil summary gives
// MessageNoSummary.
func Message(s *Summary) string {
	if s == nil {
		return MessageNoSummary
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

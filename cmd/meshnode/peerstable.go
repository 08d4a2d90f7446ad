package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/peertext"
	"github.com/meshnode/meshnode/internal/presence"
	"github.com/meshnode/meshnode/internal/state"
)

func printPeers(w io.Writer, rows []peerRow, now time.Time) error {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no known agents: list peers in AGENTS.md")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tPRESENCE\tEVIDENCE\tSEQ\tGAPS\tFAILS\tBACKOFF\tPOLLED\tNEXT\tTRACES\tVALIDATIONS\tURL")
	for _, r := range rows {
		backoff := r.Backoff
		if backoff == "" {
			backoff = "-"
		}
		pres := r.Presence
		if now.Sub(r.PresenceAsOf) >= presence.Heartbeat {
			// A quiet peer is judged at its last poll; "as of just now"
			// would say nothing and read as a verdict on the host.
			pres += " as of " + ageText(&r.PresenceAsOf, now)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\n", r.Agent, pres, r.PresenceNote, r.LastSeenSeq,
			gapsText(r.Gaps), r.FailureCount, backoff, ageText(r.LastPolled, now), nextText(r.NextPoll, now), r.Traces, r.Validations, r.URL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.RulesNote != "" {
			fmt.Fprintf(w, "rules: %s\n", r.RulesNote)
		}
		if r.Log != logpin.StateManifest && !strings.HasPrefix(r.Log, logpin.StateVerified) {
			// An alarm quotes what the peer served (a key's name may hold
			// any character but white space and '+').
			fmt.Fprintf(w, "log: %s: %s\n", r.Agent, peertext.Clean(r.Log))
		}
	}
	return nil
}

// nextText writes when the next poll is due: "-" for the next heartbeat.
func nextText(t *time.Time, now time.Time) string {
	if t == nil || !t.After(now) {
		return "-"
	}
	d := t.Sub(now)
	switch {
	case d < time.Hour:
		return fmt.Sprintf("in %dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("in %dh", int(d/time.Hour))
	}
	return fmt.Sprintf("in %dd", int(d/(24*time.Hour)))
}

// gapsText writes up to three gap ranges, then how many more.
func gapsText(gaps []state.Range) string {
	if len(gaps) == 0 {
		return "-"
	}
	var parts []string
	for i, g := range gaps {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("+%d more", len(gaps)-3))
			break
		}
		if g.From == g.To {
			parts = append(parts, fmt.Sprint(g.From))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", g.From, g.To))
		}
	}
	return strings.Join(parts, ",")
}

// ageText writes how long before now t was, in the largest sensible unit.
func ageText(t *time.Time, now time.Time) string {
	if t == nil {
		return "never"
	}
	d := now.Sub(*t)
	switch {
	case d < 0:
		return "in the future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// GitHub disables the scheduled workflows of a public repository after 60
// days without activity in it; a disabled heartbeat stops the node
// silently. Doctor warns a fortnight ahead.
const (
	InactivityLimit = 60 * 24 * time.Hour
	InactivityWarn  = 45 * 24 * time.Hour
)

const fixInactive = "push a commit (git commit --allow-empty -m keepalive && git push) and re-enable the schedule: gh workflow enable " + HeartbeatWorkflow

// checkActivity applies the 60-day rule to the date of the last commit.
// The heartbeat commits whenever something changes, and its commit step
// makes an empty keepalive commit after 30 quiet days (heartbeat.yml), so
// a repository quiet for longer means the heartbeat stopped.
func checkActivity(ctx context.Context, o DoctorOptions) Finding {
	f := Finding{Check: "activity"}
	last, err := o.LastCommit(ctx, o.Dir)
	if err != nil {
		f.Status, f.Message = StatusWarn, "cannot read the last commit: "+err.Error()
		f.Fix = "run doctor in the node's git repository so it can check GitHub's 60-day rule for scheduled workflows"
		return f
	}
	age := o.Now.Sub(last)
	days := int(age / (24 * time.Hour))
	f.Message = fmt.Sprintf("last commit %s, %d day(s) ago%s", last.UTC().Format(time.DateOnly), days, keepaliveNote(o.Dir))
	switch {
	case age > InactivityLimit:
		f.Status, f.Fix = StatusFail, fixInactive
		f.Message += ": GitHub has likely disabled the scheduled heartbeat (60 days without activity)"
	case age > InactivityWarn:
		f.Status, f.Fix = StatusWarn, fixInactive
		f.Message += fmt.Sprintf(": GitHub disables scheduled workflows after 60 days without activity, in %d day(s)", int((InactivityLimit-age)/(24*time.Hour)))
	default:
		f.Status = StatusOK
	}
	return f
}

// keepaliveNote says whether the heartbeat workflow carries a keepalive
// step, which keeps the schedule enabled even when nothing changes.
func keepaliveNote(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(WorkflowDir), HeartbeatWorkflow))
	if err != nil {
		return ""
	}
	if strings.Contains(strings.ToLower(string(data)), "keepalive") {
		return " (the heartbeat workflow has a keepalive)"
	}
	return " (the heartbeat workflow has no keepalive step)"
}

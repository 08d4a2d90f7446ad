// Package pullrequest keeps one pull request open on the node's repository
// that adds draft validation files for a person to edit and merge: the
// manual scorer's way of asking for scores. NewDraft renders one waiting
// trace's heuristic suggestion as such a file. It also holds the gate's
// calls to GitHub: EnsureCheck starts the check workflow for a pull
// request GitHub would start none for (one opened with a job's token),
// ReportStatus sets the gate's commit status, the check a repository
// makes required (docs/github.md, "check.yml"), and ReadProtection reads
// whether a branch requires it and still lets the heartbeat push
// (docs/github.md, "Protecting main").
//
// It talks to GitHub only through the REST API (go-github): the git data
// API to build a commit on the draft branch, the pulls API to open or
// update the one pull request, and the statuses, workflow dispatch and
// branch rules APIs for the gate; it only reads the branch rules. It never touches a local checkout, never
// overwrites a file a person edited on the branch, never re-drafts a file
// already on the base branch, and never merges.
package pullrequest

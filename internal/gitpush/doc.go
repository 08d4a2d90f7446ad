// Package gitpush commits a node's data files and pushes them, the last
// step of a heartbeat run in a GitHub workflow.
//
// It reads the heartbeat summary (the JSON contract of
// `meshnode heartbeat --summary`), turns it into a commit message that says
// what changed, stages only the node's data paths, commits only when they
// changed, and pushes with a bounded pull-rebase-and-retry when another
// run pushed first. A rebase conflict is aborted so the working tree is
// left clean.
//
// Before each push a caller's Gate may check the change and refuse it; the
// commit is first pushed to a Stage branch of the caller's so the remote
// knows it (a protected branch takes only a commit that already has its
// required status).
//
// It runs git through os/exec and nothing else: it never talks to the
// GitHub API, never force-pushes a branch other than its Stage and never
// touches files outside the paths it is given.
package gitpush

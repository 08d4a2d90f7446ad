// Package pullrequest keeps one pull request open on the node's repository
// that adds draft validation files for a person to edit and merge: the
// manual scorer's way of asking for scores. NewDraft renders one waiting
// trace's heuristic suggestion as such a file.
//
// It talks to GitHub only through the REST API (go-github): the git data
// API to build a commit on the draft branch, and the pulls API to open or
// update the one pull request. It never touches a local checkout, never
// overwrites a file a person edited on the branch, never re-drafts a file
// already on the base branch, and never merges.
package pullrequest

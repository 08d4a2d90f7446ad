// Package gittree says, through git, what a node's directory holds at a
// few paths: the IDs of the trees and blobs git records for them (content
// hashes: a tree's ID changes with any byte below it). Where git's own
// check finds the work tree clean at those paths they are HEAD's, read
// without reading the files; elsewhere they are what a commit of the work
// tree would record, staged into a copy of git's index so that git hashes
// only the files its stat data cannot vouch for. It is how a heartbeat
// knows its history is the one its derived state was computed from,
// before or after the workflow commits it (docs/decisions.md, "A quiet
// heartbeat"). It runs git and never changes git's index or refs (what it
// hashes goes into git's object store, as `git add` would put it, where
// the commit that follows finds it); a directory that is not a checkout,
// or a machine without git, is an error the caller answers by reading the
// files.
package gittree

// Package gittree says, through git, what a node's directory holds at a
// few paths without reading their files: the IDs of the trees and blobs
// HEAD records for them (content hashes: a tree's ID changes with any
// byte below it), once git's own check finds the work tree clean at those
// paths. It is how a heartbeat knows its history is the one its derived
// state was computed from (docs/decisions.md, "A quiet heartbeat"). It
// runs git and reads nothing else; a directory that is not a checkout, or
// a machine without git, is an error the caller answers by reading the
// files.
package gittree

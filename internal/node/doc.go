// Package node owns a node's directory: the names of its files (the
// top-level files, the published directories, MANIFEST.md's archive
// pages, the state under mesh-state/; no other package spells one), the
// rule for which files are the node's and what name a published file may
// have, how large it may be, how to read one without following a
// symbolic link, the lock, and the Snapshot: one read of everything a
// command needs (Open), which the stages of a command pass along and
// write through, so that one heartbeat reads each file once. publish
// (MANIFEST.md), site (the static site) and check (a pull request) all ask
// it, so they cannot disagree about what the node publishes
// (docs/publishing.md, "File names").
package node

// Package layout owns the names of a node's published files: which
// top-level files and directories a node publishes, what name a file in
// traces/, validations/ or disputes/ may have, how large it may be, and how
// to read one without following a symbolic link. publish (MANIFEST.md),
// site (the static site) and check (a pull request) all ask it, so they
// cannot disagree about what the node publishes (docs/publishing.md,
// "File names").
//
// It imports nothing of ours and never writes.
package layout

// Package publish turns the node's own files into published ones: it gives
// each new file under traces/, validations/ and disputes/ the next sequence
// number, hashes its exact bytes and regenerates MANIFEST.md, the only
// registry of what was published, moving its oldest rows into immutable
// archive pages once it holds too many (archive.go). It also scaffolds
// new traces.
//
// It must never change a published file, never renumber one, and never
// re-hash one silently: a published file whose bytes changed or that was
// deleted stops publication with an *ImmutableError, and so does an archive
// page that is missing or altered. It touches no network and writes
// MANIFEST.md (atomically, and only when its bytes change) and new archive
// pages only.
package publish

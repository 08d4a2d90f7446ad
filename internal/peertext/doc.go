// Package peertext holds the one rule for text a peer supplies that a
// node keeps or shows as a value: a MANIFEST.md cell, a trace's title or
// type, an agent's name. Control characters, bidirectional overrides and
// invalid UTF-8 in such a value are replaced, so that every node reads the
// same value from the same bytes (docs/decisions.md, "Control characters
// in peers' metadata"), a database that refuses NUL stores it, and a
// terminal that prints it obeys none of it.
//
// It is a leaf: it imports nothing of this module, so the format packages
// (manifest, trace) apply it where they parse, and commands where they
// print. It does no I/O.
package peertext

// Package logsource reads a peer's entries from its signed log
// (docs/protocol.md §3.4, §6.9): a source.Source that pins the peer's
// log key on first contact, asks for log/checkpoint only (conditionally)
// at each poll, and when the tree grew fetches only the new entry bundles
// (deriving the hash tiles above them from those its pin kept, fetching
// them at first contact), verifies the checkpoint's signature with
// the pinned key, the tiles against its root (tlog.TileHashReader) and
// the consistency proof against the last checkpoint it accepted, then
// hands the new entries to the poll as a Listing. A log that grew by more
// than one poll reads (Source.MaxEntries, MaxBytes) is read in chunks over
// the next polls, each verified against the checkpoint accepted, its pin
// saying how far it got. Peers that publish no log are read by the source
// it wraps (MANIFEST.md) exactly as before, their IDENTITY.md looked at for
// a log key at most once a day; a peer once read through a log is never
// read from MANIFEST.md alone.
//
// Given the checkpoints relays listed (Source.Relayed, protocol.md
// §6.10), a poll reads a pinned peer's news under a relayed checkpoint
// that its pinned key verifies and that extends the tree accepted,
// verified as the peer's own, without asking the peer for its checkpoint;
// it asks again at least once every Source.DirectPoll, and whatever fails
// under a relayed checkpoint is judged on the peer's own instead.
//
// A key change is followed only as protocol.md §3.4 says: a rotation
// statement among the new entries that the pinned key signed moves the
// pin, and is kept in it (logpin.Rotation); a restart waits for the operator.
//
// What contradicts a signed history (a fork, a bad signature, a key
// change without rotation, a restart, an entry or a tile that does not hash to the signed root, a log
// that vanished) is a logpin.Alarm, kept with its evidence in the peer's pin
// (mesh-state/log-pins/), and the peer's new entries are refused until
// an operator re-pins it (logpin.Pins.Repin, `meshnode peers repin`).
//
// The cryptography is golang.org/x/mod/sumdb (note, tlog) through
// internal/translog's formats. It makes requests only through the
// fetch.Client it is given, and writes nothing but its pins (internal/logpin,
// which the site reads too).
package logsource

// Package logtiles reads a signed log's published tiles (docs/protocol.md
// §3.4: C2SP tlog-tiles of height 8, entry bundles beside the hash tiles)
// for one read, as a tlog.TileReader: the entries of a tree, every leaf
// verified against its signed root (tlog.TileHashReader), and the
// consistency proof from a tree read before. A level-0 hash tile is the
// leaf hashes of its entry bundle, fetched once and kept for its entries;
// a tile of level 1 and up is derived from one kept of the tree read
// before, or fetched. A read may stop at a byte budget, after the bundle
// that reaches it. The log of a peer (internal/logsource) and the log of a
// relay (internal/relay) are read through it, each with its own bounds,
// and a failed read of either is sorted here alone (Reader.Judge): a
// failure to fetch, a fork, an altered bundle or an altered hash tile.
//
// It fetches nothing itself: its caller gives it a function that fetches
// a file of the log by path, with the caller's client, timeouts and
// guards. It trusts nothing it returns until tlog verified it, and it
// keeps no state across reads.
package logtiles

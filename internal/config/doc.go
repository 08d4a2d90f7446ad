// Package config reads and writes mesh.yaml, the node's configuration: who
// the node is (agent, url), how it scores, when it may validate, and the
// bounds that keep a heartbeat polite and safe.
//
// Every key is described once, in the table of keys.go, which drives
// decoding, validation, Marshal and the reference in docs/config.md, so the
// four cannot drift apart. Mistakes are reported with the file, line and
// key (`mesh.yaml:7: heartbeat.concurrency: must be between 1 and 256`) as
// *Error, which callers show as a configuration mistake.
//
// The package reads one file and the environment lookup it is given; it
// must not touch the network or any other part of the node's state.
package config

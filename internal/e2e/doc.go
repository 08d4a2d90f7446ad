// Package e2e holds only cross-package tests: whole nodes, each a temporary
// directory served on loopback by httptest, run through real heartbeats, so
// that validation and publishing are proven end to end (issue 3).
//
// It must hold no code that other packages import, and its tests must reach
// nothing but 127.0.0.1: no sleeps, no wall-clock timing, every heartbeat on
// an injected clock.
package e2e

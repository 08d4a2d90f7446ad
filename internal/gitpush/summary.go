package gitpush

import (
	"encoding/json"
	"fmt"
	"os"
)

// Summary is the part of a heartbeat summary (docs/contracts.md, written by
// `meshnode heartbeat --summary FILE`) that the commit step reads. Fields
// it does not know are ignored, so the heartbeat may add more.
type Summary struct {
	PeersPolled          int        `json:"peers_polled"`
	PeersSkipped         int        `json:"peers_skipped"`
	PeersFailed          int        `json:"peers_failed"`
	PeersLearned         int        `json:"peers_learned"`
	PeersWithNew         int        `json:"peers_with_new"`
	NewTraces            int        `json:"new_traces"`
	NewValidations       int        `json:"new_validations"`
	Verified             int        `json:"verified"`
	Rejected             int        `json:"rejected"`
	Duplicates           int        `json:"duplicates"`
	Queued               int        `json:"queued"`
	ValidationsPublished int        `json:"validations_published"`
	TracesPublished      int        `json:"traces_published"`
	DisputesPublished    int        `json:"disputes_published"`
	HashMismatches       []Mismatch `json:"hash_mismatches"`
	Failures             []Failure  `json:"failures"`
	Unreachable          []string   `json:"unreachable"`
	Changed              bool       `json:"changed"`
}

// Mismatch is a peer's file whose bytes did not match its MANIFEST hash.
type Mismatch struct {
	Peer    string `json:"peer"`
	URL     string `json:"url"`
	Seq     int    `json:"seq"`
	Claimed string `json:"claimed"`
	Served  string `json:"served"`
}

// Failure is a failed poll of one peer.
type Failure struct {
	Peer  string `json:"peer"`
	URL   string `json:"url"`
	Error string `json:"error"`
}

// ParseSummary decodes a heartbeat summary.
func ParseSummary(data []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("parse heartbeat summary: %w", err)
	}
	return &s, nil
}

// ReadSummary reads and decodes the heartbeat summary at path.
func ReadSummary(path string) (*Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read heartbeat summary: %w", err)
	}
	s, err := ParseSummary(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

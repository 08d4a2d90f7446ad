package signal

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"time"

	"github.com/meshnode/meshnode/internal/ledger"
)

// The key a past epoch's pool is cached under (docs/decisions.md,
// Assignment: "The pool cache"). An epoch's pool is the standing closure
// over the files dated before the epoch began (Input.before), so its key
// digests exactly those files, as a chain over the epochs with traces
// (and, under a late reserve, their late epochs: assigner.keyed):
//
//	key(e₀) = sha256(base ‖ e₀ ‖ digests of the files dated before e₀)
//	key(eᵢ) = sha256(key(eᵢ₋₁) ‖ eᵢ ‖ digests of the files dated in [eᵢ₋₁, eᵢ))
//
// with each group's file digests sorted, and base naming the cache's
// version, the rule set and the founders. A file added, changed or removed
// with a date in [eᵢ₋₁, eᵢ) changes key(eᵢ) and every later key, and no
// earlier one: a backdated file invalidates exactly the pools after its
// date.

// poolKey is the key of one epoch's pool.
type poolKey [sha256.Size]byte

// poolsVersion names the computation a cached pool is the result of; it
// is hashed into every key and written in the cache file, so that a
// meshnode whose pool computation differs never reads another's pools.
// Bump it with any change to what a pool is.
const poolsVersion = 1

// poolKeys computes the key of each of epochs (ascending, distinct) over
// in's files.
func poolKeys(in Input, epochs []int64) map[int64]poolKey {
	groups := make([][]poolKey, len(epochs))
	add := func(day int64, d poolKey) {
		// The file is in the pool of every epoch after its day: its group
		// is the first such epoch's.
		if i, _ := slices.BinarySearch(epochs, day+1); i < len(epochs) {
			groups[i] = append(groups[i], d)
		}
	}
	for _, t := range in.Traces {
		add(EpochOf(t.Submitted), traceDigest('t', t))
	}
	for _, t := range in.Copies {
		add(EpochOf(t.Submitted), traceDigest('c', t))
	}
	for _, v := range in.Validations {
		add(dayOf(v.ValidatedAt), validationDigest(v))
	}
	for _, d := range in.Disputes {
		add(dayOf(d.ObservedAt), disputeDigest(d))
	}
	out := make(map[int64]poolKey, len(epochs))
	prev := baseKey(in)
	for i, e := range epochs {
		slices.SortFunc(groups[i], func(x, y poolKey) int { return bytes.Compare(x[:], y[:]) })
		h := sha256.New()
		h.Write(prev[:])
		h.Write(binary.AppendVarint(nil, e))
		for _, d := range groups[i] {
			h.Write(d[:])
		}
		copy(prev[:], h.Sum(nil))
		out[e] = prev
	}
	return out
}

// dayOf is the number of the UTC day t falls in, negative before 1970: a
// file stating t is dated before epoch e's start exactly when dayOf(t) < e.
func dayOf(t time.Time) int64 {
	s := t.Unix()
	d := s / epochSeconds
	if s%epochSeconds < 0 {
		d--
	}
	return d
}

// baseKey digests what every pool depends on besides the files: the
// cache's version, the rule set and the founders.
func baseKey(in Input) poolKey {
	var e recordEncoder
	e.int(poolsVersion)
	e.str(in.Rules)
	e.int(int64(len(in.Founders)))
	for _, f := range in.Founders {
		e.str(f.Name)
		e.str(f.URL)
	}
	return sha256.Sum256(e.b)
}

// traceDigest digests every field of a trace record that SIGNAL reads.
// It leaves out what a node learns of a trace after its date and SIGNAL
// never reads (when it was first seen, the peer's status column, title,
// citations, fingerprint, whether it was taken down), so that a trace
// being judged does not invalidate the pools after it
// (TestPoolKeyCoversEveryFieldSignalReads).
func traceDigest(kind byte, t *ledger.Trace) poolKey {
	var e recordEncoder
	e.b = append(e.b, kind)
	e.str(t.Agent)
	e.str(t.AgentURL)
	e.int(int64(t.Seq))
	e.str(string(t.Hash))
	e.str(t.File)
	e.str(t.URL)
	e.str(t.Type)
	e.str(t.Category)
	e.time(t.Submitted)
	e.bool(t.Verified)
	e.int(int64(len(t.Verdicts)))
	for _, v := range t.Verdicts {
		e.str(v.Agent)
		e.int(int64(v.Seq))
		e.str(v.Result)
	}
	return sha256.Sum256(e.b)
}

// validationDigest digests every field of a validation record.
func validationDigest(v *ledger.Validation) poolKey {
	var e recordEncoder
	e.b = append(e.b, 'v')
	e.str(v.Validator)
	e.str(v.ValidatorURL)
	e.str(v.TraceURL)
	e.str(string(v.TraceHash))
	e.str(v.Result)
	e.int(int64(v.Total))
	e.int(int64(len(v.Scores)))
	for _, s := range v.Scores {
		e.int(int64(s))
	}
	e.bool(v.HasScores)
	e.time(v.ValidatedAt)
	e.str(v.SourceURL)
	e.str(string(v.SourceHash))
	return sha256.Sum256(e.b)
}

// disputeDigest digests every field of a dispute record.
func disputeDigest(d ledger.Dispute) poolKey {
	var e recordEncoder
	e.b = append(e.b, 'd')
	e.str(d.Reporter)
	e.str(d.ReporterURL)
	e.str(d.Agent)
	e.str(d.AgentURL)
	e.str(d.FileURL)
	e.int(int64(d.Seq))
	e.str(string(d.ClaimedHash))
	e.str(string(d.ServedHash))
	e.time(d.ObservedAt)
	e.str(d.SourceURL)
	e.str(string(d.SourceHash))
	return sha256.Sum256(e.b)
}

// recordEncoder writes fields unambiguously: strings length-prefixed,
// numbers as varints.
type recordEncoder struct{ b []byte }

func (e *recordEncoder) str(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *recordEncoder) int(i int64) { e.b = binary.AppendVarint(e.b, i) }

func (e *recordEncoder) time(t time.Time) {
	e.int(t.Unix())
	e.int(int64(t.Nanosecond()))
}

func (e *recordEncoder) bool(b bool) {
	if b {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

package signal

import (
	"strings"
)

// Tiers of SIGNAL spec v0.2.
const (
	TierProvisional = "Provisional"
	TierEstablished = "Established"
	TierTrusted     = "Trusted"
)

const (
	// EstablishedAt is the SIGNAL where Provisional ends (v0.2: 0–49
	// Provisional, 50–199 Established).
	EstablishedAt = 50
	// TrustedAt is the SIGNAL where Trusted begins (v0.2: 200+).
	TrustedAt = 200
	// ValidationPoints is what each validation authored earns (v0.2: 1).
	ValidationPoints = 1.0
	// FounderPoints is the SIGNAL a founder starts with (v0.2 lets
	// founding agents start at a given SIGNAL): exactly what standing
	// needs, so a founder is Established from the start.
	FounderPoints = float64(EstablishedAt)
)

// earnings is the v0.2 earning table for a validated trace, by type and
// category.
var earnings = map[string]float64{
	"capability rock": 10, "capability pebble": 5,
	"knowledge rock": 6, "knowledge pebble": 2,
	"signal rock": 4, "signal pebble": 1,
	"task sand": 0.5,
}

// categoryFloor is what a validated trace earns when its type and
// category are not in the v0.2 table: the lowest the table gives that
// category, so an unlisted type never out-earns a listed one. Boulder is
// read as rock; no category or an unknown one earns as sand.
var categoryFloor = map[string]float64{"rock": 4, "pebble": 1, "sand": 0.5}

// sandFloor is what a validated trace of unknown category earns.
const sandFloor = 0.5

// earningFor returns the reason line and points of one validated trace.
func earningFor(typ, category string) (string, float64) {
	typ, category = strings.ToLower(strings.TrimSpace(typ)), strings.ToLower(strings.TrimSpace(category))
	if category == "boulder" {
		category = "rock"
	}
	if typ == "" {
		typ = "untyped"
	}
	if p, ok := earnings[typ+" "+category]; ok {
		return typ + " " + category + " validated", p
	}
	if p, ok := categoryFloor[category]; ok {
		return "other " + category + " validated", p
	}
	return "other uncategorized validated", sandFloor
}

// TierOf returns the tier of a SIGNAL. An agent's tier in a Report also
// depends on its standing (see tierOf).
func TierOf(signal float64) string {
	switch {
	case signal >= TrustedAt:
		return TierTrusted
	case signal >= EstablishedAt:
		return TierEstablished
	default:
		return TierProvisional
	}
}

// tierOf is an agent's tier: Provisional exactly when it has no standing
// (v0.2: Provisional cannot validate). An agent admitted at 50 whose
// SIGNAL later-admitted validators' votes lowered keeps its standing, and
// so stays Established (docs/decisions.md, Standing).
func tierOf(signal float64, standing bool) string {
	switch {
	case !standing:
		return TierProvisional
	case signal >= TrustedAt:
		return TierTrusted
	default:
		return TierEstablished
	}
}

package dispute

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/meshnode/meshnode/internal/manifest"
)

// maxLines bounds how much of a file is read; a dispute is a dozen lines.
const maxLines = 200

var keyLine = regexp.MustCompile(`^([a-z_]{1,40}):(?:\s+(.*))?$`)

// Parse reads a dispute file. It fails when the bytes are not UTF-8 text,
// have neither the "# MANIFEST-DISPUTE" title nor both hash keys, or carry
// a seq or observed_at that cannot be read.
func Parse(data []byte) (*Dispute, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("dispute: not utf-8 text")
	}
	keys, titled := scan(strings.TrimPrefix(string(data), "\ufeff"))
	_, claimed := keys["claimed_hash"]
	_, served := keys["served_hash"]
	if !titled && !(claimed && served) {
		return nil, errors.New("dispute: not a dispute: no " + Title + " title and no claimed_hash and served_hash lines")
	}
	d := &Dispute{
		Reporter: keys["reporter"], ReporterURL: keys["reporter_url"],
		Agent: keys["agent"], AgentURL: keys["agent_url"], FileURL: keys["file_url"],
		ClaimedHash: manifest.HashAsWritten(keys["claimed_hash"]), ServedHash: manifest.HashAsWritten(keys["served_hash"]),
		Notes: keys["notes"],
	}
	if s := keys["seq"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("dispute: seq %q is not an integer", clip(s))
		}
		d.Seq = manifest.Seq(n)
	}
	if s := keys["observed_at"]; s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || t.UTC().Year() > 9999 || t.UTC().Year() < 1 {
			return nil, fmt.Errorf("dispute: observed_at %q is not an RFC 3339 time", clip(s))
		}
		d.ObservedAt = t.UTC()
	}
	return d, nil
}

// scan collects "key: value" lines (the first of each key wins) and
// whether the title is there.
func scan(s string) (map[string]string, bool) {
	keys := map[string]string{}
	titled := false
	for i, raw := range strings.Split(s, "\n") {
		if i >= maxLines {
			break
		}
		l := strings.TrimSpace(strings.ReplaceAll(raw, "\r", " "))
		if strings.EqualFold(l, Title) {
			titled = true
			continue
		}
		m := keyLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if _, seen := keys[m[1]]; !seen {
			keys[m[1]] = oneLine(m[2])
		}
	}
	return keys, titled
}

func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// Check returns what makes d unusable as evidence, or nothing: malformed
// or equal hashes, no file URL, no agent, a seq below 1.
func (d *Dispute) Check() []string {
	var problems []string
	for _, h := range []struct {
		key  string
		hash manifest.Hash
	}{{"claimed_hash", d.ClaimedHash}, {"served_hash", d.ServedHash}} {
		if !h.hash.Valid() {
			problems = append(problems, fmt.Sprintf("%s %q is not sha256:<64 lowercase hex>", h.key, clip(string(h.hash))))
		}
	}
	if d.ClaimedHash == d.ServedHash {
		problems = append(problems, "claimed_hash and served_hash are equal: nothing is disputed")
	}
	if d.FileURL == "" {
		problems = append(problems, "file_url is missing")
	}
	if d.Agent == "" && d.AgentURL == "" {
		problems = append(problems, "agent and agent_url are missing")
	}
	if d.Seq < 1 {
		problems = append(problems, fmt.Sprintf("seq %d is below 1", d.Seq))
	}
	return problems
}

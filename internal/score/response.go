package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/validation"
)

// NewCommandRequest builds what a scoring command reads for in.
func NewCommandRequest(in Input) CommandRequest {
	r := CommandRequest{
		Hash: in.Record.Hash, URL: in.Record.URL, Agent: in.Record.Agent, AgentURL: in.Record.AgentURL,
		Seq: in.Record.Seq, Type: in.Record.Type, Raw: string(in.Raw),
		Now: in.Now.UTC().Format(time.RFC3339), Body: string(stripFrontMatter(in.Raw)),
		Fields: map[string]string{}, Cites: []string{}, BuildsOn: []string{}, Sections: []string{},
		Dimensions: validation.Dimensions[:],
	}
	if !in.Record.Submitted.IsZero() {
		r.Submitted = in.Record.Submitted.UTC().Format(time.RFC3339)
	}
	if t := in.Trace; t != nil {
		r.Title, r.Date, r.Category = t.Title, t.Date, t.Category
		if len(t.Body) > 0 {
			r.Body = string(t.Body)
		}
		if r.Type == "" {
			r.Type = t.Type
		}
		for k, v := range t.Fields {
			r.Fields[k] = v
		}
		for _, c := range t.Cites {
			r.Cites = append(r.Cites, fmt.Sprintf("%s/%d", c.Agent, c.Seq))
		}
		r.BuildsOn = append(r.BuildsOn, t.BuildsOn...)
		r.Sections = append(r.Sections, t.Sections...)
	}
	r.Words = BodyWords([]byte(r.Body))
	return r
}

// ParseCommandResponse reads a scoring command's stdout strictly: one
// JSON object, every dimension an integer 0–5, no unknown dimension, no
// trailing data. Anything else is an error that names the problem.
func ParseCommandResponse(out []byte) (*Result, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var resp CommandResponse
	if err := dec.Decode(&resp); err != nil {
		return nil, fmt.Errorf("scoring command output is not the expected JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("scoring command output has data after the JSON object")
	}
	r := &Result{Notes: validation.CleanNotes(resp.Notes)}
	if err := fillScores(r, resp.Scores); err != nil {
		return nil, err
	}
	for i, d := range validation.Dimensions {
		r.Reasons[i] = resp.Reasons[d]
	}
	for d := range resp.Reasons {
		if dimIndex(d) < 0 {
			return nil, fmt.Errorf("scoring command output: reasons for unknown dimension %q", d)
		}
	}
	return r, nil
}

// integerRe is the only score syntax accepted: 4, not 4.0, "4" or 4e0.
var integerRe = regexp.MustCompile(`^-?[0-9]+$`)

func fillScores(r *Result, scores map[string]json.RawMessage) error {
	if scores == nil {
		return errors.New("scoring command output: no \"scores\" object")
	}
	unknown := []string{}
	for d := range scores {
		if dimIndex(d) < 0 {
			unknown = append(unknown, d)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("scoring command output: unknown dimension %q", unknown[0])
	}
	for i, d := range validation.Dimensions {
		n, ok := scores[d]
		if !ok {
			return fmt.Errorf("scoring command output: missing dimension %q", d)
		}
		raw := strings.TrimSpace(string(n))
		v, err := strconv.Atoi(raw)
		if !integerRe.MatchString(raw) || err != nil {
			return fmt.Errorf("scoring command output: %s = %.20s is not an integer", d, raw)
		}
		if v < 0 || v > validation.MaxScore {
			return fmt.Errorf("scoring command output: %s = %d is out of range 0–%d", d, v, validation.MaxScore)
		}
		r.Scores[i] = int(v)
	}
	return nil
}

func dimIndex(d string) int {
	for i, name := range validation.Dimensions {
		if name == d {
			return i
		}
	}
	return -1
}

package demo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/validation"
)

// verdicts prints the node's validations of the sample traces, one line
// each in agent and seq order, so a run shows that the scorer passes the
// substantive traces and fails the short notes.
func verdicts(w io.Writer, dir string, m *mesh) error {
	byURL, err := readValidations(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Our validations (heuristic scorer, pass at %d of %d):\n", validation.PassThreshold, validation.MaxTotal)
	names := make([]string, 0, len(m.agents))
	for n := range m.agents {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, f := range m.agents[n].files {
			v := byURL[m.base[n]+f.file]
			if v == nil {
				continue
			}
			ref := fmt.Sprintf("%s/%d", n, f.seq)
			fmt.Fprintf(w, "  %-6s %-4s %2d/%d  %s\n", ref, v.Result, v.Total, validation.MaxTotal, title(f.body))
		}
	}
	fmt.Fprintln(w)
	return nil
}

// readValidations reads the node's validations, keyed by the judged
// trace's URL.
func readValidations(dir string) (map[string]*validation.Validation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "validations", "*.md"))
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	out := map[string]*validation.Validation{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		v, err := validation.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("demo: %s: %w", f, err)
		}
		out[v.TraceURL] = v
	}
	return out, nil
}

func title(body []byte) string {
	t, err := trace.Parse(body)
	if err != nil {
		return ""
	}
	return t.Title
}

package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

// Caps on what a scoring command may return: a verdict is a few hundred
// bytes, so anything near these is a runaway program, not a score.
const (
	// MaxCommandOutput caps the command's stdout.
	MaxCommandOutput = 1 << 20
	// maxStderrTail is how much of stderr is kept for the failure reason.
	maxStderrTail = 2 << 10
	// killGrace is how long a timed-out command's pipes may stay open after
	// its process group was killed.
	killGrace = 2 * time.Second
)

// Command scores by running an external program (no shell): the trace and
// its context go to its stdin as a CommandRequest, and it answers on stdout
// with a CommandResponse. Any doubt about the answer fails the item.
type Command struct {
	Args    []string      // program and arguments
	Timeout time.Duration // the whole run, after which its process group is killed
}

// CommandRequest is the JSON a scoring command reads on stdin.
type CommandRequest struct {
	Hash      manifest.Hash `json:"hash"`
	URL       string        `json:"url"`
	Agent     string        `json:"agent"`
	AgentURL  string        `json:"agent_url"`
	Seq       manifest.Seq  `json:"seq"`
	Type      string        `json:"type"`
	Category  string        `json:"category"`
	Submitted string        `json:"submitted"` // RFC 3339, "" when unknown
	Title     string        `json:"title"`
	Date      string        `json:"date"` // the trace's own date field
	Body      string        `json:"body"` // markdown without front matter
	// Words counts Body's words as the heuristic does (BodyWords): prose
	// and code, not the title, headings or header fields. A thin note is
	// under ThinWords of them.
	Words      int               `json:"words"`
	Raw        string            `json:"raw"`    // the exact verified bytes
	Fields     map[string]string `json:"fields"` // every metadata field, lowercased keys
	Cites      []string          `json:"cites"`  // "agent/seq"
	BuildsOn   []string          `json:"builds_on"`
	Sections   []string          `json:"sections"`
	Now        string            `json:"now"` // RFC 3339
	Dimensions []string          `json:"dimensions"`
}

// CommandResponse is the JSON a scoring command writes on stdout. Every
// dimension must be present as an integer 0–5; reasons are optional.
type CommandResponse struct {
	Scores  map[string]json.RawMessage `json:"scores"`
	Notes   string                     `json:"notes"`
	Reasons map[string][]string        `json:"reasons,omitempty"`
}

// Name returns "command".
func (c *Command) Name() string { return KindCommand }

// Score runs the command once for in.
func (c *Command) Score(ctx context.Context, in Input) (*Result, error) {
	req, err := json.Marshal(NewCommandRequest(in))
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	out, err := c.run(ctx, req)
	if err != nil {
		return nil, err
	}
	return ParseCommandResponse(out)
}

func (c *Command) run(ctx context.Context, stdin []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
	setProcessGroup(cmd)
	cmd.WaitDelay = killGrace
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &capWriter{max: MaxCommandOutput}
	stderr := &capWriter{max: maxStderrTail, truncate: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	switch {
	case stdout.over:
		return nil, fmt.Errorf("scoring command %s: stdout exceeds %d bytes", c.Args[0], MaxCommandOutput)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("scoring command %s: timed out after %s", c.Args[0], c.Timeout)
	case err != nil:
		return nil, fmt.Errorf("scoring command %s: %w%s", c.Args[0], err, stderrTail(stderr.buf.String()))
	}
	return stdout.buf.Bytes(), nil
}

func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return " (stderr: " + strings.Join(strings.Fields(s), " ") + ")"
}

// capWriter keeps at most max bytes. Past the cap it either fails the
// write, which closes the pipe on the command, or quietly drops the rest.
type capWriter struct {
	buf      bytes.Buffer
	max      int
	over     bool
	truncate bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); len(p) > room {
		w.buf.Write(p[:max(room, 0)])
		if w.truncate {
			return len(p), nil
		}
		w.over = true
		return 0, errors.New("output cap reached")
	}
	return w.buf.Write(p)
}

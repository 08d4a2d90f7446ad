package demo

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// tour says where to look.
func tour(w io.Writer, o Options, now time.Time) {
	dir := o.Dir
	fmt.Fprintf(w, "Where the files are (%s):\n", dir)
	lines := []string{
		"MANIFEST.md                      our published files, with seqs, hashes and statuses",
		"FOUNDERS.md                      the sample mesh's founders (the node and cyd): their validations count",
		"validations/                     our validations of the peers' traces",
		"disputes/                        the hash mismatch we saw on cyd",
		"log/                             our signed log of MANIFEST.md's rows (IDENTITY.md's log_key verifies it; the demo's key is never written)",
		statefile.Dir(node.CursorsFile) + "/      cursors, gaps, failures: shards, a peer's lines in one",
		statefile.Dir(node.CursorsSeenFile) + "/ the hashes seen from each peer: shards, a peer's lines in one",
		statefile.Dir(node.LedgerFile) + "/               what we know of the peers' files: shards, a peer's lines in one",
		statefile.Dir(node.QueueFile) + "/                the validation queue: shards, a peer's lines in one",
		statefile.Dir(node.QueueSettledFile) + "/        the queue's settled items: shards, a peer's lines in one",
	}
	if o.Build != nil {
		lines = append(lines, "_site/index.html                 the static site (open the file in a browser)")
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	at := now.Format(time.RFC3339)
	command := cmp.Or(o.Command, "meshnode")
	fmt.Fprintln(w, "\nLook closer (--now keeps the demo's clock):")
	for _, c := range []string{"peers", "signal", "inbox"} {
		fmt.Fprintf(w, "  %s %s --dir %s --now %s\n", command, c, shellQuote(dir), at)
	}
	if !o.Serving && o.Build != nil {
		fmt.Fprintf(w, "  %s serve --dir %s    # the site on http://127.0.0.1:8080/ until Ctrl-C\n", command, shellQuote(dir))
	}
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters of a plain path.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

type indentWriter struct{ w io.Writer }

func (iw indentWriter) Write(p []byte) (int, error) {
	s := strings.TrimSuffix(string(p), "\n")
	if s == "" {
		_, err := io.WriteString(iw.w, "\n")
		return len(p), err
	}
	_, err := io.WriteString(iw.w, "  "+strings.ReplaceAll(s, "\n", "\n  ")+"\n")
	return len(p), err
}

func indent(w io.Writer) io.Writer { return indentWriter{w} }

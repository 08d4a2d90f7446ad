package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/trace"
	"github.com/meshnode/meshnode/internal/translog"
)

// conformanceLogKey is the signing key of a conformance agent's log whose
// origin is origin. It is derived from the origin, so -update writes the
// same bytes every time; it is public and signs nothing real: a vector
// shows how a log is read, not whose it is.
func conformanceLogKey(t *testing.T, origin string) string {
	t.Helper()
	seed := sha256.Sum256([]byte("meshnode conformance log key " + origin))
	skey, _, err := note.GenerateKey(bytes.NewReader(seed[:]), origin)
	if err != nil {
		t.Fatal(err)
	}
	return skey
}

// writeConformanceLogs writes, for -update, the signed log (docs/protocol.md
// §3.4) of every agent of a case whose public IDENTITY.md has a log_key
// line: from its public MANIFEST.md under public/, and from its later one
// under later/ when there is one, and puts the key's verifier on that line.
func writeConformanceLogs(t *testing.T, dir string) {
	t.Helper()
	agents, err := filepath.Glob(filepath.Join(dir, "public", "*", node.IdentityFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, identity := range agents {
		data, err := os.ReadFile(identity)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("\n"+translog.IdentityKey+":")) {
			continue
		}
		agent := filepath.Base(filepath.Dir(identity))
		vkey := writeConformanceLog(t, dir, "public", agent)
		if _, err := os.Stat(filepath.Join(dir, "later", agent, manifest.FileName)); err == nil {
			writeConformanceLog(t, dir, "later", agent)
		}
		setLogKey(t, identity, data, vkey)
	}
}

// writeConformanceLog writes the log of one agent's MANIFEST.md in the
// stage (public or later) and returns the verifier key it is signed with,
// named after the manifest's url (the origin, §3.4).
func writeConformanceLog(t *testing.T, dir, stage, agent string) string {
	t.Helper()
	base := filepath.Join(dir, stage, agent)
	data, err := os.ReadFile(filepath.Join(base, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := manifest.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	origin, err := translog.Origin(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	skey := conformanceLogKey(t, origin)
	rows := slices.Clone(m.Entries)
	slices.SortFunc(rows, func(a, b manifest.Entry) int { return int(a.Seq - b.Seq) })
	if upto, ok := loggedUpTo(t, dir)[agent]; ok {
		rows = slices.DeleteFunc(rows, func(r manifest.Entry) bool { return int64(r.Seq) > upto })
	}
	entries := make([]translog.Entry, len(rows))
	for i, r := range rows {
		entries[i] = translog.EntryOf(r, conformanceCategory(t, dir, agent, r.File))
	}
	files, err := translog.Update(nil, entries, skey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(base, "log")); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		p := filepath.Join(base, "log", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vkey, err := translog.VerifierKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return vkey
}

// loggedFile, in a case, names the agents whose log lags their
// MANIFEST.md (docs/protocol.md §3.4): a line "AGENT SEQ" each, the log
// holding the rows up to SEQ alone.
const loggedFile = "logged"

// loggedUpTo reads the case's loggedFile: the last seq each lagging
// agent's log holds, by agent. No file is no lagging log.
func loggedUpTo(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, loggedFile))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var agent string
		var seq int64
		if _, err := fmt.Sscanf(line, "%s %d", &agent, &seq); err != nil {
			t.Fatalf("%s: %q is not \"AGENT SEQ\": %v", loggedFile, line, err)
		}
		out[agent] = seq
	}
	return out
}

// conformanceCategory is the category a trace file of the agent declares,
// as the entry of its row records it; "" for other files. The file is
// later/'s when it has one, as it is served at the second poll.
func conformanceCategory(t *testing.T, dir, agent, file string) string {
	t.Helper()
	if !strings.HasPrefix(file, "traces/") {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(dir, "later", agent, filepath.FromSlash(file)))
	if err != nil {
		data, err = os.ReadFile(filepath.Join(dir, "public", agent, filepath.FromSlash(file)))
	}
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Category
}

// setLogKey rewrites the log_key line of the IDENTITY.md at path to vkey.
func setLogKey(t *testing.T, path string, data []byte, vkey string) {
	t.Helper()
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, translog.IdentityKey+":") {
			lines[i] = translog.IdentityKey + ": " + vkey + "\n"
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

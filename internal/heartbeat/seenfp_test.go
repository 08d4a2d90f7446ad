package heartbeat

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestAnOlderNodesSeenFilesStayUntilWhatTheyHoldChanges turns the peers'
// seen files back into the form of a node before fingerprints (whole
// hashes). A heartbeat that finds nothing new changes no file; one that
// reads a peer's seen file but adds nothing to it (a row whose file does
// not verify) leaves that file as it was; a new trace rewrites it alone,
// in the new form, and bytes seen already are not fetched again.
func TestAnOlderNodesSeenFilesStayUntilWhatTheyHoldChanges(t *testing.T) {
	mesh := newSimMesh(t, 3)
	dir := newNode(t, mesh.roster(), "")
	beat(t, dir, testNow)
	path := filepath.Join(dir, node.CursorsSeenFile)
	older := olderSeenFiles(t, mesh, path)
	p0 := statefile.PeerFileName(mesh.URL + "/p0/")

	before := nodeFiles(t, dir)
	beat(t, dir, testNow.Add(30*time.Minute))
	for name, data := range nodeFiles(t, dir) {
		if before[name] != data {
			t.Errorf("a heartbeat that found nothing new changed %s", name)
		}
	}

	p := mesh.peers[0]
	mesh.mu.Lock()
	p.add("# Promised\n\n## Work\n\nNot served.\n", testNow)
	tampered := p.m.Entries[len(p.m.Entries)-1].File
	p.files[tampered] = []byte("other bytes") // read, refused, not seen
	mesh.mu.Unlock()
	if sum := beat(t, dir, testNow.Add(time.Hour)); sum.Rejected != 1 {
		t.Fatalf("heartbeat with a lying row rejected %d files, want 1", sum.Rejected)
	}
	if got, _ := statefile.ReadOne(path, p0); !bytes.Equal(got, older[p0]) {
		t.Errorf("p0's older seen file was rewritten though it holds the same:\n%s", got)
	}

	mesh.mu.Lock()
	p.add("# Second of p0\n\n## Work\n\nMore.\n", testNow)
	p.add(string(p.files[p.m.Entries[0].File]), testNow) // the same bytes under a new seq
	mesh.mu.Unlock()
	if sum := beat(t, dir, testNow.Add(2*time.Hour)); sum.NewTraces != 1 {
		t.Fatalf("heartbeat with news: %d new traces, want 1", sum.NewTraces)
	}
	mesh.mu.Lock()
	defer mesh.mu.Unlock()
	if _, ok := p.fetched[p.m.Entries[len(p.m.Entries)-1].File]; ok {
		t.Error("bytes seen in an older seen file were fetched again")
	}
	for name, data := range older {
		got, _ := statefile.ReadOne(path, name)
		if name == p0 && (bytes.Equal(got, data) || strings.Contains(string(got), "sha256:")) {
			t.Errorf("p0's seen file after news is not in the new form:\n%s", got)
		}
		if name != p0 && !bytes.Equal(got, data) {
			t.Errorf("%s, a peer without news, lost its older seen file:\n%s", name, got)
		}
	}
}

// olderSeenFiles rewrites the seen files at path with the whole hash of
// each fingerprint, as nodes before fingerprints wrote them, and returns
// them by name.
func olderSeenFiles(t *testing.T, mesh *simMesh, path string) map[string][]byte {
	t.Helper()
	whole := map[string]string{}
	for _, p := range mesh.peers {
		for _, e := range p.m.Entries {
			whole[strings.TrimPrefix(string(e.Hash), "sha256:")[:16]] = string(e.Hash)
		}
	}
	names, err := statefile.Names(path)
	if err != nil || len(names) != len(mesh.peers) {
		t.Fatalf("seen files %v, %v; want one a peer", names, err)
	}
	older := map[string][]byte{}
	for _, name := range names {
		data, err := statefile.ReadOne(path, name)
		if err != nil {
			t.Fatal(err)
		}
		for sum, h := range whole {
			data = bytes.ReplaceAll(data, []byte(`"`+sum+`"`), []byte(`"`+h+`"`))
		}
		if !bytes.Contains(data, []byte("sha256:")) {
			t.Fatalf("%s holds no hash to turn whole:\n%s", name, data)
		}
		older[name] = data
	}
	if _, err := statefile.WriteSome(path, older, nil); err != nil {
		t.Fatal(err)
	}
	return older
}

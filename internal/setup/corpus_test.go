package setup

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/corpustest"
)

// TestDoctorVerifiesEveryRealAgentsPublishedFiles plays each real agent of
// the corpus as the node being checked: its directory served as Pages, its
// MANIFEST.md (with every real layout quirk) as the local one. Every listed
// file must be found and hash to what the manifest claims.
func TestDoctorVerifiesEveryRealAgentsPublishedFiles(t *testing.T) {
	hosted := filepath.Join(corpustest.Dir(t), "agents-hosted")
	srv := httptest.NewServer(http.FileServer(http.Dir(hosted)))
	t.Cleanup(srv.Close)
	agents, err := os.ReadDir(hosted)
	if err != nil {
		t.Fatal(err)
	}
	var peers strings.Builder
	for _, a := range agents {
		fmt.Fprintf(&peers, "%s | %s/%s/ | 2026-03-01\n", a.Name(), srv.URL, a.Name())
	}
	for _, a := range agents {
		t.Run(a.Name(), func(t *testing.T) {
			dir := t.TempDir()
			base := srv.URL + "/" + a.Name() + "/"
			mustWrite(t, filepath.Join(dir, "mesh.yaml"), "agent: "+a.Name()+"\nurl: "+base+"\nallow_private_addresses: true\n")
			mustWrite(t, filepath.Join(dir, "MANIFEST.md"), mustRead(t, filepath.Join(hosted, a.Name(), "MANIFEST.md")))
			mustWrite(t, filepath.Join(dir, "AGENTS.md"), peers.String())
			fs := Doctor(context.Background(), DoctorOptions{Dir: dir, Now: doctorNow, MaxFiles: 1000,
				LastCommit: func(context.Context, string) (time.Time, error) { return doctorNow, nil }})
			for _, check := range []string{"pages", "pages-files", "peers"} {
				if find(fs, check, StatusOK) == nil {
					t.Errorf("no ok %q finding:\n%s", check, dump(fs))
				}
			}
			if f := find(fs, "pages-files", StatusOK); f != nil {
				t.Log(f.Message)
			}
		})
	}
}

package heartbeat

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

// TestAnOlderCursorsManifestHashStillSparesParsingTheSameBytes: a peer
// that sends no validators is known unchanged by the fingerprint of its
// MANIFEST's bytes. A cursor an older node wrote holds their full hash;
// the heartbeat after the upgrade still finds the same bytes unchanged,
// and leaves the cursor's file as it was.
func TestAnOlderCursorsManifestHashStillSparesParsingTheSameBytes(t *testing.T) {
	p := newFakePeer(t)
	p.publish("/ada/", []string{"traces/001.md"}, map[string]string{"traces/001.md": "# Ada's note\n\n## Work\n\nDone.\n"})
	url := p.URL + "/ada/"
	dir := newNode(t, [][2]string{{"ada", url}}, "polling:\n  quiet_after: 0\ngossip:\n  enabled: false\n")
	beat(t, dir, testNow)

	resp, err := http.Get(url + manifest.FileName)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cursors := filepath.Join(dir, "mesh-state", "polling-cursors.json")
	key := statefile.PeerFileName(url)
	data, err := statefile.ReadOne(cursors, key)
	if err != nil {
		t.Fatal(err)
	}
	sum := regexp.MustCompile(`"manifest_sum": "[0-9a-f]{16}"`)
	if !sum.Match(data) {
		t.Fatalf("the cursor holds no 16-digit fingerprint of the MANIFEST:\n%s", data)
	}
	older := sum.ReplaceAll(data, []byte(`"manifest_sha256": "`+string(manifest.HashBytes(body))+`"`))
	if _, err := statefile.WriteSome(cursors, map[string][]byte{key: older}, nil); err != nil {
		t.Fatal(err)
	}
	shard := statefile.PeerPath(cursors, url)
	shardBytes, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow.Add(30 * time.Minute) },
		Logger: slog.New(slog.NewTextHandler(&log, nil))}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "peer=ada url="+url+" outcome=unchanged") {
		t.Errorf("the same MANIFEST bytes were not found unchanged:\n%s", grepLines(log.String(), "peer=ada"))
	}
	if got, _ := os.ReadFile(shard); !bytes.Equal(got, shardBytes) {
		t.Errorf("the older cursor's shard was rewritten:\n%s", got)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

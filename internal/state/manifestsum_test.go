package state

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/statefile"
)

const sumURL = "https://a.example/traces/"

// peerFileWith is a peer's cursor file as a node writes it, its MANIFEST
// fingerprinted by field (manifest_sha256 for an older node).
func peerFileWith(field, value string) string {
	return `{"url": "` + sumURL + `", "cursor": {"agent": "a", "last_seen_seq": 3, "etag": "\"v3\"", "` +
		field + `": "` + value + `", "last_polled": "2026-03-03T12:00:00Z"}}`
}

func TestAnOlderCursorsManifestHashReadsAsTheFingerprintOfTheSameBytes(t *testing.T) {
	body := []byte("# MANIFEST\n")
	older, newer := New(), New()
	if err := older.decodeSplit("a.json", []byte(peerFileWith("manifest_sha256", string(manifest.HashBytes(body))))); err != nil {
		t.Fatal(err)
	}
	if err := newer.decodeSplit("a.json", []byte(peerFileWith("manifest_sum", SumManifest(body)))); err != nil {
		t.Fatal(err)
	}
	got := older.Cursors[sumURL]
	if got.ManifestSum != SumManifest(body) {
		t.Errorf("older file's fingerprint %q, want %q", got.ManifestSum, SumManifest(body))
	}
	if !reflect.DeepEqual(got, newer.Cursors[sumURL]) {
		t.Errorf("the two forms decode apart:\n%+v\n%+v", got, newer.Cursors[sumURL])
	}
}

func TestAnOlderCursorsBadManifestHashOnlyMeansTheNextManifestIsParsed(t *testing.T) {
	for _, bad := range []string{"", "sha256:", "sha256:abc", "md5:" + strings.Repeat("a", 64), "sha256:" + strings.Repeat("Z", 64)} {
		s := New()
		if err := s.decodeSplit("a.json", []byte(peerFileWith("manifest_sha256", bad))); err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		if got := s.Cursors[sumURL].ManifestSum; got != "" {
			t.Errorf("%q read as fingerprint %q, want none", bad, got)
		}
	}
}

func TestACursorFileKeepsSixteenHexDigitsOfTheManifestsHash(t *testing.T) {
	body := []byte("# MANIFEST\n")
	s := New()
	s.Cursor(sumURL).ManifestSum = SumManifest(body)
	files, err := s.Files(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	data := string(files[statefile.PeerFileName(sumURL)])
	full := strings.TrimPrefix(string(manifest.HashBytes(body)), "sha256:")
	if !regexp.MustCompile(`"manifest_sum": "` + full[:16] + `"`).MatchString(data) {
		t.Errorf("no 16-digit fingerprint %s in\n%s", full[:16], data)
	}
	if strings.Contains(data, full) || strings.Contains(data, "manifest_sha256") {
		t.Errorf("the full hash is still written:\n%s", data)
	}
}

func TestAnUnchangedCursorInTheOlderFormIsNotRewritten(t *testing.T) {
	p := filepath.Join(t.TempDir(), "polling-cursors.json")
	old := peerFileWith("manifest_sha256", string(manifest.HashBytes([]byte("m"))))
	if err := os.MkdirAll(statefile.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(statefile.Dir(p), statefile.PeerFileName(sumURL))
	if err := os.WriteFile(name, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Save(p, time.Time{}); err != nil || changed {
		t.Fatalf("save of the loaded state: changed=%v err=%v, want unchanged", changed, err)
	}
	if data, _ := os.ReadFile(name); string(data) != old {
		t.Errorf("file rewritten:\n%s", data)
	}
}

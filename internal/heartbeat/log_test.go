package heartbeat

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/manifest"
)

// TestPollLogHasSeed004Fields checks the structured line written per peer
// poll: one per peer, with docs/protocol.md §14's fields and the node's own.
func TestPollLogHasSeed004Fields(t *testing.T) {
	good := goodPeer(t)
	defer good.Close()
	empty := (&manifest.Manifest{Agent: "limited"}).Format()
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "41")
		if r.URL.Path == "/MANIFEST.md" {
			w.Write(empty)
			return
		}
		http.NotFound(w, r)
	}))
	defer limited.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	defer dead.Close()
	dir := newNode(t, [][2]string{{"good", good.URL + "/"}, {"limited", limited.URL + "/"}, {"dead", dead.URL + "/"}}, "")
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	_, err = Run(context.Background(), Options{
		Dir: dir, Config: cfg, Now: func() time.Time { return testNow },
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	polls := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["event"] == "poll_complete" {
			polls[rec["peer"].(string)] = rec
		}
	}
	if len(polls) != 3 {
		t.Fatalf("got poll lines for %d peers, want 3:\n%s", len(polls), logs.String())
	}
	g := polls["good"]
	for k, want := range map[string]float64{"fetched": 2, "new": 2, "duplicates": 0, "seq": 2, "failure_count": 0} {
		if g[k] != want {
			t.Errorf("good: %s = %v, want %v", k, g[k], want)
		}
	}
	for _, k := range []string{"time", "level", "url", "outcome", "latency_ms", "requests"} {
		if _, ok := g[k]; !ok {
			t.Errorf("good: no %q field in %v", k, g)
		}
	}
	if _, ok := g["rate_limit_remaining"]; ok {
		t.Errorf("good sent no X-RateLimit-Remaining, yet the log has one: %v", g)
	}
	if l := polls["limited"]; l["rate_limit_remaining"] != float64(41) {
		t.Errorf("limited: rate_limit_remaining = %v, want 41", l["rate_limit_remaining"])
	}
	d := polls["dead"]
	if d["outcome"] != "failed" || d["failure_count"] != float64(1) || d["err"] == nil {
		t.Errorf("dead: want a failed poll with its error, got %v", d)
	}
}

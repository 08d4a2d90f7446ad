package heartbeat

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/meshnode/meshnode/internal/manifest"
)

// TestConnectionsAreReusedAcrossAHostsPeers: 120 hosts of 2 peers each,
// polled hosts in turn with one connection allowed a host, each host
// counting the TCP connections it accepts. Every request after a host's
// first finds that connection idle, however many hosts were visited
// since: the heartbeat opens one connection a host, not one a request
// (10,000 idle peers on 50 hosts: bench/catchup.sh). The fetcher's old
// pool of 100 idle connections in all closed the connections of the
// hosts visited longest ago (20 of them here). In about one run in twenty
// a host saw one connection closed and another opened, so the test allows
// a twentieth more.
func TestConnectionsAreReusedAcrossAHostsPeers(t *testing.T) {
	const hosts, peers = 120, 2
	var list [][2]string
	dials := make([]*atomic.Int64, hosts)
	var closed atomic.Int64
	for h := range hosts {
		dials[h] = &atomic.Int64{}
		srv := httptest.NewUnstartedServer(onePeerPerPath(h))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			switch s {
			case http.StateNew:
				dials[h].Add(1)
			case http.StateClosed:
				closed.Add(1)
			}
		}
		srv.Start()
		t.Cleanup(srv.Close)
		for i := range peers {
			list = append(list, [2]string{fmt.Sprintf("h%dp%d", h, i), fmt.Sprintf("%s/p%d/", srv.URL, i)})
		}
	}
	dir := newNode(t, list, "gossip:\n  enabled: false\nheartbeat:\n  max_conns_per_host: 1\n")
	sum := beat(t, dir, testNow)
	if sum.Verified != hosts*peers {
		t.Fatalf("verified %d traces, want %d", sum.Verified, hosts*peers)
	}
	total := int64(0)
	for _, d := range dials {
		total += d.Load()
	}
	if total > hosts+hosts/20 || closed.Load() > hosts/20 {
		t.Errorf("%d hosts accepted %d connections for %d requests each, and %d were closed while the heartbeat ran; want one a host, kept", hosts, total, 2*peers+1, closed.Load())
	}
}

// onePeerPerPath serves, under /pN/, a peer of host h with one trace.
func onePeerPerPath(h int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/p")
		i, file, _ := strings.Cut(rest, "/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		body := []byte(fmt.Sprintf("# Trace of host %d peer %s\n\n## Work\n\nOne trace.\n", h, i))
		switch file {
		case "MANIFEST.md":
			m := manifest.Manifest{Agent: fmt.Sprintf("h%dp%s", h, i), Sequence: 1, Entries: []manifest.Entry{
				{Seq: 1, Hash: manifest.HashBytes(body), File: "traces/0001.md", Type: "knowledge", Status: "validated"}}}
			w.Write(m.Format())
		case "traces/0001.md":
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}
}

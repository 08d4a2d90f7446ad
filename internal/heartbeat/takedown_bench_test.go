package heartbeat

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/manifest"
	"github.com/meshnode/meshnode/internal/node"
)

// BenchmarkTakeDownDisputed measures takeDownDisputed alone, the SIGNAL
// report it reads computed before the timer starts (the heartbeat
// computes it anyway), over 1,000 traces of 50 peers, a founder's 100
// disputes of them (the most kept of one peer, maxDisputesPerPeer) and
// the rejections of 20 strangers' rows claiming their hashes with other
// bytes (50 of the 100 rows: the metric says how many).
func BenchmarkTakeDownDisputed(b *testing.B) {
	const authors, perAuthor, strangers, perStranger = 50, 20, 20, 5
	p := newFakePeer(b)
	var peers [][2]string
	var hashes []manifest.Hash
	urls := map[manifest.Hash]string{}
	for a := range authors {
		name := fmt.Sprintf("g%02d", a)
		rows := map[manifest.Seq][2]string{}
		for s := 1; s <= perAuthor; s++ {
			body := fmt.Sprintf("# Trace %d of %s\n\nWords.\n", s, name)
			rows[manifest.Seq(s)] = [2]string{fmt.Sprintf("traces/%03d.md", s), body}
			h := manifest.HashBytes([]byte(body))
			hashes, urls[h] = append(hashes, h), p.URL+"/"+name+"/"
		}
		p.publishSeqs("/"+name+"/", perAuthor, rows)
		peers = append(peers, [2]string{name, p.URL + "/" + name + "/"})
	}
	var disputes [][4]string
	for i := range maxDisputesPerPeer {
		h := hashes[i*len(hashes)/maxDisputesPerPeer]
		d := strings.NewReplacer("https://gamma.example/", urls[h], "sha256:"+zeros, string(h)).Replace(peersDispute)
		disputes = append(disputes, [4]string{fmt.Sprintf("disputes/dispute-%03d.md", i), d, "dispute", "published"})
	}
	p.publishRows("/beta/", disputes)
	peers = append(peers, [2]string{"beta", p.URL + "/beta/"})
	for s := range strangers {
		name := fmt.Sprintf("m%02d", s)
		m := manifest.Manifest{Agent: name, Sequence: perStranger}
		for r := 1; r <= perStranger; r++ {
			file := fmt.Sprintf("traces/claim-%d.md", r)
			m.Entries = append(m.Entries, manifest.Entry{Seq: manifest.Seq(r), Hash: hashes[(s*perStranger+r)%len(hashes)], File: file, Type: "knowledge", Status: "pending"})
			p.serve("/"+name+"/"+file, []byte("# Other bytes\n"))
		}
		p.serve("/"+name+"/MANIFEST.md", m.Format())
		peers = append(peers, [2]string{name, p.URL + "/" + name + "/"})
	}
	dir := newNode(b, peers, "")
	write(b, dir, node.FoundersFile, fmt.Sprintf("beta | %s/beta/\n", p.URL))
	beat(b, dir, testNow)
	l := loadLedger(b, dir)
	if len(l.Traces) != authors*perAuthor || len(l.Disputes) != maxDisputesPerPeer || len(l.Rejected) == 0 {
		b.Fatalf("setup: %d traces, %d disputes, %d rejections", len(l.Traces), len(l.Disputes), len(l.Rejected))
	}
	cfg, err := config.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Dir: dir, Config: cfg, Now: func() time.Time { return testNow }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for b.Loop() {
		b.StopTimer()
		n, unlock, err := open(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		n.led()
		if _, err := n.signalReport(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := n.takeDownDisputed(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		disputed := 0
		for _, t := range n.ledger.Traces {
			if t.TakenDown == ledger.Disputed {
				disputed++
			}
		}
		unlock()
		b.ReportMetric(float64(disputed), "disputed")
		b.ReportMetric(float64(len(n.ledger.Rejected)), "rejections")
		b.StartTimer()
	}
}

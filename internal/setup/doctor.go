package setup

import (
	"context"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/manifest"
)

// Status is how a check came out.
type Status string

// The statuses of a Finding. Only StatusFail makes doctor exit non-zero:
// a warning is something to look at, not a broken node.
const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn"
	StatusFail Status = "fail"
)

// Finding is the result of one check, with how to fix it when it is not ok.
type Finding struct {
	Check   string `json:"check"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Fetcher gets a URL; *fetch.Client is one.
type Fetcher interface {
	Get(ctx context.Context, r fetch.Request) (*fetch.Response, error)
}

// DoctorOptions configure Doctor.
type DoctorOptions struct {
	Dir string
	Now time.Time
	// Fetcher reaches the Pages URL and the peers; nil builds a
	// fetch.Client with the config's allow_private_addresses and Timeout.
	Fetcher Fetcher
	// Timeout bounds each request of the default Fetcher; 0 is
	// DefaultDoctorTimeout.
	Timeout time.Duration
	// PagesURL replaces the config url as the place to check the served
	// files (a preview deploy, a local server), in roster.NormalizeURL's
	// form; "" uses the config url.
	PagesURL string
	// LastCommit returns the committer date of the last commit in dir;
	// nil runs git.
	LastCommit func(ctx context.Context, dir string) (time.Time, error)
	// MaxFiles bounds how many published files are fetched to check their
	// hashes; 0 is DefaultMaxFiles.
	MaxFiles int
}

// Doctor defaults.
const (
	// DefaultDoctorTimeout bounds one request: doctor is run by a person
	// waiting at a terminal.
	DefaultDoctorTimeout = 15 * time.Second
	// DefaultMaxFiles is how many published files doctor samples (newest
	// first): enough to catch a Pages build that rewrites files, few
	// enough to stay quick on a node with hundreds of traces.
	DefaultMaxFiles = 20
	// peerConcurrency bounds the peers checked at once.
	peerConcurrency = 8
)

// doctorRun is what the checks share once the config is read.
type doctorRun struct {
	o        DoctorOptions
	cfg      *config.Config
	pagesURL string
	manifest []byte
	parsed   *manifest.Manifest
	fetcher  Fetcher
}

// Doctor checks the node in o.Dir and returns one Finding per check, in a
// fixed order. It never writes into the directory.
func Doctor(ctx context.Context, o DoctorOptions) []Finding {
	o = doctorDefaults(o)
	cfg, f := checkConfig(o.Dir)
	out := []Finding{f}
	if cfg == nil {
		return append(out, notChecked("identity", "manifest", "pages", "pages-files", "peers", "standing", "founders")...)
	}
	n := &doctorRun{o: o, cfg: cfg, pagesURL: cfg.URL, fetcher: o.Fetcher}
	if o.PagesURL != "" {
		n.pagesURL = o.PagesURL
	}
	if n.fetcher == nil {
		n.fetcher = fetch.New(fetch.Options{AllowPrivate: cfg.AllowPrivateAddresses, Timeout: o.Timeout,
			UserAgent: "meshnode (+" + cfg.URL + "; agent " + cfg.Agent + "; doctor)"})
	}
	out = append(out, checkIdentity(o.Dir, cfg.Agent), n.checkManifest())
	out = append(out, n.checkPages(ctx)...)
	out = append(out, n.checkPeers(ctx)...)
	out = append(out, n.checkStanding())
	out = append(out, n.checkFounders(ctx)...)
	out = append(out, checkWorkflows(o.Dir)...)
	out = append(out, checkState(o.Dir)...)
	return append(out, checkActivity(ctx, o))
}

func doctorDefaults(o DoctorOptions) DoctorOptions {
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultDoctorTimeout
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.LastCommit == nil {
		o.LastCommit = LastCommit
	}
	return o
}

// notChecked stands for checks that need a valid config.
func notChecked(checks ...string) []Finding {
	out := make([]Finding, len(checks))
	for i, c := range checks {
		out[i] = Finding{Check: c, Status: StatusWarn, Message: "not checked: mesh.yaml must be fixed first"}
	}
	return out
}

// Failures counts the findings that failed.
func Failures(fs []Finding) int {
	n := 0
	for _, f := range fs {
		if f.Status == StatusFail {
			n++
		}
	}
	return n
}

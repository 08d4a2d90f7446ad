package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/relay"
	"github.com/meshnode/meshnode/internal/roster"
	"github.com/meshnode/meshnode/internal/signingkey"
	"github.com/meshnode/meshnode/internal/translog"
)

func init() {
	register(&command{
		name:    "relay",
		summary: "poll agents' signed checkpoints and publish them as a relay's signed log",
		usage: `Usage: meshnode relay --url URL --key FILE [--dir DIR] [--deadline 10m] [--allow-private-addresses]

Runs a relay once (docs/protocol.md §3.5): reads the signed log of every
agent DIR/AGENTS.md lists as a node does (its key pinned from IDENTITY.md
on first contact, each checkpoint verified with it and joined to the last,
a key rotation among the new entries followed), and appends every
checkpoint that changed to the relay's own signed log in DIR/log/, served
at URL as static files (meshnode serve, GitHub Pages, any web server). A
run that relays nothing new writes no log file. Nodes read it through
relays.list in mesh.yaml.

An agent that cannot be read, publishes no signed log, or whose log is
refused is left out and named on stderr; the run still exits 0, as a
heartbeat does whatever its peers did. A refused log (a fork, a key
change no rotation announced, a restart) waits for "meshnode peers repin
URL --dir DIR".

FILE is the relay's signing key, outside DIR; when it does not exist a
new key named after URL is written there. Every run prints the line a
node adds to its relays.list.

Examples:
  meshnode relay --dir ~/relay --url https://relay.example/mesh/ --key ~/keys/relay.log-key

Flags:
`,
		run: runRelayCmd,
	})
}

// relayOptions are one run of `meshnode relay`.
type relayOptions struct {
	dir, url, key string
	deadline      time.Duration
	allowPrivate  bool
}

func runRelayCmd(ctx context.Context, e *env, args []string) error {
	var o relayOptions
	fs := newFlagSet("relay")
	fs.StringVar(&o.dir, "dir", ".", "the relay's directory: AGENTS.md in, log/ out")
	fs.StringVar(&o.url, "url", "", "the relay's base URL, where DIR is served")
	fs.StringVar(&o.key, "key", "", "the relay's signing key file, outside DIR (written when missing)")
	fs.DurationVar(&o.deadline, "deadline", 10*time.Minute, "the whole run's time limit")
	fs.BoolVar(&o.allowPrivate, "allow-private-addresses", false, "let agents resolve to loopback and private addresses (tests, a LAN mesh)")
	if err := parseFlagsNoArgs(e, fs, args); err != nil {
		return err
	}
	if o.url == "" || o.key == "" {
		return usagef("name the relay's URL and key file: meshnode relay --url URL --key FILE", "relay: --url and --key are required")
	}
	return runRelay(ctx, e, o)
}

// runRelay runs the relay once and prints what it did.
func runRelay(ctx context.Context, e *env, o relayOptions) error {
	u, err := roster.NormalizeURL(o.url)
	if err != nil {
		return usagef("give the URL where the relay's directory is served, like https://relay.example/mesh/", "relay: %v", err)
	}
	skey, err := relayKey(o.key, o.dir, u)
	if err != nil {
		return err
	}
	agents, err := relayAgents(o.dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.deadline)
	defer cancel()
	client := fetch.New(fetch.Options{UserAgent: fmt.Sprintf("meshnode/%s (+%s; relay)", moduleVersion(), u),
		AllowPrivate: o.allowPrivate, Timeout: 20 * time.Second})
	res, err := relay.Publish(ctx, relay.PublishOptions{Dir: o.dir, Key: skey, Agents: agents, Client: client, Now: e.now(),
		Logf: func(f string, a ...any) { fmt.Fprintf(e.stderr, "meshnode: "+f+"\n", a...) }})
	if err != nil {
		return err
	}
	vkey, _ := translog.VerifierKey(skey)
	fmt.Fprintf(e.stdout, "relayed %d checkpoints of %d agents; %d left out; log size %d; %d requests\n", res.Relayed, len(agents), res.LeftOut, res.Size, res.Requests)
	fmt.Fprintf(e.stdout, "relays.list entry: %s %s\n", u, vkey)
	return nil
}

// relayKey loads the relay's signing key from path, or writes a new one
// named after url when there is none.
func relayKey(path, dir, url string) (string, error) {
	origin, err := translog.Origin(url)
	if err != nil {
		return "", err
	}
	skey, err := signingkey.Load(path, dir)
	switch {
	case err == nil:
		if s, err := note.NewSigner(skey); err != nil || s.Name() != origin {
			return "", usagef("use the key this relay was started with, or a new file for a new relay", "relay: the key in %s is not named %s", path, origin)
		}
		return skey, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	skey, _, err = translog.GenerateKey(origin)
	if err != nil {
		return "", err
	}
	if err := signingkey.Write(path, dir, skey); err != nil {
		return "", usagef("name a key file outside the relay's directory", "relay: %v", err)
	}
	return skey, nil
}

// relayAgents reads the agents of the relay's AGENTS.md.
func relayAgents(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, node.AgentsFile))
	if err != nil {
		return nil, usagef("list the agents to relay in AGENTS.md (docs/protocol.md §4)", "relay: %v", err)
	}
	list, _ := roster.Parse(data)
	out := make([]string, 0, len(list))
	for _, a := range list {
		if u, err := roster.NormalizeURL(a.URL); err == nil {
			out = append(out, u)
		}
	}
	return out, nil
}

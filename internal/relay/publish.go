package relay

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/fetch"
	"github.com/meshnode/meshnode/internal/logpin"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// PublishOptions are one run of a relay whose files live in Dir: its log
// under log/ (node.LogDir), the agents' pinned keys under
// mesh-state/log-pins/ (node.LogPinsFile).
type PublishOptions struct {
	Dir    string
	Key    string   // the relay's signer key
	Agents []string // the agents' trace URLs, normalised
	Client *fetch.Client
	// Now stamps the alarms of refused agents' logs.
	Now  time.Time
	Logf func(format string, args ...any)
}

// Published is what a run did.
type Published struct {
	Relayed  int   // entries appended
	Size     int64 // the log's size after
	LeftOut  int   // agents not read, without a signed log, or refused
	Requests int
	Changed  bool // a file was written
}

// Publish polls the agents and appends each changed checkpoint to the
// relay's log, writing only the files that changed: a run that relays
// nothing new writes no log file (not even an empty log's checkpoint),
// and only the pins that changed (a first contact, a rotation followed,
// a refused log's evidence).
func Publish(ctx context.Context, o PublishOptions) (*Published, error) {
	vkey, err := translog.VerifierKey(o.Key)
	if err != nil {
		return nil, err
	}
	old, err := node.ReadLog(o.Dir)
	if err != nil {
		return nil, err
	}
	l, err := OpenLog(old, vkey)
	if err != nil {
		return nil, fmt.Errorf("%w (is this the relay's key?)", err)
	}
	pins, err := logpin.Load(filepath.Join(o.Dir, node.LogPinsFile))
	if err != nil {
		return nil, err
	}
	p := &Poller{Client: o.Client, Pins: pins, Now: o.Now, Logf: o.Logf}
	polled := p.Poll(ctx, o.Agents, l.Latest())
	changed := false
	if len(polled.Entries) > 0 {
		files, err := l.Extend(polled.Entries, o.Key)
		if err != nil {
			return nil, err
		}
		if changed, err = node.WriteLog(o.Dir, old, files); err != nil {
			return nil, err
		}
	}
	pinned, err := pins.Save()
	if err != nil {
		return nil, err
	}
	return &Published{Relayed: len(polled.Entries), Size: int64(len(l.Entries)), LeftOut: polled.LeftOut,
		Requests: polled.Requests, Changed: changed || pinned}, nil
}

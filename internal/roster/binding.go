package roster

import (
	"fmt"
	"strings"
)

// Binding ties each agent name to the one URL it stands for, and each URL
// to one name. Names are compared without case, as SIGNAL compares them
// (docs/decisions.md, "Names"). The node builds one per heartbeat: its own
// name and URL first, then AGENTS.md in file order (Bind), then peers
// learned by gossip (BindGossip), so gossip can add names but never move a
// name a person or an earlier heartbeat bound.
type Binding struct {
	urls  map[string]string // Fold(name) → URL
	looks map[string]string // Skeleton(name) → name
	names map[string]string // URL → name
}

// NewBinding returns an empty binding.
func NewBinding() *Binding {
	return &Binding{urls: map[string]string{}, looks: map[string]string{}, names: map[string]string{}}
}

// ConflictError is a name or URL that Bind or BindGossip refused, with the
// binding it would have broken.
type ConflictError struct {
	Name, URL string // what was asked
	Bound     string // the name already bound that conflicts
	BoundURL  string // its URL
	Reason    string // one of the Reason constants
}

// Reasons of a ConflictError.
const (
	ReasonNameTaken = "name taken"
	ReasonLookAlike = "look-alike name"
	ReasonURLTaken  = "url taken"
	ReasonBadName   = "bad name"
)

func (e *ConflictError) Error() string {
	switch e.Reason {
	case ReasonBadName:
		return fmt.Sprintf("agent name %q is not a valid name", clip(e.Name))
	case ReasonURLTaken:
		return fmt.Sprintf("%s is known as %s, not %s", clip(e.URL), e.Bound, e.Name)
	case ReasonLookAlike:
		return fmt.Sprintf("name %s looks like %s, bound to %s; %s cannot take it", e.Name, e.Bound, clip(e.BoundURL), clip(e.URL))
	}
	return fmt.Sprintf("name %s is bound to %s; %s cannot take it", e.Name, clip(e.BoundURL), clip(e.URL))
}

// Bind binds name to url. It refuses, with a *ConflictError, an empty
// name, a name already bound (in any case) to another URL, and a URL already
// bound to another name. Binding the same pair again is no error.
func (b *Binding) Bind(name, url string) error {
	return b.bind(name, url, false)
}

// BindGossip is Bind for a name a peer told us: it also refuses a name
// that is not ValidName, or that looks like one already bound (Skeleton),
// so gossip cannot slip in "g00d1" beside "good1".
func (b *Binding) BindGossip(name, url string) error {
	return b.bind(name, url, true)
}

func (b *Binding) bind(name, url string, gossip bool) error {
	url = canonical(url)
	// Our own name comes from mesh.yaml, whose rule is wider than
	// ValidName; gossip's names must pass ValidName.
	if Fold(name) == "" || gossip && !ValidName(name) {
		return &ConflictError{Name: name, URL: url, Reason: ReasonBadName}
	}
	if u, ok := b.urls[Fold(name)]; ok {
		if u == url {
			return nil
		}
		return &ConflictError{Name: name, URL: url, Bound: b.names[u], BoundURL: u, Reason: ReasonNameTaken}
	}
	if other, ok := b.names[url]; ok {
		return &ConflictError{Name: name, URL: url, Bound: other, BoundURL: url, Reason: ReasonURLTaken}
	}
	if like, ok := b.looks[Skeleton(name)]; ok && gossip {
		return &ConflictError{Name: name, URL: url, Bound: like, BoundURL: b.urls[Fold(like)], Reason: ReasonLookAlike}
	}
	b.urls[Fold(name)] = url
	b.names[url] = name
	if _, ok := b.looks[Skeleton(name)]; !ok {
		b.looks[Skeleton(name)] = name
	}
	return nil
}

// URL returns the URL name is bound to, in any case.
func (b *Binding) URL(name string) (string, bool) {
	u, ok := b.urls[Fold(name)]
	return u, ok
}

// Name returns the name url, in any spelling NormalizeURL gives one form,
// is bound to.
func (b *Binding) Name(url string) (string, bool) {
	n, ok := b.names[canonical(url)]
	return n, ok
}

// canonical is url in NormalizeURL's form, so two spellings of one URL
// are one binding; a URL it refuses is kept as it is.
func canonical(url string) string {
	if c, err := NormalizeURL(url); err == nil {
		return c
	}
	return url
}

// Len returns how many names are bound.
func (b *Binding) Len() int { return len(b.names) }

// Fold is the form two names are compared in: lowercase, as SIGNAL keys
// agents.
func Fold(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Skeleton maps a name to the form its look-alikes share: lowercase, 0 as
// o, 1 and i as l, rn as m, vv as w, and "_" and "." as "-". Names are ASCII
// (ValidName), so no other script can imitate one; these are the ASCII
// confusions a reader makes at a glance.
func Skeleton(name string) string {
	s := strings.NewReplacer("0", "o", "1", "l", "i", "l", "_", "-", ".", "-").Replace(Fold(name))
	return strings.NewReplacer("rn", "m", "vv", "w").Replace(s)
}

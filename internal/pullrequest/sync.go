package pullrequest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/google/go-github/v60/github"
)

// Defaults of Options.
const (
	DefaultBase   = "main"
	DefaultBranch = "meshnode/scores"
)

// Draft is one draft validation file, with what the pull request's body
// says about it.
type Draft struct {
	Path    string // in the repository, e.g. "validations/val-0123456789ab.md"
	Content []byte // deterministic: the same trace and suggestion give the same bytes
	// For the body: the trace it scores, its author and the suggestion.
	TraceURL, Title, Agent, Suggestion string
}

// Options says where the pull request lives and what it should hold.
type Options struct {
	Client      *github.Client
	Owner, Repo string
	Base        string // default DefaultBase
	Branch      string // default DefaultBranch
	Drafts      []Draft
}

// Result says what Sync did.
type Result struct {
	Number  int    // the pull request, 0 when there is none
	URL     string // its page
	Head    string // the commit the pull request's branch points at
	Created bool   // a new pull request was opened
	Updated bool   // the open one got new files or a new description
	Written []string
	Kept    []string // drafts a person edited on the branch: left as they are
	Merged  []string // drafts already on the base branch: not drafted again
}

// Sync makes the pull request from Branch into Base hold every draft that
// is not yet on Base. It opens the pull request when none is open and
// updates the open one otherwise. A file on the branch whose bytes differ
// from the node's draft was edited by a person and is kept. With nothing
// left to draft it opens nothing.
func Sync(ctx context.Context, o Options) (Result, error) {
	o = o.withDefaults()
	if o.Client == nil || o.Owner == "" || o.Repo == "" {
		return Result{}, errors.New("pull request: a client, an owner and a repository are needed")
	}
	r := &repo{ctx: ctx, gh: o.Client, owner: o.Owner, name: o.Repo}
	st, err := r.load(o)
	if err != nil {
		return Result{}, err
	}
	p := plan(o.Drafts, st.base.files, st.head.files)
	res := Result{Kept: p.kept, Merged: p.merged}
	if len(p.waiting) == 0 {
		return res, nil
	}
	res.Head = st.head.commit
	if len(p.write) > 0 {
		if res.Head, err = r.commit(o, st, p.write); err != nil {
			return res, err
		}
		res.Written = paths(p.write)
	}
	return r.upsertPR(o, st.pr, p, res)
}

func (o Options) withDefaults() Options {
	if o.Base == "" {
		o.Base = DefaultBase
	}
	if o.Branch == "" {
		o.Branch = DefaultBranch
	}
	return o
}

// drafting is the outcome of comparing the drafts with the two branches.
type drafting struct {
	waiting []Draft  // every draft not on the base branch, for the body
	write   []Draft  // drafts the branch lacks
	kept    []string // a person changed them on the branch
	merged  []string // already on the base branch
}

func plan(drafts []Draft, base, head map[string]string) drafting {
	drafts = append([]Draft(nil), drafts...)
	sort.Slice(drafts, func(i, j int) bool { return drafts[i].Path < drafts[j].Path })
	var p drafting
	for _, d := range drafts {
		if _, ok := base[d.Path]; ok {
			p.merged = append(p.merged, d.Path)
			continue
		}
		p.waiting = append(p.waiting, d)
		sha, ok := head[d.Path]
		switch {
		case !ok:
			p.write = append(p.write, d)
		case sha != BlobSHA(d.Content):
			p.kept = append(p.kept, d.Path)
		}
	}
	return p
}

func paths(ds []Draft) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Path
	}
	return out
}

// isNotFound reports whether a go-github error is a 404.
func isNotFound(resp *github.Response, err error) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode == http.StatusNotFound
	}
	return resp != nil && resp.StatusCode == http.StatusNotFound
}

func wrap(what string, err error) error {
	return fmt.Errorf("pull request: %s: %w", what, err)
}

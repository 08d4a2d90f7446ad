package pullrequest

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// repo is one repository on GitHub, seen through the git data API.
type repo struct {
	ctx   context.Context
	gh    *github.Client
	owner string
	name  string
}

// snapshot is a branch's head: its commit, tree and file blob SHAs.
type snapshot struct {
	commit, tree string
	files        map[string]string // path → blob SHA
}

// state is what Sync reads before it writes anything.
type state struct {
	base, head   snapshot // head is the draft branch, or base when starting over
	branchExists bool
	pr           *github.PullRequest // the open one, or nil
}

// load reads the base branch, the open pull request and, when it is open,
// the draft branch. Without an open pull request the branch starts over
// from base: its last pull request was merged or closed by a person.
func (r *repo) load(o Options) (*state, error) {
	var st state
	var err error
	if st.base, err = r.snapshot(o.Base); err != nil {
		return nil, err
	}
	if st.pr, err = r.openPR(o); err != nil {
		return nil, err
	}
	_, resp, err := r.gh.Git.GetRef(r.ctx, r.owner, r.name, "heads/"+o.Branch)
	switch {
	case err == nil:
		st.branchExists = true
	case !isNotFound(resp, err):
		return nil, wrap("read branch "+o.Branch, err)
	}
	st.head = st.base
	if st.branchExists && st.pr != nil {
		if st.head, err = r.snapshot(o.Branch); err != nil {
			return nil, err
		}
	}
	return &st, nil
}

// snapshot reads a branch's head commit and its whole tree.
func (r *repo) snapshot(branch string) (snapshot, error) {
	ref, _, err := r.gh.Git.GetRef(r.ctx, r.owner, r.name, "heads/"+branch)
	if err != nil {
		return snapshot{}, wrap("read branch "+branch, err)
	}
	c, _, err := r.gh.Git.GetCommit(r.ctx, r.owner, r.name, ref.GetObject().GetSHA())
	if err != nil {
		return snapshot{}, wrap("read head of "+branch, err)
	}
	t, _, err := r.gh.Git.GetTree(r.ctx, r.owner, r.name, c.GetTree().GetSHA(), true)
	if err != nil {
		return snapshot{}, wrap("read tree of "+branch, err)
	}
	if t.GetTruncated() {
		return snapshot{}, wrap("read tree of "+branch, fmt.Errorf("tree too large for one listing"))
	}
	s := snapshot{commit: c.GetSHA(), tree: c.GetTree().GetSHA(), files: map[string]string{}}
	for _, e := range t.Entries {
		if e.GetType() == "blob" {
			s.files[e.GetPath()] = e.GetSHA()
		}
	}
	return s, nil
}

// commit writes the drafts as one commit on top of the branch head (or of
// base when starting over), points the branch at it and returns its SHA.
func (r *repo) commit(o Options, st *state, drafts []Draft) (string, error) {
	entries := make([]*github.TreeEntry, 0, len(drafts))
	for _, d := range drafts {
		b, _, err := r.gh.Git.CreateBlob(r.ctx, r.owner, r.name, &github.Blob{
			Content:  github.String(base64.StdEncoding.EncodeToString(d.Content)),
			Encoding: github.String("base64"),
		})
		if err != nil {
			return "", wrap("upload "+d.Path, err)
		}
		entries = append(entries, &github.TreeEntry{
			Path: github.String(d.Path), Mode: github.String("100644"),
			Type: github.String("blob"), SHA: b.SHA,
		})
	}
	tree, _, err := r.gh.Git.CreateTree(r.ctx, r.owner, r.name, st.head.tree, entries)
	if err != nil {
		return "", wrap("create tree", err)
	}
	c, _, err := r.gh.Git.CreateCommit(r.ctx, r.owner, r.name, &github.Commit{
		Message: github.String(commitMessage(len(drafts))),
		Tree:    tree,
		Parents: []*github.Commit{{SHA: github.String(st.head.commit)}},
	}, nil)
	if err != nil {
		return "", wrap("create commit", err)
	}
	return c.GetSHA(), r.pointBranch(o.Branch, c.GetSHA(), st)
}

// pointBranch moves the branch to sha: a fast-forward while its pull
// request is open, a reset onto base otherwise.
func (r *repo) pointBranch(branch, sha string, st *state) error {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}
	if !st.branchExists {
		if _, _, err := r.gh.Git.CreateRef(r.ctx, r.owner, r.name, ref); err != nil {
			return wrap("create branch "+branch, err)
		}
		return nil
	}
	force := st.pr == nil
	if _, _, err := r.gh.Git.UpdateRef(r.ctx, r.owner, r.name, ref, force); err != nil {
		return wrap("update branch "+branch, err)
	}
	return nil
}

func commitMessage(n int) string {
	if n == 1 {
		return "scores: draft 1 validation for a person to score"
	}
	return fmt.Sprintf("scores: draft %d validations for a person to score", n)
}

// BlobSHA is git's object ID of a blob with this content, which is what
// a tree listing gives for each file: equal IDs mean equal bytes.
func BlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

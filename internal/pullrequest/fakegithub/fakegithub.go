// Package fakegithub is an in-memory stand-in for the part of the GitHub
// REST API that package pullrequest uses (git data, pulls, commit statuses
// and workflow dispatches), served by
// httptest on 127.0.0.1, for tests. It must not be used outside tests.
package fakegithub

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
)

// Server is the part of the GitHub REST API pullrequest.Sync uses, over an
// in-memory git object store: blobs, flat trees, commits and refs of one
// repository, and its pull requests.
type Server struct {
	t          *testing.T
	mu         sync.Mutex
	blobs      map[string][]byte
	trees      map[string]map[string]string // tree SHA → path → blob SHA
	comms      map[string]fakeCommit
	refs       map[string]string // "heads/main" → commit SHA
	pulls      []*Pull
	statuses   map[string][]Status // commit SHA → statuses, oldest first
	dispatches []Dispatch
	calls      []string // "METHOD path", in order
}

// Status is a commit status as the fake keeps it.
type Status struct {
	State       string `json:"state"`
	Context     string `json:"context"`
	Description string `json:"description"`
	TargetURL   string `json:"target_url"`
}

// Dispatch is a workflow_dispatch event as the fake received it.
type Dispatch struct {
	Workflow string
	Ref      string
	Inputs   map[string]any
}

type fakeCommit struct{ tree, parent, message string }

// Pull is a pull request as the fake keeps it.
type Pull struct {
	Number int    `json:"number"`
	State  string `json:"state"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Head   string `json:"-"`
	Base   string `json:"-"`
}

// Owner and Repo name the one repository the fake serves.
const Owner, Repo = "alice", "mesh-node"

// New starts a server whose main branch holds files, and a
// go-github client pointed at it.
func New(t *testing.T, files map[string]string) (*Server, *github.Client) {
	f := &Server{t: t, blobs: map[string][]byte{}, trees: map[string]map[string]string{},
		comms: map[string]fakeCommit{}, refs: map[string]string{}, statuses: map[string][]Status{}}
	tree := map[string]string{}
	for p, c := range files {
		tree[p] = f.putBlob([]byte(c))
	}
	f.refs["heads/main"] = f.putCommit(f.putTree(tree), "", "start")
	srv := httptest.NewServer(f.routes())
	t.Cleanup(srv.Close)
	c, err := github.NewClient(nil).WithEnterpriseURLs(srv.URL+"/", srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	// WithEnterpriseURLs adds /api/v3/; the fake serves at the root.
	c.BaseURL.Path = "/"
	return f, c
}

func (f *Server) routes() http.Handler {
	m := http.NewServeMux()
	pre := "/repos/" + Owner + "/" + Repo
	m.HandleFunc("GET "+pre+"/git/ref/{ref...}", f.getRef)
	m.HandleFunc("POST "+pre+"/git/refs", f.createRef)
	m.HandleFunc("PATCH "+pre+"/git/refs/{ref...}", f.updateRef)
	m.HandleFunc("GET "+pre+"/git/commits/{sha}", f.getCommit)
	m.HandleFunc("POST "+pre+"/git/commits", f.createCommit)
	m.HandleFunc("GET "+pre+"/git/trees/{sha}", f.getTree)
	m.HandleFunc("POST "+pre+"/git/trees", f.createTree)
	m.HandleFunc("POST "+pre+"/git/blobs", f.createBlob)
	m.HandleFunc("GET "+pre+"/pulls", f.listPulls)
	m.HandleFunc("POST "+pre+"/pulls", f.createPull)
	m.HandleFunc("PATCH "+pre+"/pulls/{n}", f.editPull)
	m.HandleFunc("POST "+pre+"/statuses/{sha}", f.createStatus)
	m.HandleFunc("GET "+pre+"/commits/{ref}/status", f.combinedStatus)
	m.HandleFunc("POST "+pre+"/actions/workflows/{file}/dispatches", f.dispatch)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = append(f.calls, r.Method+" "+r.URL.Path)
		m.ServeHTTP(w, r)
	})
}

func (f *Server) putBlob(b []byte) string {
	sha := blobSHA(b)
	f.blobs[sha] = b
	return sha
}

func (f *Server) putTree(files map[string]string) string {
	keys := make([]string, 0, len(files))
	for p := range files {
		keys = append(keys, p+" "+files[p])
	}
	sort.Strings(keys)
	sha := digest("tree " + strings.Join(keys, "\n"))
	f.trees[sha] = files
	return sha
}

func (f *Server) putCommit(tree, parent, msg string) string {
	sha := digest("commit " + tree + parent + msg + fmt.Sprint(len(f.comms)))
	f.comms[sha] = fakeCommit{tree, parent, msg}
	return sha
}

func digest(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

func (f *Server) getRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	sha, ok := f.refs[ref]
	if !ok {
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]any{"ref": "refs/" + ref, "object": map[string]string{"sha": sha, "type": "commit"}})
}

func (f *Server) createRef(w http.ResponseWriter, r *http.Request) {
	var req struct{ Ref, SHA string }
	decode(r, &req)
	name := strings.TrimPrefix(req.Ref, "refs/")
	if _, exists := f.refs[name]; exists {
		http.Error(w, `{"message":"Reference already exists"}`, http.StatusUnprocessableEntity)
		return
	}
	f.refs[name] = req.SHA
	writeJSON(w, map[string]any{"ref": req.Ref, "object": map[string]string{"sha": req.SHA}})
}

func (f *Server) updateRef(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SHA   string
		Force bool
	}
	decode(r, &req)
	name := r.PathValue("ref")
	old, ok := f.refs[name]
	if !ok {
		http.Error(w, `{"message":"Reference does not exist"}`, http.StatusUnprocessableEntity)
		return
	}
	if !req.Force && !f.descends(req.SHA, old) {
		http.Error(w, `{"message":"Update is not a fast forward"}`, http.StatusUnprocessableEntity)
		return
	}
	f.refs[name] = req.SHA
	writeJSON(w, map[string]any{"ref": "refs/" + name, "object": map[string]string{"sha": req.SHA}})
}

func (f *Server) descends(sha, ancestor string) bool {
	for ; sha != ""; sha = f.comms[sha].parent {
		if sha == ancestor {
			return true
		}
	}
	return false
}

func (f *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	c, ok := f.comms[r.PathValue("sha")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, map[string]any{"sha": r.PathValue("sha"), "message": c.message, "tree": map[string]string{"sha": c.tree}})
}

func (f *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Message, Tree string
		Parents       []string
	}
	decode(r, &req)
	if _, ok := f.trees[req.Tree]; !ok || len(req.Parents) != 1 {
		http.Error(w, `{"message":"bad commit"}`, http.StatusUnprocessableEntity)
		return
	}
	sha := f.putCommit(req.Tree, req.Parents[0], req.Message)
	writeJSON(w, map[string]any{"sha": sha, "tree": map[string]string{"sha": req.Tree}})
}

func (f *Server) getTree(w http.ResponseWriter, r *http.Request) {
	files, ok := f.trees[r.PathValue("sha")]
	if !ok || r.URL.Query().Get("recursive") == "" {
		http.NotFound(w, r)
		return
	}
	var entries []map[string]string
	for p, sha := range files {
		entries = append(entries, map[string]string{"path": p, "sha": sha, "type": "blob", "mode": "100644"})
	}
	writeJSON(w, map[string]any{"sha": r.PathValue("sha"), "tree": entries, "truncated": false})
}

func (f *Server) createTree(w http.ResponseWriter, r *http.Request) {
	var req struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct{ Path, SHA, Mode, Type string }
	}
	decode(r, &req)
	files := map[string]string{}
	for p, s := range f.trees[req.BaseTree] {
		files[p] = s
	}
	for _, e := range req.Tree {
		if _, ok := f.blobs[e.SHA]; !ok {
			http.Error(w, `{"message":"unknown blob"}`, http.StatusUnprocessableEntity)
			return
		}
		files[e.Path] = e.SHA
	}
	writeJSON(w, map[string]any{"sha": f.putTree(files)})
}

func (f *Server) createBlob(w http.ResponseWriter, r *http.Request) {
	var req struct{ Content, Encoding string }
	decode(r, &req)
	b := []byte(req.Content)
	if req.Encoding == "base64" {
		var err error
		if b, err = base64.StdEncoding.DecodeString(req.Content); err != nil {
			http.Error(w, `{"message":"bad base64"}`, http.StatusUnprocessableEntity)
			return
		}
	}
	writeJSON(w, map[string]any{"sha": f.putBlob(b)})
}

func (f *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	out := []map[string]any{}
	for _, p := range f.pulls {
		if p.State == q.Get("state") && Owner+":"+p.Head == q.Get("head") && p.Base == q.Get("base") {
			out = append(out, f.pullJSON(p))
		}
	}
	writeJSON(w, out)
}

func (f *Server) createPull(w http.ResponseWriter, r *http.Request) {
	var req struct{ Title, Body, Head, Base string }
	decode(r, &req)
	for _, p := range f.pulls {
		if p.State == "open" && p.Head == req.Head {
			http.Error(w, `{"message":"A pull request already exists"}`, http.StatusUnprocessableEntity)
			return
		}
	}
	p := &Pull{Number: len(f.pulls) + 1, State: "open", Title: req.Title, Body: req.Body, Head: req.Head, Base: req.Base}
	f.pulls = append(f.pulls, p)
	writeJSON(w, f.pullJSON(p))
}

func (f *Server) editPull(w http.ResponseWriter, r *http.Request) {
	var req struct{ Title, Body string }
	decode(r, &req)
	for _, p := range f.pulls {
		if fmt.Sprint(p.Number) == r.PathValue("n") {
			p.Title, p.Body = req.Title, req.Body
			writeJSON(w, f.pullJSON(p))
			return
		}
	}
	http.NotFound(w, r)
}

func (f *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	var st Status
	decode(r, &st)
	sha := r.PathValue("sha")
	if _, ok := f.comms[sha]; !ok {
		http.Error(w, `{"message":"No commit found for SHA"}`, http.StatusUnprocessableEntity)
		return
	}
	switch st.State {
	case "success", "failure", "error", "pending":
	default:
		http.Error(w, `{"message":"Validation Failed"}`, http.StatusUnprocessableEntity)
		return
	}
	f.statuses[sha] = append(f.statuses[sha], st)
	writeJSON(w, st)
}

// combinedStatus gives the newest status of each context, as GitHub does.
func (f *Server) combinedStatus(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("ref")
	latest := map[string]Status{}
	for _, st := range f.statuses[sha] {
		latest[st.Context] = st
	}
	out := []Status{}
	for _, st := range latest {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Context < out[j].Context })
	writeJSON(w, map[string]any{"sha": sha, "statuses": out, "total_count": len(out)})
}

func (f *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Ref    string
		Inputs map[string]any
	}
	decode(r, &req)
	if _, ok := f.refs["heads/"+req.Ref]; !ok {
		http.Error(w, `{"message":"No ref found for: `+req.Ref+`"}`, http.StatusUnprocessableEntity)
		return
	}
	f.dispatches = append(f.dispatches, Dispatch{Workflow: r.PathValue("file"), Ref: req.Ref, Inputs: req.Inputs})
	w.WriteHeader(http.StatusNoContent)
}

// Statuses returns the commit statuses set on sha, oldest first.
func (f *Server) Statuses(sha string) []Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Status(nil), f.statuses[sha]...)
}

// Dispatches returns the workflow_dispatch events received, oldest first.
func (f *Server) Dispatches() []Dispatch {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Dispatch(nil), f.dispatches...)
}

// KnowCommit makes the fake accept statuses on sha, a commit made outside
// it (in a local git repository standing for the same repository).
func (f *Server) KnowCommit(sha string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.comms[sha]; !ok {
		f.comms[sha] = fakeCommit{message: "made elsewhere"}
	}
}

// Head returns the commit a branch points at.
func (f *Server) Head(branch string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refs["heads/"+branch]
}

func (f *Server) pullJSON(p *Pull) map[string]any {
	return map[string]any{
		"number": p.Number, "state": p.State, "title": p.Title, "body": p.Body,
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", Owner, Repo, p.Number),
		"head":     map[string]string{"ref": p.Head}, "base": map[string]string{"ref": p.Base},
	}
}

func decode(r *http.Request, v any) {
	_ = json.NewDecoder(r.Body).Decode(v)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// File returns a file's content on a branch, and whether it is there.
func (f *Server) File(branch, path string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sha, ok := f.trees[f.comms[f.refs["heads/"+branch]].tree][path]
	return string(f.blobs[sha]), ok
}

// PersonCommits commits a change to the branch as a person would, through
// the web editor.
func (f *Server) PersonCommits(branch, path, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	head := f.refs["heads/"+branch]
	files := map[string]string{}
	for p, s := range f.trees[f.comms[head].tree] {
		files[p] = s
	}
	files[path] = f.putBlob([]byte(content))
	f.refs["heads/"+branch] = f.putCommit(f.putTree(files), head, "edit "+path)
}

// Merge squash-merges the open pull request into main and closes it.
func (f *Server) Merge(number int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pulls[number-1]
	branchTree := f.comms[f.refs["heads/"+p.Head]].tree
	f.refs["heads/main"] = f.putCommit(branchTree, f.refs["heads/main"], "merge")
	p.State = "closed"
}

// Count returns how many calls had method and a path containing pathPart.
func (f *Server) Count(method, pathPart string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, method+" ") && strings.Contains(c, pathPart) {
			n++
		}
	}
	return n
}

// Pulls returns the pull requests, oldest first.
func (f *Server) Pulls() []Pull {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Pull, len(f.pulls))
	for i, p := range f.pulls {
		out[i] = *p
	}
	return out
}

// blobSHA is git's object ID of a blob.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

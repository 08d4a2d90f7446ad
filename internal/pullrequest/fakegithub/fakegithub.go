// Package fakegithub is an in-memory stand-in for the part of the GitHub
// REST API that package pullrequest uses (git data, pulls, commit statuses,
// workflow dispatches and branch protection), served by
// httptest on 127.0.0.1, for tests. It must not be used outside tests.
package fakegithub

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
	repoDir    string   // a git repository whose commits take statuses
	onStatus   func(sha string, st Status)
	rules      *Rules // the branch rules it plays, nil: none
}

type fakeCommit struct{ tree, parent, message string }

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
	m.HandleFunc("GET "+pre+"/rules/branches/{branch...}", f.branchRules)
	m.HandleFunc("GET "+pre+"/branches/{branch}/protection", f.classicProtection)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = append(f.calls, r.Method+" "+r.URL.Path)
		m.ServeHTTP(w, r)
	})
}

// Head returns the commit a branch points at.
func (f *Server) Head(branch string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refs["heads/"+branch]
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

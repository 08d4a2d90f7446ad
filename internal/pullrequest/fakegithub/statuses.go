package fakegithub

import (
	"net/http"
	"os/exec"
	"sort"
)

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

func (f *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	var st Status
	decode(r, &st)
	sha := r.PathValue("sha")
	if _, ok := f.comms[sha]; !ok && !f.inRepository(sha) {
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
	if f.onStatus != nil {
		f.onStatus(sha, st)
	}
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

// KnowRepository makes the fake take statuses on the commits of the git
// repository at dir (a bare remote standing for the same repository), as
// GitHub does on every commit pushed to it and on no other.
func (f *Server) KnowRepository(dir string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.repoDir = dir
}

func (f *Server) inRepository(sha string) bool {
	if f.repoDir == "" || !isHex40(sha) {
		return false
	}
	return exec.Command("git", "-C", f.repoDir, "cat-file", "-e", sha+"^{commit}").Run() == nil
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// OnStatus calls fn with each status as it is set: a test's stand-in for
// GitHub's rules, which read a commit's statuses when a push arrives.
func (f *Server) OnStatus(fn func(sha string, st Status)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onStatus = fn
}

package fakegithub

import (
	"fmt"
	"net/http"
)

// Pull is a pull request as the fake keeps it.
type Pull struct {
	Number int    `json:"number"`
	State  string `json:"state"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Head   string `json:"-"`
	Base   string `json:"-"`
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

func (f *Server) pullJSON(p *Pull) map[string]any {
	return map[string]any{
		"number": p.Number, "state": p.State, "title": p.Title, "body": p.Body,
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", Owner, Repo, p.Number),
		"head":     map[string]string{"ref": p.Head}, "base": map[string]string{"ref": p.Base},
	}
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

package fakegithub

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

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

// blobSHA is git's object ID of a blob.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

package fakegithub

import (
	"net/http"
	"strings"
)

// Rules is the protection of the repository's branches as the fake plays
// it, answer by answer: the rulesets' rules that apply to each branch, and
// the classic branch protection of main.
type Rules struct {
	// Branch holds the rules GET /rules/branches/{branch} answers for
	// each branch, as GitHub's JSON; a branch not named has none.
	Branch map[string][]map[string]any
	// RulesetsStatus, when not zero, is the error status the rules
	// endpoint answers with instead (403, 404: a token that cannot read).
	RulesetsStatus int
	// Classic is the body of GET /branches/main/protection; nil answers
	// 404 "Branch not protected", as GitHub does for a branch without it.
	Classic map[string]any
	// ClassicStatus, when not zero, is the error status the classic
	// endpoint answers with instead: 403 for a job's token, which can
	// never read classic protection.
	ClassicStatus int
}

// PlayRules makes the fake answer the protection endpoints with r.
func (f *Server) PlayRules(r Rules) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = &r
}

func (f *Server) branchRules(w http.ResponseWriter, r *http.Request) {
	rules := Rules{}
	if f.rules != nil {
		rules = *f.rules
	}
	if rules.RulesetsStatus != 0 {
		http.Error(w, `{"message":"Resource not accessible by integration"}`, rules.RulesetsStatus)
		return
	}
	out := rules.Branch[r.PathValue("branch")]
	if out == nil {
		out = []map[string]any{}
	}
	writeJSON(w, out)
}

func (f *Server) classicProtection(w http.ResponseWriter, r *http.Request) {
	rules := Rules{}
	if f.rules != nil {
		rules = *f.rules
	}
	switch {
	case rules.ClassicStatus != 0:
		http.Error(w, `{"message":"Resource not accessible by integration"}`, rules.ClassicStatus)
	case rules.Classic == nil || strings.TrimSuffix(r.PathValue("branch"), "/") != "main":
		http.Error(w, `{"message":"Branch not protected"}`, http.StatusNotFound)
	default:
		writeJSON(w, rules.Classic)
	}
}

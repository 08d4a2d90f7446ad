package pullrequest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/meshnode/meshnode/internal/pullrequest/fakegithub"
)

func draft(id, score string) Draft {
	return Draft{
		Path:       "validations/val-" + id + ".md",
		Content:    []byte("# VALIDATION\n\ntrace_hash: sha256:" + id + "\ntotal_score: " + score + "\n"),
		TraceURL:   "https://peer.example/traces/" + id + ".md",
		Title:      "Trace " + id + " | with a pipe",
		Agent:      "peer",
		Suggestion: score + "/30",
	}
}

func TestSyncOpensOnePullRequestWithTheDrafts(t *testing.T) {
	f, c := fakegithub.New(t, map[string]string{"MANIFEST.md": "# MANIFEST\n"})
	a, b := draft("aaaaaaaaaaaa", "22"), draft("bbbbbbbbbbbb", "12")

	res, err := Sync(context.Background(), Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Drafts: []Draft{b, a}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Number != 1 || res.URL != "https://github.com/alice/mesh-node/pull/1" {
		t.Errorf("result = %+v, want pull request #1 created", res)
	}
	if want := []string{a.Path, b.Path}; !slices.Equal(res.Written, want) {
		t.Errorf("written = %v, want %v (sorted)", res.Written, want)
	}
	for _, d := range []Draft{a, b} {
		if got, ok := f.File(DefaultBranch, d.Path); !ok || got != string(d.Content) {
			t.Errorf("%s on the branch = %q, %v; want the draft", d.Path, got, ok)
		}
		if _, ok := f.File("main", d.Path); ok {
			t.Errorf("%s written to main", d.Path)
		}
	}
	if got, _ := f.File(DefaultBranch, "MANIFEST.md"); got != "# MANIFEST\n" {
		t.Errorf("branch lost main's files: MANIFEST.md = %q", got)
	}
	pr := f.Pulls()[0]
	if pr.Head != DefaultBranch || pr.Base != "main" || pr.Title != "Scores: 2 traces wait for a person" {
		t.Errorf("pull request = %+v", pr)
	}
	for _, want := range []string{"[Trace aaaaaaaaaaaa \\| with a pipe](https://peer.example/traces/aaaaaaaaaaaa.md)", "`validations/val-bbbbbbbbbbbb.md`", "12/30"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, pr.Body)
		}
	}
}

func TestSyncUpdatesTheOpenPullRequestInsteadOfOpeningASecond(t *testing.T) {
	f, c := fakegithub.New(t, nil)
	a, b := draft("aaaaaaaaaaaa", "22"), draft("bbbbbbbbbbbb", "12")
	o := Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Drafts: []Draft{a}}
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}

	o.Drafts = []Draft{a, b}
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || !res.Updated || res.Number != 1 {
		t.Errorf("result = %+v, want #1 updated", res)
	}
	if want := []string{b.Path}; !slices.Equal(res.Written, want) {
		t.Errorf("written = %v, want only the new draft %v", res.Written, want)
	}
	if len(f.Pulls()) != 1 {
		t.Fatalf("%d pull requests, want 1", len(f.Pulls()))
	}
	if f.Pulls()[0].Title != "Scores: 2 traces wait for a person" || !strings.Contains(f.Pulls()[0].Body, "bbbbbbbbbbbb") {
		t.Errorf("pull request not updated: %+v", f.Pulls()[0])
	}
	if got, _ := f.File(DefaultBranch, b.Path); got != string(b.Content) {
		t.Errorf("new draft not on the branch: %q", got)
	}
}

func TestSyncWithNothingNewWritesNothing(t *testing.T) {
	f, c := fakegithub.New(t, nil)
	o := Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Drafts: []Draft{draft("aaaaaaaaaaaa", "22")}}
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.Updated || res.Number != 1 || len(res.Written) != 0 {
		t.Errorf("result = %+v, want #1 untouched", res)
	}
	if n := f.Count("POST", "/git/commits") + f.Count("PATCH", "/pulls/"); n != 1 {
		t.Errorf("%d commits and edits, want only the first run's commit", n)
	}
}

func TestSyncLeavesAScoreAPersonEditedAlone(t *testing.T) {
	f, c := fakegithub.New(t, nil)
	a := draft("aaaaaaaaaaaa", "22")
	o := Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Drafts: []Draft{a}}
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(a.Content), "total_score: 22", "total_score: 27", 1)
	f.PersonCommits(DefaultBranch, a.Path, edited)

	b := draft("bbbbbbbbbbbb", "12")
	o.Drafts = []Draft{a, b}
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.File(DefaultBranch, a.Path); got != edited {
		t.Errorf("edited file overwritten:\n%s", got)
	}
	if want := []string{a.Path}; !slices.Equal(res.Kept, want) {
		t.Errorf("kept = %v, want %v", res.Kept, want)
	}
	if want := []string{b.Path}; !slices.Equal(res.Written, want) {
		t.Errorf("written = %v, want %v", res.Written, want)
	}
	if !strings.Contains(f.Pulls()[0].Body, "`"+a.Path+"` (edited)") {
		t.Errorf("body does not mark the edited file:\n%s", f.Pulls()[0].Body)
	}
}

func TestSyncNeverDraftsAMergedValidationAgain(t *testing.T) {
	f, c := fakegithub.New(t, nil)
	a, b := draft("aaaaaaaaaaaa", "22"), draft("bbbbbbbbbbbb", "12")
	o := Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Drafts: []Draft{a}}
	if _, err := Sync(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	f.PersonCommits(DefaultBranch, a.Path, "# VALIDATION\n\nscored by hand\n")
	f.Merge(1)

	o.Drafts = []Draft{a, b}
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Number != 2 {
		t.Errorf("result = %+v, want a new pull request #2 after the merge", res)
	}
	if want := []string{a.Path}; !slices.Equal(res.Merged, want) {
		t.Errorf("merged = %v, want %v", res.Merged, want)
	}
	if got, _ := f.File("main", a.Path); got != "# VALIDATION\n\nscored by hand\n" {
		t.Errorf("merged score changed on main: %q", got)
	}
	if got, _ := f.File(DefaultBranch, a.Path); got != "# VALIDATION\n\nscored by hand\n" {
		t.Errorf("merged file re-drafted on the branch: %q", got)
	}
	if strings.Contains(f.Pulls()[1].Body, "aaaaaaaaaaaa") {
		t.Errorf("new pull request lists the merged trace:\n%s", f.Pulls()[1].Body)
	}
}

func TestSyncWithNothingWaitingOpensNothing(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		draft []Draft
	}{
		{"no drafts", nil, nil},
		{"every draft already merged", map[string]string{draft("aaaaaaaaaaaa", "1").Path: "merged\n"}, []Draft{draft("aaaaaaaaaaaa", "22")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := fakegithub.New(t, tt.files)
			res, err := Sync(context.Background(), Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Drafts: tt.draft})
			if err != nil {
				t.Fatal(err)
			}
			if res.Number != 0 || len(f.Pulls()) != 0 || f.Count("POST", "") != 0 {
				t.Errorf("result = %+v, %d pull requests, %d writes; want nothing", res, len(f.Pulls()), f.Count("POST", ""))
			}
		})
	}
}

func TestSyncReportsAPIErrorsWithContext(t *testing.T) {
	_, c := fakegithub.New(t, nil)
	_, err := Sync(context.Background(), Options{Client: c, Owner: fakegithub.Owner, Repo: fakegithub.Repo, Base: "trunk", Drafts: []Draft{draft("aaaaaaaaaaaa", "1")}})
	if err == nil || !strings.Contains(err.Error(), "read branch trunk") {
		t.Errorf("err = %v, want one naming the missing base branch", err)
	}
	if _, err := Sync(context.Background(), Options{Owner: fakegithub.Owner, Repo: fakegithub.Repo}); err == nil {
		t.Error("no client: no error")
	}
}

func TestBlobSHAIsGitsObjectID(t *testing.T) {
	// `printf 'hello\n' | git hash-object --stdin`
	if got := BlobSHA([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("BlobSHA = %s", got)
	}
}

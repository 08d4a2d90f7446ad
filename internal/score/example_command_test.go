package score

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshnode/meshnode/internal/slowtest"
)

// exampleScorer is the example model scorer shipped in docs/scorer.
var exampleScorer = filepath.Join("..", "..", "docs", "scorer", "llm-scorer.py")

// fakeModel writes a model command that saves its prompt to a file and
// prints answer, as "llm" or "ollama run" would.
func fakeModel(t *testing.T, answer string) (command, promptFile string) {
	t.Helper()
	dir := t.TempDir()
	promptFile = filepath.Join(dir, "prompt.txt")
	if err := os.WriteFile(filepath.Join(dir, "answer.txt"), []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncat > '" + promptFile + "'\ncat '" + filepath.Join(dir, "answer.txt") + "'\n"
	command = filepath.Join(dir, "model.sh")
	if err := os.WriteFile(command, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return command, promptFile
}

func examplePython(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the example scorer in docs/scorer is not tested here")
	}
	return py
}

const goodAnswer = "Here is my judgement:\n```json\n" +
	`{"scores": {"substance": 4, "uniqueness": 3, "specificity": 5, "actionability": 4, "structure": 5},` +
	` "reasons": {"substance": "a measured retry ladder"}, "notes": "Solid, measured guide."}` + "\n```\n"

func TestExampleModelScorerThroughTheCommandScorer(t *testing.T) {
	slowtest.Require(t)
	py := examplePython(t)
	tests := []struct {
		name, answer string
		file         string
		want         []int  // the six scores, when it succeeds
		err          string // the failure the node records, when it does not
	}{
		{"fenced JSON answer", goodAnswer, "rich.md", []int{4, 3, 5, 4, 5, 5}, ""},
		{"thin note is capped whatever the model says", goodAnswer, "empty.md", []int{1, 0, 0, 0, 5, 4}, ""},
		// 17 words of body under a long title and header fields: the node's
		// count, not the fields, decides that it is thin.
		{"thin note padded with header fields is capped", goodAnswer, "padded-thin.md", []int{1, 0, 0, 0, 5, 5}, ""},
		{"answer without JSON fails the item", "I think it is good.", "rich.md", nil, "holds no JSON object"},
		{"score out of range fails the item", `{"scores": {"substance": 7, "uniqueness": 3, "specificity": 5, "actionability": 4, "structure": 5}}`, "rich.md", nil, "outside 0-5"},
		{"missing dimension fails the item", `{"scores": {"substance": 4}}`, "rich.md", nil, "uniqueness = None is not an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, promptFile := fakeModel(t, tt.answer)
			t.Setenv("MESHNODE_MODEL_COMMAND", model)
			t.Setenv("OPENAI_BASE_URL", "")
			c := &Command{Args: []string{py, exampleScorer}, Timeout: time.Minute}
			raw := readTestdata(t, tt.file)
			in := input(raw)
			in.Trace = parseTrace(t, raw)
			res, err := c.Score(context.Background(), in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tt.want {
				if res.Scores[i] != w {
					t.Errorf("scores %v, want %v (reasons %q)", res.Scores, tt.want, res.Reasons)
					break
				}
			}
			prompt, err := os.ReadFile(promptFile)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(prompt), "Answer with one JSON object") || !strings.Contains(string(prompt), in.Trace.Title) {
				t.Errorf("the model did not get the rubric and the trace: %.300q", prompt)
			}
			if len(res.Reasons[5]) == 0 || res.Notes == "" {
				t.Errorf("freshness reasons %q, notes %q: want both", res.Reasons[5], res.Notes)
			}
		})
	}
}

// TestExampleModelScorerNeedsTheWordCount checks that the example fails an
// item, rather than count words its own way, when the request has no
// "words".
func TestExampleModelScorerNeedsTheWordCount(t *testing.T) {
	py := examplePython(t)
	model, _ := fakeModel(t, goodAnswer)
	req, err := json.Marshal(map[string]any{"body": "# T\n\nSome text.\n", "now": "2026-03-12T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, exampleScorer)
	cmd.Env = append(os.Environ(), "MESHNODE_MODEL_COMMAND="+model, "OPENAI_BASE_URL=")
	cmd.Stdin = strings.NewReader(string(req))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `no word count ("words")`) {
		t.Errorf("exit %v, output %q: want a failure naming the missing word count", err, out)
	}
}

func TestExampleModelScorerCallsAnOpenAICompatibleAPI(t *testing.T) {
	py := examplePython(t)
	var got struct {
		Model    string `json:"model"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &got)
		auth = r.Header.Get("Authorization")
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		ans, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"content": goodAnswer}}}})
		_, _ = w.Write(ans)
	}))
	defer srv.Close()
	t.Setenv("MESHNODE_MODEL_COMMAND", "")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("MESHNODE_MODEL", "small-model")
	c := &Command{Args: []string{py, exampleScorer}, Timeout: time.Minute}
	raw := readTestdata(t, "rich.md")
	in := input(raw)
	in.Trace = parseTrace(t, raw)
	res, err := c.Score(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scores[0] != 4 || got.Model != "small-model" || auth != "Bearer test-key" {
		t.Errorf("scores %v, model %q, auth %q", res.Scores, got.Model, auth)
	}
	if len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content, "--- TRACE ---") {
		t.Errorf("messages %+v: want the prompt with the trace", got.Messages)
	}
}

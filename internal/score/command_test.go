package score

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a scoring command: the test runs
// os.Args[0] with this variable set and a mode as its argument.
const helperEnv = "MESHNODE_SCORE_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helperScorer(os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

// helperScorer is the fake scoring command, one behaviour per mode.
func helperScorer(mode string) int {
	in, _ := io.ReadAll(os.Stdin)
	var req CommandRequest
	if err := json.Unmarshal(in, &req); err != nil {
		fmt.Fprintln(os.Stderr, "bad request:", err)
		return 9
	}
	good := `{"scores":{"substance":4,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":3},"notes":"ok for ` + req.Agent + `"}`
	switch mode {
	case "good":
		fmt.Print(good)
	case "echo-title":
		fmt.Printf(`{"scores":{"substance":1,"uniqueness":1,"specificity":1,"actionability":1,"structure":1,"freshness":1},"notes":%q}`, req.Title+"|"+req.Now+"|"+string(req.Hash))
	case "exit":
		fmt.Print(good)
		fmt.Fprintln(os.Stderr, "model quota exhausted")
		return 3
	case "flood":
		chunk := strings.Repeat("x", 64<<10)
		for i := 0; i < 64; i++ {
			if _, err := os.Stdout.WriteString(chunk); err != nil {
				return 1
			}
		}
	case "hang":
		time.Sleep(time.Hour)
	default:
		fmt.Print(mode)
	}
	return 0
}

func helperCommand(t *testing.T, mode string, timeout time.Duration) Scorer {
	t.Helper()
	t.Setenv(helperEnv, "1")
	s, err := New(KindCommand, []string{os.Args[0], "-test.run=^$", mode}, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCommandScorerReadsValidScores(t *testing.T) {
	r, err := helperCommand(t, "good", time.Minute).Score(context.Background(), input(readTestdata(t, "rich.md")))
	if err != nil {
		t.Fatal(err)
	}
	if want := [6]int{4, 3, 4, 2, 5, 3}; r.Scores != want {
		t.Errorf("scores %v, want %v", r.Scores, want)
	}
	if r.Notes != "ok for example" {
		t.Errorf("notes %q", r.Notes)
	}
}

func TestCommandScorerSendsTraceContext(t *testing.T) {
	in := input(readTestdata(t, "rich.md"))
	r, err := helperCommand(t, "echo-title", time.Minute).Score(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := "|2026-03-12T00:00:00Z|" + string(in.Record.Hash)
	if r.Notes != want {
		t.Errorf("command saw %q, want %q", r.Notes, want)
	}
}

func TestCommandScorerFailsTheItemOnProcessProblems(t *testing.T) {
	tests := []struct {
		name, mode, want string
	}{
		{"not JSON", "I think it is good", "not the expected JSON"},
		{"nonzero exit", "exit", "model quota exhausted"},
		{"stdout flood", "flood", "stdout exceeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := helperCommand(t, tt.mode, time.Minute).Score(context.Background(), input([]byte("# t\n")))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, %v; want an error containing %q", r, err, tt.want)
			}
		})
	}
}

func TestParseCommandResponseRejectsBadOutput(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"missing dimension", `{"scores":{"substance":4,"uniqueness":3,"specificity":4,"actionability":2,"structure":5}}`, `missing dimension "freshness"`},
		{"out of range", `{"scores":{"substance":6,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":1}}`, "out of range"},
		{"negative", `{"scores":{"substance":-1,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":1}}`, "out of range"},
		{"non-integer", `{"scores":{"substance":4.5,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":1}}`, "not an integer"},
		{"quoted number", `{"scores":{"substance":"4","uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":1}}`, "not an integer"},
		{"unknown dimension", `{"scores":{"substance":4,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":1,"vibes":5}}`, `unknown dimension "vibes"`},
		{"trailing data", `{"scores":{"substance":4,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":1}} {}`, "after the JSON"},
		{"no scores", `{"notes":"x"}`, "no \"scores\""},
		{"reasons for unknown dimension", `{"scores":{"substance":4,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":1},"reasons":{"mood":["x"]}}`, "unknown dimension"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseCommandResponse([]byte(tt.out))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, %v; want an error containing %q", r, err, tt.want)
			}
		})
	}
}

func TestCommandScorerKillsAHungCommand(t *testing.T) {
	_, err := helperCommand(t, "hang", 200*time.Millisecond).Score(context.Background(), input([]byte("# t\n")))
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("got %v, want a timeout error", err)
	}
}

func TestNewScorerKinds(t *testing.T) {
	tests := []struct {
		name    string
		kind    string
		command []string
		want    string
		wantErr bool
	}{
		{"heuristic", KindHeuristic, nil, "heuristic", false},
		{"empty means heuristic", "", nil, "heuristic", false},
		{"manual", KindManual, nil, "manual", false},
		{"command", KindCommand, []string{"scorer"}, "command", false},
		{"command without program", KindCommand, nil, "", true},
		{"unknown kind", "oracle", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.kind, tt.command, 0)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && s.Name() != tt.want {
				t.Errorf("name %q, want %q", s.Name(), tt.want)
			}
		})
	}
}

func TestManualScorerWaitsForAPerson(t *testing.T) {
	_, err := Manual{}.Score(context.Background(), input(nil))
	if !errors.Is(err, ErrNeedsPerson) {
		t.Fatalf("got %v, want ErrNeedsPerson", err)
	}
}

func FuzzParseCommandResponse(f *testing.F) {
	f.Add([]byte(`{"scores":{"substance":4,"uniqueness":3,"specificity":4,"actionability":2,"structure":5,"freshness":3},"notes":"x","reasons":{"substance":["long"]}}`))
	f.Add([]byte(`{"scores":{"substance":1e0}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, out []byte) {
		r, err := ParseCommandResponse(out)
		if err != nil {
			return
		}
		for i, s := range r.Scores {
			if s < 0 || s > 5 {
				t.Fatalf("dimension %d = %d accepted", i, s)
			}
		}
		if strings.Contains(r.Notes, "\n") {
			t.Fatalf("notes span lines: %q", r.Notes)
		}
	})
}

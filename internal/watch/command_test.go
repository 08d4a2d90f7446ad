package watch

import (
	"strings"
	"testing"
	"time"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name, line string
		want       Command
		err        string
	}{
		{"empty line", "  ", Command{}, ""},
		{"inbox", "/poll", Command{Verb: VerbList}, ""},
		{"on", "/poll on", Command{Verb: VerbOn}, ""},
		{"off", " /poll   off ", Command{Verb: VerbOff}, ""},
		{"interval", "/poll interval 5m", Command{Verb: VerbInterval, Interval: 5 * time.Minute}, ""},
		{"done with reason", "/poll done 3f2a9c01b7de read by hand", Command{Verb: VerbDone, ID: "3f2a9c01b7de", Reason: "read by hand"}, ""},
		{"skip", "/poll skip abc", Command{Verb: VerbSkip, ID: "abc"}, ""},
		{"status", "/status", Command{Verb: VerbStatus}, ""},
		{"interval too short", "/poll interval 10ms", Command{}, "between 1s and 24h0m0s"},
		{"interval not a duration", "/poll interval soon", Command{}, "want a duration"},
		{"done without id", "/poll done", Command{}, "needs an item ID"},
		{"on with extra", "/poll on now", Command{}, "takes no arguments"},
		{"unknown poll verb", "/poll ack 12", Command{}, `unknown /poll command "ack"`},
		{"not a command", "hello", Command{}, `unknown command "hello"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCommand(tt.line)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseCommand(%q) error = %v, want one containing %q", tt.line, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseCommand(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
			}
		})
	}
}

// FuzzParseCommand holds the parser of what a person types to never
// panicking, and to an interval always within bounds.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/poll", "/poll on", "/poll interval 5m", "/poll done abc why", "/help", "/poll interval -1h", "\x00/poll"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseCommand(line)
		if err != nil {
			return
		}
		if c.Verb == VerbInterval && (c.Interval < MinInterval || c.Interval > MaxInterval) {
			t.Fatalf("ParseCommand(%q) gave interval %s out of bounds", line, c.Interval)
		}
		if (c.Verb == VerbDone || c.Verb == VerbFail || c.Verb == VerbSkip) && c.ID == "" {
			t.Fatalf("ParseCommand(%q) gave %s without an ID", line, c.Verb)
		}
	})
}

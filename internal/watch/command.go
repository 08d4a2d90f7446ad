package watch

import (
	"fmt"
	"strings"
	"time"
)

// Verbs of a Command.
const (
	VerbList     = "list"     // /poll: show the inbox
	VerbOn       = "on"       // /poll on
	VerbOff      = "off"      // /poll off
	VerbInterval = "interval" // /poll interval 5m
	VerbDone     = "done"     // /poll done ID [reason]
	VerbFail     = "fail"     // /poll fail ID [reason]
	VerbSkip     = "skip"     // /poll skip ID [reason]
	VerbStatus   = "status"   // /status
	VerbHelp     = "help"     // /help
)

// Bounds of /poll interval, the same as watch.interval's (docs/config.md).
const (
	MinInterval = time.Second
	MaxInterval = 24 * time.Hour
)

// Command is one slash command a person typed.
type Command struct {
	Verb     string
	Interval time.Duration // VerbInterval
	ID       string        // VerbDone, VerbFail, VerbSkip
	Reason   string        // optional, with an ID
}

// Help lists the slash commands.
const Help = `commands:
  /poll                      the inbox: id, type, from, status, trace URL
  /poll on | /poll off       start or stop polling
  /poll interval 5m          time between two ticks
  /poll done|fail|skip ID [reason]   settle an inbox item
  /status                    the status line
  /help                      this list`

// ParseCommand parses one line a person typed. An empty line is the
// zero Command with no error; anything else that is not a known command
// is an error that says what is.
func ParseCommand(line string) (Command, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return Command{}, nil
	}
	switch f[0] {
	case "/status":
		return noArgs(f, VerbStatus)
	case "/help", "/?":
		return noArgs(f, VerbHelp)
	case "/poll":
		return parsePoll(f[1:])
	}
	return Command{}, fmt.Errorf("unknown command %q: type /help for the list", clip(f[0]))
}

func noArgs(f []string, verb string) (Command, error) {
	if len(f) > 1 {
		return Command{}, fmt.Errorf("%s takes no arguments", f[0])
	}
	return Command{Verb: verb}, nil
}

func parsePoll(args []string) (Command, error) {
	if len(args) == 0 {
		return Command{Verb: VerbList}, nil
	}
	switch v := args[0]; v {
	case VerbOn, VerbOff:
		return noArgs(append([]string{"/poll " + v}, args[1:]...), v)
	case VerbInterval:
		if len(args) != 2 {
			return Command{}, fmt.Errorf("/poll interval takes one duration, like 5m")
		}
		d, err := time.ParseDuration(args[1])
		if err != nil || d < MinInterval || d > MaxInterval {
			return Command{}, fmt.Errorf("/poll interval %q: want a duration between %s and %s, like 5m", clip(args[1]), MinInterval, MaxInterval)
		}
		return Command{Verb: VerbInterval, Interval: d}, nil
	case VerbDone, VerbFail, VerbSkip:
		if len(args) < 2 {
			return Command{}, fmt.Errorf("/poll %s needs an item ID: type /poll for the list", v)
		}
		return Command{Verb: v, ID: args[1], Reason: strings.Join(args[2:], " ")}, nil
	}
	return Command{}, fmt.Errorf("unknown /poll command %q: type /help for the list", clip(args[0]))
}

// clip keeps what a person typed short in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

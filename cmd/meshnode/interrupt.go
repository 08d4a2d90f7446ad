package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// signalError is the cause of a context canceled by SIGINT or SIGTERM.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "interrupted by " + signalName(e.sig) }

// signalName is the name people know a signal by.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// interruptedError is a one-shot command stopped by a signal. The command
// saved what it had (every state write is atomic) and stopped early; it
// exits 128 + the signal's number, as a shell reports a process the signal
// killed (130 for SIGINT, 143 for SIGTERM).
type interruptedError struct {
	sig syscall.Signal
	err error // what the command returned, often context.Canceled; may be nil
}

func (e *interruptedError) Error() string {
	if e.err == nil || errors.Is(e.err, context.Canceled) {
		return fmt.Sprintf("interrupted by %s: state saved, the next run goes on from there", signalName(e.sig))
	}
	return fmt.Sprintf("interrupted by %s: %v", signalName(e.sig), e.err)
}

func (e *interruptedError) Unwrap() error { return e.err }

func (e *interruptedError) code() int { return 128 + int(e.sig) }

// interruptible returns a context that the first SIGINT or SIGTERM cancels,
// with a *signalError as its cause, and says so on stderr. A second signal
// gets the default behaviour and ends the process at once. stop releases
// the signals.
func interruptible(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			sig, _ := s.(syscall.Signal)
			fmt.Fprintf(stderr, "\nmeshnode: %s: finishing up and saving state (send it again to stop at once)\n", signalName(sig))
			cancel(&signalError{sig: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// interruption turns the result of a command whose context a signal
// canceled into an *interruptedError; other results pass unchanged.
func interruption(ctx context.Context, err error) error {
	var se *signalError
	if ctx.Err() == nil || !errors.As(context.Cause(ctx), &se) {
		return err
	}
	return &interruptedError{sig: se.sig, err: err}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
)

// A signal stops a one-shot command with 128 + its number, as a shell
// reports it; for serve and watch, which run until stopped, it is the
// normal end.
func TestSignalsExitWith128PlusTheSignalExceptForServeAndWatch(t *testing.T) {
	tests := []struct {
		name     string
		sig      syscall.Signal
		args     []string
		wantCode int
	}{
		{"SIGINT stops peers", syscall.SIGINT, []string{"peers", "--dir", "DIR"}, 130},
		{"SIGTERM stops peers", syscall.SIGTERM, []string{"peers", "--dir", "DIR"}, 143},
		{"SIGTERM stops a heartbeat", syscall.SIGTERM, []string{"heartbeat", "--dir", "DIR"}, 143},
		{"SIGTERM ends serve", syscall.SIGTERM, []string{"serve", "--dir", "DIR", "--addr", "127.0.0.1:0"}, 0},
		{"SIGTERM ends watch", syscall.SIGTERM, []string{"watch", "--dir", "DIR"}, 0},
		{"SIGINT ends watch", syscall.SIGINT, []string{"watch", "--dir", "DIR"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newNode(t, nil)
			for i, a := range tt.args {
				tt.args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(&signalError{sig: tt.sig})
			var stdout, stderr bytes.Buffer
			code := exitCode(run(ctx, tt.args, &stdout, &stderr), &stderr)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if tt.wantCode != 0 && !strings.Contains(stderr.String(), "meshnode: interrupted by "+signalName(tt.sig)) {
				t.Errorf("stderr does not say it was interrupted:\n%s", stderr.String())
			}
		})
	}
}

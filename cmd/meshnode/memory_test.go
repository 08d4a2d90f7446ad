package main

import (
	"runtime/debug"
	"testing"
)

func TestPollingCommandsGetTheSoftMemoryLimitUnlessGOMEMLIMITIsSet(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(1 << 40)
	limitMemory(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != heartbeatMemoryLimit {
		t.Errorf("limit = %d, want %d", got, heartbeatMemoryLimit)
	}
	debug.SetMemoryLimit(1 << 40)
	limitMemory(func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] })
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("with GOMEMLIMIT set the limit became %d", got)
	}
	if !polls("heartbeat") || !polls("watch") || polls("build") {
		t.Error("polls names the wrong commands")
	}
}

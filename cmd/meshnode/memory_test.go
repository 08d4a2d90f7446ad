package main

import (
	"fmt"
	"io/fs"
	"runtime/debug"
	"testing"
)

// machine fakes the files machineMemory reads.
func machine(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
}

func TestSoftMemoryLimitIsAQuarterOfTheMachineAndNeverBelowTheFloor(t *testing.T) {
	const gib = 1 << 30
	mem := func(kb int64) string { return fmt.Sprintf("MemTotal:       %d kB\nMemFree:  12 kB\n", kb) }
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"physical memory", map[string]string{meminfo: mem(8 << 20)}, 2 * gib},
		{"cgroup v2 limit below it", map[string]string{meminfo: mem(24 << 20), cgroup2Max: "4294967296\n"}, gib},
		{"cgroup v2 without a limit", map[string]string{meminfo: mem(8 << 20), cgroup2Max: "max\n"}, 2 * gib},
		{"cgroup v1 limit", map[string]string{meminfo: mem(24 << 20), cgroup1Max: "2147483648\n"}, gib / 2},
		{"cgroup v1 unlimited", map[string]string{meminfo: mem(8 << 20), cgroup1Max: "9223372036854771712\n"}, 2 * gib},
		{"small machine: the floor", map[string]string{meminfo: mem(512 << 10)}, minMemoryLimit},
		{"nothing to read (not Linux)", nil, minMemoryLimit},
		{"garbage", map[string]string{meminfo: "MemTotal: lots kB\n", cgroup2Max: "-1"}, minMemoryLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := memoryLimit(machine(tc.files)); got != tc.want {
				t.Errorf("memoryLimit = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestPollingCommandsGetTheSoftMemoryLimitUnlessGOMEMLIMITIsSet(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	eight := machine(map[string]string{meminfo: "MemTotal: 8388608 kB\n"})
	debug.SetMemoryLimit(1 << 40)
	limitMemory(func(string) string { return "" }, eight)
	if got := debug.SetMemoryLimit(-1); got != 2<<30 {
		t.Errorf("limit = %d, want %d", got, 2<<30)
	}
	debug.SetMemoryLimit(1 << 40)
	limitMemory(func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }, eight)
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("with GOMEMLIMIT set the limit became %d", got)
	}
	if !polls("heartbeat") || !polls("watch") || polls("build") {
		t.Error("polls names the wrong commands")
	}
}

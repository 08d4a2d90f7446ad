package main

import (
	"bufio"
	"bytes"
	"runtime/debug"
	"strconv"
	"strings"
)

// minMemoryLimit is the least soft memory limit the polling commands get:
// what a 1,000 × 20 catch-up holds of fetched traces for scoring.
const minMemoryLimit = 240 << 20

// memoryShare is the part of the machine's memory the soft limit is set
// to: the limit only makes the runtime collect harder as the heap nears
// it, and a limit under the live heap (a node with a big history) makes
// it collect all the time (docs/decisions.md, "Memory").
const memoryShare = 4

// Files the machine's memory is read from: the cgroup's limit (v2, then
// v1) when the process runs in one, else the physical memory.
const (
	cgroup2Max = "/sys/fs/cgroup/memory.max"
	cgroup1Max = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	meminfo    = "/proc/meminfo"
)

// memoryLimit is the soft memory limit of the commands that poll
// (heartbeat, watch): a quarter of the memory the machine gives the
// process (machineMemory), never less than minMemoryLimit.
func memoryLimit(readFile func(string) ([]byte, error)) int64 {
	return max(machineMemory(readFile)/memoryShare, minMemoryLimit)
}

// machineMemory is the memory the process may use, in bytes: its
// cgroup's limit when one is set, else the machine's physical memory; 0
// when neither can be read (not Linux).
func machineMemory(readFile func(string) ([]byte, error)) int64 {
	total := memTotal(readFile)
	for _, p := range []string{cgroup2Max, cgroup1Max} {
		data, err := readFile(p)
		if err != nil {
			continue
		}
		// cgroup v2 says "max" for no limit; v1 a huge number.
		n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err == nil && n > 0 && (total == 0 || n < total) {
			return n
		}
	}
	return total
}

// memTotal reads MemTotal from /proc/meminfo, in bytes; 0 when absent.
func memTotal(readFile func(string) ([]byte, error)) int64 {
	data, err := readFile(meminfo)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb <= 0 || kb > 1<<43 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// limitMemory sets memoryLimit unless GOMEMLIMIT already says what the
// person wants.
func limitMemory(getenv func(string) string, readFile func(string) ([]byte, error)) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(readFile))
	}
}

// polls reports whether a command polls peers and so holds their traces
// while it scores them.
func polls(command string) bool { return command == "heartbeat" || command == "watch" }

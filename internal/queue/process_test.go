//go:build unix

package queue

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a claiming worker process.
const helperEnv = "MESHNODE_QUEUE_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(claimAll(spec))
	}
	os.Exit(m.Run())
}

// claimAll claims and finishes until the queue is empty and prints each
// ID it got.
func claimAll(spec string) int {
	var path, owner string
	if _, err := fmt.Sscanf(spec, "%s %s", &path, &owner); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	q := Open(path)
	for {
		it, err := claimOne(q, owner, t0, time.Minute, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if it == nil {
			return 0
		}
		fmt.Println(it.ID)
		if err := finish(q, it.ID, owner, it.Version, StatusDone, "scored", t0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

func TestTwoProcessesNeverClaimTheSameItem(t *testing.T) {
	const n = 80
	q, p := newQueue(t)
	var items []Item
	for i := 1; i <= n; i++ {
		items = append(items, item(i))
	}
	if _, err := q.Enqueue(items...); err != nil {
		t.Fatal(err)
	}
	var outs [2]bytes.Buffer
	var cmds [2]*exec.Cmd
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), fmt.Sprintf("%s=%s p%d", helperEnv, p, i))
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], os.Stderr
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
		sc := bufio.NewScanner(&outs[i])
		for sc.Scan() {
			if prev, dup := seen[sc.Text()]; dup {
				t.Errorf("%s claimed by process %d and %d", sc.Text(), prev, i)
			}
			seen[sc.Text()] = i
		}
	}
	if len(seen) != n {
		t.Fatalf("processes claimed %d items, want %d", len(seen), n)
	}
}

// Command shardsizes reports, for each split state of a node, how its
// keys' contents fall into shards (statefile): the keys, the bytes, the
// count of shard files and the largest one, computed from a node's state
// as it is on disk (a file per peer or shards), without writing anything.
//
// -scale N computes it for every key's content N times as large, the
// state of a mesh publishing N times as often (the ledger's open window
// holds N times the records): the contents are not built, each is a
// slice of one shared buffer of its scaled length, which is all a
// shard's size depends on. -write DIR writes the scaled state of the
// first -groups shards of depth 6 of -state for real into DIR with
// statefile.Write, and reports the files it holds, to check the computed
// layout against the one on disk.
//
//	go run ./bench/shardsizes -dir /dev/shm/hist3y
//	go run ./bench/shardsizes -dir /dev/shm/hist3y -scale 30
//	go run ./bench/shardsizes -dir /dev/shm/hist3y -scale 30 -write /dev/shm/grow30 -groups 4
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/statefile"
)

func main() {
	dir := flag.String("dir", ".", "the node's directory")
	scale := flag.Int("scale", 1, "compute for each content this many times as large")
	write := flag.String("write", "", "write the scaled state of -state's first -groups shards of depth 6 into this directory")
	state := flag.String("state", node.LedgerFile, "the state -write writes")
	groups := flag.Int("groups", 4, "how many shards of depth 6 -write writes")
	flag.Parse()
	if err := run(*dir, *scale); err != nil {
		fmt.Fprintln(os.Stderr, "shardsizes:", err)
		os.Exit(1)
	}
	if *write == "" {
		return
	}
	if err := writeScaled(*dir, *state, *scale, *write, *groups); err != nil {
		fmt.Fprintln(os.Stderr, "shardsizes:", err)
		os.Exit(1)
	}
}

func run(dir string, scale int) error {
	fmt.Printf("scale %d\n\n", scale)
	fmt.Println("| state | keys | MB | shard files | largest shard KB | median shard KB |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, f := range append(slices.Clone(node.StateFiles), node.LogPinsFile, node.RelaysFile) {
		if f == node.CopiesFile {
			continue // a file per peer still
		}
		_, files, err := statefile.Read(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		sizes := statefile.ShardSizes(scaled(files, scale))
		total := 0
		for _, s := range sizes {
			total += s
		}
		slices.Sort(sizes)
		largest, median := 0, 0
		if len(sizes) > 0 {
			largest, median = sizes[len(sizes)-1], sizes[len(sizes)/2]
		}
		fmt.Printf("| %s | %d | %.1f | %d | %.0f | %.0f |\n", statefile.Dir(f), len(files), float64(total)/1e6, len(sizes), float64(largest)/1024, float64(median)/1024)
	}
	return nil
}

// scaled returns files with each content scale times as long, each a
// slice of one shared buffer of newlines (a shard's size depends on a
// content's length and last byte only).
func scaled(files map[string][]byte, scale int) map[string][]byte {
	if scale == 1 {
		return files
	}
	longest := 0
	for _, v := range files {
		longest = max(longest, len(v)*scale)
	}
	buf := make([]byte, longest)
	for i := range buf {
		buf[i] = '\n'
	}
	out := make(map[string][]byte, len(files))
	for k, v := range files {
		out[k] = buf[:len(v)*scale]
	}
	return out
}

// writeScaled writes, with statefile.Write, the keys of state under its
// first groups shards of depth 6 (the first byte of a key's sha256,
// modulo 64), each content repeated scale times, into the node directory
// out, and reports the shard files it holds.
func writeScaled(dir, state string, scale int, out string, groups int) error {
	_, files, err := statefile.Read(filepath.Join(dir, state))
	if err != nil {
		return err
	}
	some := map[string][]byte{}
	for k, v := range files {
		if sum := sha256.Sum256([]byte(k)); int(sum[0])%statefile.Shards < groups {
			some[k] = repeat(v, scale)
		}
	}
	path := filepath.Join(out, state)
	if _, err := statefile.Write(path, some); err != nil {
		return err
	}
	entries, err := os.ReadDir(statefile.Dir(path))
	if err != nil {
		return err
	}
	var sizes []int64
	var total int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return err
		}
		sizes = append(sizes, info.Size())
		total += info.Size()
	}
	slices.Sort(sizes)
	computed := statefile.ShardSizes(some)
	fmt.Printf("\nwritten: %s, %d keys of %d shards of depth 6, scale %d: %d files (%d computed), %.1f MB, largest %.0f KB (%.0f computed), median %.0f KB\n",
		statefile.Dir(path), len(some), groups, scale, len(sizes), len(computed), float64(total)/1e6,
		float64(sizes[len(sizes)-1])/1024, float64(slices.Max(computed))/1024, float64(sizes[len(sizes)/2])/1024)
	return nil
}

// repeat returns data scale times over, a newline between copies when
// data does not end in one.
func repeat(data []byte, scale int) []byte {
	out := make([]byte, 0, (len(data)+1)*scale)
	for range scale {
		out = append(out, data...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	return out
}

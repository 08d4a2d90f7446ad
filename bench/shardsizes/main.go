// Command shardsizes reports, for each split state of a node, how its
// keys' contents would fall into shards (statefile): the keys, the bytes,
// and the largest shard, computed from a node's state as it is on disk
// (a file per peer or shards), without writing anything.
//
//	go run ./bench/shardsizes -dir /dev/shm/hist3y
package main

import (
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
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "shardsizes:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	fmt.Println("| state | keys | MB | shards | largest shard KB | median shard KB |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, f := range append(slices.Clone(node.StateFiles), node.LogPinsFile, node.RelaysFile) {
		if f == node.CopiesFile {
			continue // a file per peer still
		}
		_, files, err := statefile.Read(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		sizes := statefile.ShardSizes(files)
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

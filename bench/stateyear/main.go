// Command stateyear simulates the history a node keeps after a mesh of
// agents publishing traces, through the same ledger, state, queue and
// publish code the heartbeat uses, with a fake clock, and prints the
// largest file under mesh-state/ at each save (bench/stateyear.sh). With
// -node it also writes a mesh.yaml, so `meshnode heartbeat --dir` runs on
// the directory: its AGENTS.md lists nobody and the simulated agents are
// not learned peers, so such a heartbeat polls nobody and finds nothing
// new, and costs what the history costs a heartbeat that finds nothing.
//
// What is simulated (docs/decisions.md, "A quiet heartbeat"):
//
//   - Each agent publishes a trace every -trace-every days (staggered by
//     agent), and every day of the last -queue-days: the node records it
//     in the ledger, its cursor and its seen hashes.
//   - Each trace is validated by -votes other agents (the jurors of
//     docs/decisions.md "Assignment"), whose validations the node records
//     in the ledger under the validator, as a poll of them does.
//   - The node publishes -own validations a day of that day's traces:
//     validation files as its scorer writes them, and at each save
//     MANIFEST.md, its archive pages and, with -log-key, the signed log,
//     through publish.Plan and heartbeat.PlanLog, the heartbeat's code.
//   - The queue is worked in the last -queue-days days: the day's traces
//     queued, claimed and settled in one batch each. Settled items leave
//     a week after (queue.SettledRetention), so eight days show its
//     steady size.
//
// State is kept in memory and saved every -save-every days and on the
// last day, as a heartbeat saves it (the ledger compacted first unless
// -compact=false: records past the 90-day window sealed into segments).
// After each save the records just sealed are dropped from memory: they
// are in their segments, which no later save rewrites, so the files
// written are those of a ledger that kept them, and memory follows the
// window, not the years.
//
//	stateyear -agents 1000 -days 365 -dir /tmp/year
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/translog"
)

// sim is what one run simulates.
type sim struct {
	dir        string
	agents     int
	days       int
	saveEvery  int  // days between saves
	compact    bool // seal the ledger's old records at each save
	traceEvery int  // days between an agent's traces before the last queueDays
	queueDays  int  // the last days: every agent publishes, the queue is worked
	votes      int  // validations of each trace by other agents, recorded
	own        int  // validations the node publishes a day
	logKey     string
}

func main() {
	var s sim
	flag.IntVar(&s.agents, "agents", 1000, "agents publishing")
	flag.IntVar(&s.days, "days", 365, "days simulated")
	flag.IntVar(&s.saveEvery, "save-every", 30, "days between saves (the sizes are measured at each save)")
	flag.StringVar(&s.dir, "dir", "", "node directory to write (created)")
	asNode := flag.Bool("node", false, "also write a mesh.yaml, so a heartbeat runs on the directory")
	flag.BoolVar(&s.compact, "compact", true, "seal the ledger's records past its window into segments at each save, as the heartbeat does")
	flag.IntVar(&s.traceEvery, "trace-every", 1, "days between an agent's traces, before the last -queue-days (every day then)")
	flag.IntVar(&s.queueDays, "queue-days", 8, "the last days, in which every agent publishes daily and the queue is worked")
	flag.IntVar(&s.votes, "votes", 0, "validations of each trace by other agents, recorded in the ledger")
	flag.IntVar(&s.own, "own", 0, "validations the node publishes a day")
	keyFile := flag.String("log-key", "", "write a new signing key of the node's log to this file (outside -dir), its public half to IDENTITY.md, and publish the signed log")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if s.dir == "" || s.agents < 2 || s.days < 1 || s.saveEvery < 1 || s.traceEvery < 1 || s.votes >= s.agents {
		log.Fatal("stateyear: -dir is required; -agents at least 2 and above -votes; -days, -save-every and -trace-every at least 1")
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if err := setup(&s, *asNode, *keyFile); err != nil {
		log.Fatal(err)
	}
	if err := s.run(); err != nil {
		log.Fatal(err)
	}
}

// nodeURL is the simulated node's own base URL.
const nodeURL = "https://bench.example/traces/"

// setup makes dir a node: with asNode, a mesh.yaml naming it and an
// AGENTS.md that lists nobody; with a key file, the log's key there and
// its public half in IDENTITY.md.
func setup(s *sim, asNode bool, keyFile string) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	identity := "# IDENTITY\n\nname: bench\n"
	if keyFile != "" {
		origin, err := translog.Origin(nodeURL)
		if err != nil {
			return err
		}
		skey, vkey, err := translog.GenerateKey(origin)
		if err != nil {
			return err
		}
		if err := os.WriteFile(keyFile, []byte(skey+"\n"), 0o600); err != nil {
			return err
		}
		s.logKey = skey
		identity += translog.IdentityKey + ": " + vkey + "\n"
	}
	if err := os.WriteFile(filepath.Join(s.dir, node.IdentityFile), []byte(identity), 0o644); err != nil {
		return err
	}
	if !asNode {
		return nil
	}
	// The node founds the mesh, so its standing and the votes it records
	// count as a founder's do (docs/decisions.md, "Standing").
	founders := fmt.Sprintf("bench | %s\n", nodeURL)
	if err := os.WriteFile(filepath.Join(s.dir, node.FoundersFile), []byte(founders), 0o644); err != nil {
		return err
	}
	cfg := fmt.Sprintf("agent: bench\nurl: %s\n", nodeURL)
	if err := os.WriteFile(filepath.Join(s.dir, node.ConfigFile), []byte(cfg), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.dir, node.AgentsFile), []byte("# name | trace_url | joined\n"), 0o644)
}

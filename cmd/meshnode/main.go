// Command meshnode runs a node of the federated agent mesh: it polls the
// agents it knows, verifies and scores their traces, publishes its own
// work and validations, and builds the static site that serves them.
//
// Output rules: results go to stdout (--json where a command offers it, for
// machines); diagnostics go to stderr prefixed "meshnode:"; logs go through
// log/slog to stderr with the fixed field names peer, url, seq, sha256,
// status and err.
package main

import (
	"context"
	"os"
)

func main() {
	if len(os.Args) > 1 && polls(os.Args[1]) {
		limitMemory(os.Getenv, os.ReadFile)
	}
	ctx, stop := interruptible(context.Background(), os.Stderr)
	code := exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

package meshnode_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// nodeNames are the names of the files a node keeps (internal/node): only
// that package spells them. The published directories (traces/,
// validations/, disputes/) are left out: their names are also the mesh's
// convention for every agent's paths and the names of the site's pages,
// so a literal "traces" says nothing about who owns the layout.
var nodeNames = []string{
	"mesh.yaml", "MANIFEST.md", "IDENTITY.md", "AGENTS.md", "FOUNDERS.md", "mesh-state",
	"polling-cursors", "polling-cursors.json", "ledger", "ledger.json", "queue", "queue.json", "heartbeat.lock",
}

// protocolNames may be spelled by the format package that parses the file
// a peer publishes under that name: the name is the protocol's, not the
// node's (docs/protocol.md §2).
var protocolNames = map[string]string{
	"MANIFEST.md": "internal/manifest/",
	"AGENTS.md":   "internal/roster/",
}

// TestOnlyTheNodePackageNamesTheNodesFiles keeps the node's layout in one
// place: a string literal in any other non-test source that is one of the
// node's names, or a path that starts with one, fails.
func TestOnlyTheNodePackageNamesTheNodesFiles(t *testing.T) {
	for path, text := range repoFiles(t, ".go") {
		if strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, "internal/node/") {
			continue
		}
		for _, lit := range nodeNameLiterals(t, path, text) {
			t.Errorf("%s: the string %s names a node file; use internal/node's constant", lit.pos, lit.value)
		}
	}
}

type literal struct {
	pos   string
	value string
}

// nodeNameLiterals returns the string literals of a Go file that name a
// node file, struct tags aside.
func nodeNameLiterals(t *testing.T, path, text string) []literal {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, text, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	tags := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if fl, ok := n.(*ast.Field); ok && fl.Tag != nil {
			tags[fl.Tag] = true
		}
		return true
	})
	var out []literal
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || tags[lit] {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err == nil && namesNodeFile(path, s) {
			out = append(out, literal{pos: fset.Position(lit.Pos()).String(), value: lit.Value})
		}
		return true
	})
	return out
}

// namesNodeFile reports whether s is a node file's name or a path that
// starts with one; the state's names count only under mesh-state/.
func namesNodeFile(path, s string) bool {
	first, _, _ := strings.Cut(s, "/")
	if first == "mesh-state" {
		return true
	}
	for _, name := range nodeNames[:5] {
		if first != name {
			continue
		}
		if pkg, ok := protocolNames[name]; ok && strings.HasPrefix(path, pkg) {
			return false
		}
		return true
	}
	return false
}

package config

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// alwaysWritten are the keys Marshal writes even at their default.
var alwaysWritten = map[string]bool{"agent": true, "url": true}

// Marshal writes c as a minimal, commented mesh.yaml: agent, url and the
// keys whose value differs from the default, each under a comment saying
// what it means. Load(Marshal(c)) gives c back.
func Marshal(c *Config) []byte {
	root := &yaml.Node{Kind: yaml.MappingNode}
	appendKeys(root, c, Default(), keys, true)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root},
		HeadComment: "mesh.yaml: this node's configuration.\nEvery key, its default and its meaning: docs/config.md in meshnode's repository."}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		// The tree holds only strings, numbers, bools, lists and maps.
		panic(fmt.Sprintf("config: encode mesh.yaml: %v", err))
	}
	enc.Close()
	return buf.Bytes()
}

func appendKeys(m *yaml.Node, c, def *Config, ks []key, top bool) {
	for _, k := range ks {
		if k.leaf == nil {
			sub := &yaml.Node{Kind: yaml.MappingNode}
			appendKeys(sub, c, def, k.sub, false)
			if len(sub.Content) > 0 {
				m.Content = append(m.Content, keyNode(k), sub)
			}
			continue
		}
		v := k.leaf.encode(c)
		if !(top && alwaysWritten[k.name]) && sameValue(v, k.leaf.encode(def)) {
			continue
		}
		vn := &yaml.Node{}
		if err := vn.Encode(v); err != nil {
			panic(fmt.Sprintf("config: encode %s: %v", k.name, err))
		}
		if vn.Kind == yaml.SequenceNode {
			vn.Style = yaml.FlowStyle
		}
		m.Content = append(m.Content, keyNode(k), vn)
	}
}

func keyNode(k key) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: k.name, HeadComment: k.doc}
}

func sameValue(a, b any) bool {
	empty := func(v any) bool {
		rv := reflect.ValueOf(v)
		return (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map) && rv.Len() == 0
	}
	return reflect.DeepEqual(a, b) || (empty(a) && empty(b))
}

// formatDefault writes a default for docs/config.md.
func formatDefault(v any) string {
	rv := reflect.ValueOf(v)
	switch {
	case v == "" || ((rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map) && rv.Len() == 0):
		return "none"
	}
	return fmt.Sprint(v)
}

// Reference returns docs/config.md: every key with its default and meaning,
// generated from the same table that decodes mesh.yaml.
func Reference() []byte {
	var b strings.Builder
	b.WriteString(referenceIntro)
	b.WriteString("| key | default | meaning |\n|-----|---------|---------|\n")
	writeRows(&b, "", keys)
	b.WriteString(referenceOutro)
	return []byte(b.String())
}

func writeRows(b *strings.Builder, prefix string, ks []key) {
	for _, k := range ks {
		if k.leaf == nil {
			writeRows(b, prefix+k.name+".", k.sub)
			continue
		}
		def := k.leaf.def
		if def == "none" || def == "" {
			def = "none"
		} else {
			def = "`" + def + "`"
		}
		fmt.Fprintf(b, "| `%s%s` | %s | %s |\n", prefix, k.name, def, strings.ReplaceAll(k.doc, "|", "\\|"))
	}
}

const referenceIntro = `# mesh.yaml

<!-- Generated from internal/config/keys.go by ` + "`go test ./internal/config -update`" + `; edit there. -->

` + "`mesh.yaml`" + ` sits at the root of the node's directory. ` + "`meshnode init`" + ` writes a
minimal one; every other key takes its default when absent. Nested keys are
written as YAML mappings: ` + "`heartbeat.concurrency: 8`" + ` below means

` + "```yaml" + `
heartbeat:
  concurrency: 8
` + "```" + `

Durations are written like ` + "`90s`, `2m` or `1h`" + `; sizes are bytes. A key left
empty (` + "`lease:`" + `) keeps its default. An unknown key or a bad value stops
every command with the file, line and key, for example
` + "`mesh.yaml:7: heartbeat.concurrency: must be between 1 and 256`" + `.

`

const referenceOutro = `
## url and GITHUB_REPOSITORY

When ` + "`url`" + ` is absent and the environment has ` + "`GITHUB_REPOSITORY=OWNER/REPO`" + `
(as in GitHub Actions), the URL is the repository's GitHub Pages address:
` + "`https://owner.github.io/REPO/`" + ` (the owner lowercased), or ` + "`https://owner.github.io/`" + `
for a repository named ` + "`OWNER.github.io`" + `. Set ` + "`url`" + ` when the site is served
anywhere else.

## Standing

Whether a node may validate (its standing) is not a setting: every node
computes it from the same public files, so that two nodes holding the same
files agree on every SIGNAL, status and standing. The founders named in
` + "`FOUNDERS.md`" + ` have standing from the start; every other agent earns it when
agents with standing have validated enough of its traces to bring its SIGNAL
to 50. ` + "`meshnode init --founder`" + ` writes a new mesh's ` + "`FOUNDERS.md`" + `; a node
joining a mesh copies the mesh's. The rule and why: ` + "`docs/decisions.md`" + `
(Standing). The keys ` + "`standing`" + ` and ` + "`signal`" + ` that mesh.yaml once had are
refused with this explanation.
`

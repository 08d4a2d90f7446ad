package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// nodeRef is a value in mesh.yaml with the dotted key it sits under.
type nodeRef struct {
	*yaml.Node
	path string
}

// lineError is a value problem at a line other than the key's own (an entry
// of a list or map).
type lineError struct {
	line int
	path string
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// decoder walks the YAML tree and collects problems with their positions.
type decoder struct {
	problems []Problem
}

func (d *decoder) add(line int, path, msg string) {
	d.problems = append(d.problems, Problem{Line: line, Key: path, Msg: msg})
}

func (d *decoder) err(name string) error {
	return &Error{File: name, Problems: d.problems, Hint: "see docs/config.md for every key, its default and its meaning"}
}

// mapping decodes a mapping node against the keys allowed at this level.
func (d *decoder) mapping(c *Config, n *yaml.Node, prefix string, allowed []key) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.add(n.Line, strings.TrimSuffix(prefix, "."), "must be a mapping of keys")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		path := prefix + kn.Value
		k, ok := find(allowed, kn.Value)
		switch {
		case !ok && removed[path] != "":
			d.add(kn.Line, path, removed[path])
		case !ok:
			d.add(kn.Line, path, "unknown key"+suggest(allowed, kn.Value))
		case seen[kn.Value]:
			d.add(kn.Line, path, "given twice")
		default:
			seen[kn.Value] = true
			d.value(c, k, kn, vn, path)
		}
	}
}

func (d *decoder) value(c *Config, k key, kn, vn *yaml.Node, path string) {
	if k.leaf == nil {
		d.mapping(c, vn, path+".", k.sub)
		return
	}
	if vn.Kind == yaml.ScalarNode && vn.Tag == "!!null" {
		return // "key:" with no value keeps the default
	}
	if vn.Kind == yaml.AliasNode {
		d.add(vn.Line, path, "aliases are not supported")
		return
	}
	err := k.leaf.decode(c, &nodeRef{Node: vn, path: path})
	if le, ok := err.(*lineError); ok {
		d.add(le.line, le.path, le.msg)
	} else if err != nil {
		d.add(kn.Line, path, err.Error())
	}
}

func find(ks []key, name string) (key, bool) {
	for _, k := range ks {
		if k.name == name {
			return k, true
		}
	}
	return key{}, false
}

// suggest names the allowed key a misspelt one is closest to.
func suggest(ks []key, name string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(s))
	}
	for _, k := range ks {
		if norm(k.name) == norm(name) {
			return fmt.Sprintf(" (did you mean %s?)", k.name)
		}
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.name
	}
	return " (known keys here: " + strings.Join(names, ", ") + ")"
}

package node

import "strings"

// IdentityUnfilled reports whether a value of IDENTITY.md is no value: empty,
// or one of the template's parenthesised placeholders ("(the person
// responsible for this node)") that 'meshnode init' writes for a field
// nobody answered. doctor warns about such fields and the site shows them
// as not filled in, both through this one test.
func IdentityUnfilled(value string) bool {
	v := strings.TrimSpace(value)
	return v == "" || strings.HasPrefix(v, "(")
}

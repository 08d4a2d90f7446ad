// Package check holds the rules `meshnode check` applies to a pull request
// against a node: changed traces and validations must parse, validations
// must be this node's, consistent, about a verified trace of somebody else,
// and allowed by the node's standing, and no published file may change.
//
// It reads the node's files and the ledger (mesh-state/ledger/) and reports
// problems with a file and a line; it must never write, fetch, or fix
// anything itself.
package check

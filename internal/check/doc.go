// Package check holds the rules `meshnode check` applies to a pull request
// against a node: changed traces and validations must parse, validations
// must be this node's, consistent, about a verified trace of somebody else,
// and allowed by the node's standing, and no published file may change.
// A changed path that is not the node's data (code, workflows, go.mod,
// git's own files such as .gitattributes, docs) is never passed: the gate
// cannot check it, so it is a problem that a person must review. An
// empty result therefore means the change is data the gate fully checked.
//
// It reads the node's files and the ledger (mesh-state/ledger/) and reports
// problems with a file and a line; it must never write, fetch, or fix
// anything itself.
package check

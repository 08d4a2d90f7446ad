// Package setup turns a directory into a node (Init, behind `meshnode
// init`) and checks that a node works (Doctor, behind `meshnode doctor`).
//
// Init writes only the four files a new node starts from (mesh.yaml,
// IDENTITY.md, MANIFEST.md, AGENTS.md), never overwrites one without
// Force, and never prompts unless the caller hands it a Prompt function.
// Doctor only reads: it must never write into the node's directory, and
// it reaches the network only through internal/fetch.
package setup

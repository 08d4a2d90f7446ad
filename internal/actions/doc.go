// Package actions speaks the small file-and-stdout protocol of GitHub
// Actions: workflow commands (annotations), the job summary file and step
// outputs. It escapes everything it writes, because the text (peer names,
// URLs, error messages) comes from peers.
//
// It only formats and appends to the files the runner names in its
// environment; it never calls the GitHub API and holds no meshnode logic.
package actions

// Package site builds the node's static site, the GitHub Pages half of a
// node: it copies every published file (MANIFEST.md, IDENTITY.md,
// AGENTS.md, FOUNDERS.md, traces/, validations/, disputes/) byte for byte,
// and renders HTML pages, SVG charts, Atom feeds, a sitemap and
// robots.txt beside them. It also serves that site for a local preview.
//
// What the pages say comes from the packages that own each concept:
// traces, validations and disputes are read by internal/trace,
// internal/validation and internal/dispute; peers' traces and validations
// by internal/ledger (mesh-state/ledger/); presence by internal/presence;
// SIGNAL, tiers and each trace's status by internal/signal; the node's name
// and URL by internal/config (mesh.yaml), falling back to MANIFEST.md's
// when the node has no mesh.yaml.
//
// It reads local files only and must never touch the network. Traces come
// from strangers: raw HTML in them is never rendered and only http, https,
// mailto and relative links reach a page. Unchanged bytes are never
// rewritten, so an unchanged rebuild keeps every mtime. Outputs are
// regenerable and written by rename without fsync (writeRegenerable); the
// build cache in the marker file, which guards the deletion of stale
// files, goes through internal/atomicfile.
package site

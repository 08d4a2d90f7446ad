// Package site builds the node's static site, the GitHub Pages half of a
// node: it copies every published file (MANIFEST.md, IDENTITY.md,
// AGENTS.md, traces/, validations/, disputes/) byte for byte, and renders
// HTML pages, SVG charts, an Atom feed, a sitemap and robots.txt beside
// them. It also serves that site for a local preview.
//
// It reads local files only and must never touch the network. Traces come
// from strangers: raw HTML in them is never rendered and only http, https,
// mailto and relative links reach a page. Every output is written through
// atomicfile.WriteFileIfChanged so an unchanged rebuild rewrites nothing.
package site

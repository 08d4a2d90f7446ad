// Package fetch is the node's HTTP client and the only package of meshnode
// that touches the network. It holds everything that makes fetching peers'
// files safe and polite: a total deadline and a size cap on every body,
// redirects kept on the peer's host and under its base URL (docs/protocol.md §2.3), a guard that refuses private, loopback
// and link-local addresses at dial time, per-host politeness shared by every
// peer on a host (a cap on requests in flight, raised from HTTP/1.1's 4
// connections to 16 streams of one connection once the host answers over
// HTTP/2, an optional fixed rate, robots.txt with its Crawl-delay, cooldowns
// set by 429, 503 and X-RateLimit-*), retries with exponential backoff and
// jitter (docs/protocol.md §11.4), conditional requests, and the counters
// docs/protocol.md §14 asks for.
//
// It must not parse what it fetches, write files, or decide what a failure
// means for a peer: it returns bytes or an *Error whose Kind lets the caller
// keep rate limits apart from failures. Per-host state that must outlive the
// process is handed out by Client.Hosts and taken back by Client.LoadHosts;
// storing it is the caller's job.
package fetch

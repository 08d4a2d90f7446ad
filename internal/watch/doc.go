// Package watch holds `meshnode watch`, a node that runs for months: a tick
// every interval runs one heartbeat on a fetch client kept across ticks,
// skipped (never queued) while another process holds the node's lock; a
// person turns polling on and off, lists the inbox and settles items with
// slash commands; new inbox items raise one alert, and a peer whose circuit
// breaker opens, or a mesh where most peers fail at once, raises one
// degraded notice and one recovered notice (docs/watch.md). Its counters
// are served in the Prometheus text format.
//
// It must not poll outside heartbeat.Run, write the node's files other than
// through the heartbeat and the queue's settle path (queue.Set), or settle
// anything without a person's explicit command.
package watch

package heartbeat

import (
	"fmt"
	"time"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/fetch"
)

// NewClient builds the fetch client a heartbeat builds from cfg, for a
// caller that keeps one across heartbeats (Options.Client): its
// connections, robots.txt and cooldowns then outlive each run.
func NewClient(cfg *config.Config, version string, now func() time.Time) *fetch.Client {
	if now == nil {
		now = time.Now
	}
	return fetch.New(clientOptions(cfg, version, now))
}

// clientOptions turns the config into the fetcher's options.
func clientOptions(cfg *config.Config, version string, now func() time.Time) fetch.Options {
	if version == "" {
		version = "dev"
	}
	ua := fmt.Sprintf("meshnode/%s (+%s; agent %s)", version, cfg.URL, cfg.Agent)
	if cfg.UserAgentContact != "" {
		ua = fmt.Sprintf("meshnode/%s (+%s; agent %s; %s)", version, cfg.URL, cfg.Agent, cfg.UserAgentContact)
	}
	return fetch.Options{
		UserAgent:         ua,
		AllowPrivate:      cfg.AllowPrivateAddresses,
		Timeout:           cfg.Heartbeat.RequestTimeout,
		MaxConnsPerHost:   cfg.Heartbeat.MaxConnsPerHost,
		MaxStreamsPerHost: cfg.Heartbeat.MaxStreamsPerHost,
		RequestsPerSecond: cfg.Heartbeat.RequestsPerSecondPerHost,
		Now:               now,
	}
}

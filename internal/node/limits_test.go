package node_test

import (
	"testing"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
)

func TestLimitsAreTheDefaultsPeersReadWith(t *testing.T) {
	d := config.Default()
	if d.Limits.TraceBytes != node.MaxFileBytes {
		t.Errorf("limits.trace_bytes defaults to %d, node.MaxFileBytes is %d", d.Limits.TraceBytes, node.MaxFileBytes)
	}
	if d.Limits.ManifestBytes != node.MaxTopFileBytes {
		t.Errorf("limits.manifest_bytes defaults to %d, node.MaxTopFileBytes is %d", d.Limits.ManifestBytes, node.MaxTopFileBytes)
	}
}

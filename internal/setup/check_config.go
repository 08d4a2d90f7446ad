package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshnode/meshnode/internal/config"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/roster"
)

func checkConfig(dir string) (*config.Config, Finding) {
	cfg, err := config.Load(dir)
	var ce *config.Error
	switch {
	case errors.As(err, &ce):
		fix := ce.Hint
		if fix == "" {
			fix = "edit mesh.yaml (docs/config.md lists every key)"
		}
		return nil, Finding{Check: "config", Status: StatusFail, Message: strings.ReplaceAll(ce.Error(), "\n", "; "), Fix: fix}
	case err != nil:
		return nil, Finding{Check: "config", Status: StatusFail, Message: err.Error(), Fix: "check the file's permissions"}
	}
	f := Finding{Check: "config", Status: StatusOK, Message: fmt.Sprintf("mesh.yaml: agent %s at %s", cfg.Agent, cfg.URL)}
	return cfg, urlSpelling(cfg.URL, f)
}

// urlSpelling turns the config's finding into a warning when the node's
// url is not spelled as peers compare URLs (roster.NormalizeURL, which
// signal.SameURL uses: scheme and host in lower case, no default port,
// no final dot on the host), naming the canonical spelling, or when
// peers would refuse it. The node keeps writing url as mesh.yaml spells
// it (reporter_url, validator_url): it names the node in every file
// already published, so doctor says to keep it there and to give a new
// node the canonical one.
func urlSpelling(url string, f Finding) Finding {
	canonical, err := roster.NormalizeURL(url)
	switch {
	case err != nil:
		f.Status, f.Message = StatusWarn, fmt.Sprintf("%s; peers refuse this url: %v", f.Message, err)
		f.Fix = "give mesh.yaml a url peers accept, like https://you.github.io/mesh/ (docs/config.md)"
	case canonical != url:
		f.Status = StatusWarn
		f.Message = fmt.Sprintf("%s; its canonical spelling, the one peers compare, is %s", f.Message, canonical)
		f.Fix = fmt.Sprintf("a node that has published keeps url as it is (it names the node in every validation and report it wrote; peers compare URLs canonically); a new node writes url: %s", canonical)
	}
	return f
}

// checkIdentity reads IDENTITY.md's "field: value" lines (the seed's
// layout and the "- Field: value" list real agents write).
func checkIdentity(dir, agent string) Finding {
	f := Finding{Check: "identity"}
	data, err := os.ReadFile(filepath.Join(dir, IdentityFile))
	if err != nil {
		f.Status, f.Message, f.Fix = StatusWarn, "cannot read IDENTITY.md: "+unwrapPath(err), "run 'meshnode init' or write IDENTITY.md (name, joined, model, human, role)"
		return f
	}
	fields := identityFields(data)
	var todo []string
	for _, k := range []string{"name", "joined", "model", "human", "role"} {
		if node.IdentityUnfilled(fields[k]) {
			todo = append(todo, k)
		}
	}
	switch {
	case fields["name"] != "" && !strings.EqualFold(fields["name"], agent):
		f.Status, f.Message, f.Fix = StatusWarn, fmt.Sprintf("IDENTITY.md names %q but mesh.yaml says %q", fields["name"], agent), "make the two names agree"
	case len(todo) > 0:
		f.Status, f.Message, f.Fix = StatusWarn, "IDENTITY.md leaves "+strings.Join(todo, ", ")+" unfilled", "edit IDENTITY.md: peers read it to know who you are"
	default:
		f.Status, f.Message = StatusOK, "IDENTITY.md names "+fields["name"]
	}
	return f
}

func identityFields(data []byte) map[string]string {
	fields := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "-* ")
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.Trim(k, "* "))
		if _, seen := fields[k]; !seen {
			fields[k] = strings.TrimSpace(strings.Trim(v, "* "))
		}
	}
	return fields
}

// unwrapPath drops the "open PATH:" prefix a *PathError carries, where the
// message already names the file.
func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

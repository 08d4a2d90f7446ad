package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// The workflows a node runs on GitHub Actions.
const (
	WorkflowDir       = ".github/workflows"
	HeartbeatWorkflow = "heartbeat.yml" // scheduled: the heartbeat of docs/protocol.md §6
	CheckWorkflow     = "check.yml"     // pull requests: meshnode check
)

// workflow is the part of a GitHub Actions workflow doctor reads. yaml.v3
// reads the key "on" as the string "on" (YAML 1.2), not as true.
type workflow struct {
	On   yaml.Node      `yaml:"on"`
	Jobs map[string]any `yaml:"jobs"`
}

func checkWorkflows(dir string) []Finding {
	return []Finding{
		checkWorkflow(dir, HeartbeatWorkflow, true),
		checkWorkflow(dir, CheckWorkflow, false),
	}
}

func checkWorkflow(dir, name string, scheduled bool) Finding {
	f := Finding{Check: "workflow " + name}
	rel := WorkflowDir + "/" + name
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		f.Status, f.Message = StatusFail, "cannot read "+rel+": "+unwrapPath(err)
		f.Fix = "copy " + rel + " from the meshnode template repository (docs/setup.md)"
		return f
	}
	if err := validWorkflow(data, scheduled); err != nil {
		f.Status, f.Message, f.Fix = StatusFail, rel+": "+err.Error(), "restore "+rel+" from the meshnode template repository"
		return f
	}
	if !scheduled {
		if err := gateTrigger(data); err != nil {
			f.Status, f.Message = StatusFail, rel+": "+err.Error()
			f.Fix = "restore " + rel + " from the meshnode template repository, which runs on pull_request_target (docs/github.md, \"check.yml\")"
			return f
		}
	}
	f.Status, f.Message = StatusOK, rel+" is valid"
	if scheduled {
		f.Message += " and scheduled"
	}
	return f
}

// gateTrigger checks that the pull-request gate runs from the base branch:
// on pull_request, GitHub takes the workflow and the code it builds from
// the pull request, which can then pass its own check.
func gateTrigger(data []byte) error {
	var w workflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		return err
	}
	triggers := map[string]bool{}
	switch w.On.Kind {
	case yaml.ScalarNode:
		triggers[w.On.Value] = true
	case yaml.SequenceNode, yaml.MappingNode:
		for i, n := range w.On.Content {
			if w.On.Kind == yaml.SequenceNode || i%2 == 0 {
				triggers[n.Value] = true
			}
		}
	}
	switch {
	case triggers["pull_request"]:
		return fmt.Errorf("runs on pull_request, so a pull request's own code and workflow run the check it must pass")
	case !triggers["pull_request_target"]:
		return fmt.Errorf("no pull_request_target trigger, so pull requests are not checked")
	}
	return nil
}

func validWorkflow(data []byte, scheduled bool) error {
	var w workflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("not valid YAML: %w", err)
	}
	if w.On.Kind == 0 {
		return fmt.Errorf("no \"on:\" triggers")
	}
	if len(w.Jobs) == 0 {
		return fmt.Errorf("no jobs")
	}
	if scheduled && !hasSchedule(&w.On) {
		return fmt.Errorf("no \"schedule:\" trigger with a cron, so it never runs on its own")
	}
	return nil
}

// hasSchedule reports whether the "on" node holds schedule: [{cron: ...}].
func hasSchedule(on *yaml.Node) bool {
	var triggers struct {
		Schedule []struct {
			Cron string `yaml:"cron"`
		} `yaml:"schedule"`
	}
	if on.Kind != yaml.MappingNode || on.Decode(&triggers) != nil {
		return false
	}
	for _, s := range triggers.Schedule {
		if strings.TrimSpace(s.Cron) != "" {
			return true
		}
	}
	return false
}

package site

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// stagePrefix names the hidden directory a cold build is written in.
const stagePrefix = ".meshnode-stage-"

// A stage is where a site is built when its output directory is absent
// or empty (a cold build). Each file is written straight to its name in a
// hidden directory inside out, which no reader looks at, and each
// top-level entry is then renamed into out: a reader still never sees
// half a page, nor half of traces/, and the build skips what a rebuild
// pays per file to stay atomic (looking the name up, a temporary file, a
// rename), a tenth of the work of a cold build of 10,000 traces.
type stage struct {
	out, dir string
	// chmod is whether a new file needs its mode set after its create:
	// only when the umask or a default ACL takes bits off sitePerm.
	chmod bool
}

func newStage(out string) (*stage, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", out, ErrOutUnusable, err)
	}
	dir, err := os.MkdirTemp(out, stagePrefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", out, ErrOutUnusable, err)
	}
	chmod, err := modeNeedsSetting(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w: %w", out, ErrOutUnusable, err)
	}
	return &stage{out: out, dir: dir, chmod: chmod}, nil
}

// modeNeedsSetting creates a file in dir to see whether the umask (or a
// default ACL) leaves a new file sitePerm as it was asked for: then no
// file of the stage, in dir or below it, needs a chmod after its create.
func modeNeedsSetting(dir string) (bool, error) {
	p := filepath.Join(dir, ".mode-probe")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, sitePerm)
	if err != nil {
		return true, fmt.Errorf("probe the mode of new files: %w", err)
	}
	fi, err := f.Stat()
	f.Close()
	if rerr := os.Remove(p); err == nil {
		err = rerr
	}
	if err != nil {
		return true, fmt.Errorf("probe the mode of new files: %w", err)
	}
	return fi.Mode().Perm() != sitePerm, nil
}

// write renders o into the stage: a published file as a hard link to the
// node's file (a copy where linking fails or the file was edited since
// Load, see linkAs), a page as a new file.
func (s *stage) write(o output) (bool, error) {
	buf := getBuffer()
	defer putBuffer(buf)
	data, err := o.Render(buf)
	if err != nil {
		return false, err
	}
	p := filepath.Join(s.dir, filepath.FromSlash(o.Path))
	if o.Source != "" && linkAs(o.Source, p, data) == nil {
		return true, nil
	}
	return true, create(p, data, s.chmod)
}

// publish moves every top-level entry of the stage into out, then removes
// the stage.
func (s *stage) publish() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("read stage: %w", err)
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(s.dir, e.Name()), filepath.Join(s.out, e.Name())); err != nil {
			return fmt.Errorf("move %s into place: %w", e.Name(), err)
		}
	}
	if err := os.Remove(s.dir); err != nil {
		return fmt.Errorf("remove stage: %w", err)
	}
	return nil
}

// discard removes what is left of the stage; after publish, nothing is.
func (s *stage) discard() {
	_ = os.RemoveAll(s.dir)
}

// isStage reports whether a name in out is a stage an interrupted build
// left behind, which the next build may delete.
func isStage(name string) bool {
	return strings.HasPrefix(name, stagePrefix)
}

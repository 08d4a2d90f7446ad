package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/meshnode/meshnode/internal/heartbeat"
	"github.com/meshnode/meshnode/internal/ledger"
	"github.com/meshnode/meshnode/internal/node"
	"github.com/meshnode/meshnode/internal/publish"
)

// save writes what the node holds as a heartbeat does: the cursors, the
// ledger (compacted first unless compact is false), then MANIFEST.md,
// its archive pages and the signed log; and reports the state files.
func (w *world) save(d int) error {
	before, err := stamps(w.dir)
	if err != nil {
		return err
	}
	cursors := filepath.Join(w.dir, filepath.FromSlash(node.CursorsFile))
	if _, err := w.st.Save(cursors, time.Time{}); err != nil {
		return err
	}
	if w.compact {
		if err := w.led.Compact(w.now); err != nil {
			return err
		}
	}
	if _, err := w.led.Save(filepath.Join(w.dir, filepath.FromSlash(node.LedgerFile))); err != nil {
		return err
	}
	if w.compact {
		w.led = unsealed(w.led, w.now)
	}
	if err := w.publishOwn(); err != nil {
		return err
	}
	return report(w.dir, d, before)
}

// publishOwn publishes the node's new files as the heartbeat does:
// publish.Plan over a snapshot, the archive pages and MANIFEST.md, then
// the signed log of the same rows when the node has a key.
func (w *world) publishOwn() error {
	// Our MANIFEST.md and published files only, as publishing needs:
	// the ledger is not read.
	snap, err := node.Open(w.dir, node.Options{Own: true})
	if err != nil {
		return err
	}
	res, err := publish.Plan(snap, publish.Options{Agent: "bench", URL: nodeURL, Now: w.now, RefreshUpdated: true})
	if err != nil {
		return err
	}
	var lu *heartbeat.LogUpdate
	if w.logKey != "" {
		if lu, err = heartbeat.PlanLog(snap, nodeURL, snap.RowsWith(res.Manifest, res.Archived), w.logKey); err != nil {
			return err
		}
	}
	if _, err := snap.WriteManifest(res.Manifest, res.Archived); err != nil {
		return err
	}
	_, err = lu.Write(w.dir)
	return err
}

// unsealed is a ledger of l's records that Compact at now left in their
// peers' files: those it sealed are in segments no later save rewrites,
// and a record of the simulation is never added to a quarter already
// sealed (it is dated the day it is made), so a later Compact seals the
// same quarters, and Save writes the same files, as with l whole.
func unsealed(l *ledger.Ledger, now time.Time) *ledger.Ledger {
	cut := now.Add(-ledger.Window)
	open := func(t time.Time) bool { return quarterEnd(t).After(cut) }
	out := ledger.New()
	for _, t := range l.Traces {
		if open(t.FirstSeen) {
			out.AddTrace(t)
		}
	}
	for _, v := range l.Validations {
		if open(v.ValidatedAt) {
			out.AddValidation(v)
		}
	}
	return out
}

// quarterEnd is when the calendar quarter (UTC) holding t ends.
func quarterEnd(t time.Time) time.Time {
	u := t.UTC()
	first := time.Month((int(u.Month())-1)/3*3 + 1)
	return time.Date(u.Year(), first+3, 1, 0, 0, 0, 0, time.UTC)
}

// stamp is what says a file was written: its size and modification time.
type stamp struct {
	size int64
	mod  time.Time
}

// stamps is the stamp of every file under dir's mesh-state/.
func stamps(dir string) (map[string]stamp, error) {
	out := map[string]stamp{}
	err := filepath.WalkDir(filepath.Join(dir, node.StateDir), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = stamp{fi.Size(), fi.ModTime()}
		return nil
	})
	return out, err
}

// report prints the day, the number of state files, their total size,
// the largest, the bytes of the files the save wrote (those whose stamp
// differs from before), and our MANIFEST.md's size.
func report(dir string, day int, before map[string]stamp) error {
	after, err := stamps(dir)
	if err != nil {
		return err
	}
	var total, largest, wrote int64
	var name string
	for p, s := range after {
		total += s.size
		if s.size > largest || (s.size == largest && p < name) {
			largest, name = s.size, p
		}
		if before[p] != s {
			wrote += s.size
		}
	}
	rel, _ := filepath.Rel(dir, name)
	var mf int64
	if fi, err := os.Stat(filepath.Join(dir, node.ManifestFile)); err == nil {
		mf = fi.Size()
	}
	fmt.Printf("day %d: %d state files, %.1f MB in all, largest %s %.1f KB; this save wrote %.1f MB; MANIFEST.md %.1f KB\n",
		day, len(after), float64(total)/1e6, rel, float64(largest)/1e3, float64(wrote)/1e6, float64(mf)/1e3)
	// Shown as it goes when stdout is a file; a pipe cannot be synced.
	_ = os.Stdout.Sync()
	return nil
}

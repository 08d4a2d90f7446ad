// Package pgtest starts a throwaway PostgreSQL server for tests: initdb
// into a temporary directory, pg_ctl start listening on a unix socket in
// that directory only (no TCP port), stopped and removed when the test
// ends. As root it runs the server as an unprivileged user (initdb and
// postgres refuse root). Where the binaries are absent the test is
// skipped with a message saying what to install (docs/queue.md).
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running test server.
type Server struct {
	dir string // the data directory's parent, also the socket directory
	n   atomic.Int64
}

// Start starts a server for t and stops it when t ends; it skips t when
// PostgreSQL is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		t.Skipf("PostgreSQL is not installed, so the PostgreSQL tests are skipped (%v); install it with apt-get install postgresql", err)
	}
	run, chown, err := asUnprivileged()
	if err != nil {
		t.Skipf("cannot run PostgreSQL here: %v", err)
	}
	dir, err := os.MkdirTemp("", "meshnode-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := chown(dir); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if out, err := run(dir, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
		"--no-locale", "-E", "UTF8", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	pgctl := filepath.Join(bin, "pg_ctl")
	opts := fmt.Sprintf("-k %s -c listen_addresses='' -F -c max_connections=200", dir)
	if out, err := run(dir, pgctl, "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		if out, err := run(dir, pgctl, "-D", data, "-m", "immediate", "-w", "stop"); err != nil {
			t.Errorf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	return &Server{dir: dir}
}

// DSN returns the connection string of database db on s.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("host=%s port=5432 user=postgres dbname=%s sslmode=disable", s.dir, db)
}

// NewDatabase creates an empty database on s and returns its DSN.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("test%d", s.n.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return s.DSN(name)
}

// binDir finds initdb and pg_ctl: Debian keeps them in
// /usr/lib/postgresql/<version>/bin, the newest version first; elsewhere
// they are on PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if executable(filepath.Join(d, "initdb")) && executable(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		return "", fmt.Errorf("no initdb in /usr/lib/postgresql/*/bin or on PATH")
	}
	d := filepath.Dir(initdb)
	if !executable(filepath.Join(d, "pg_ctl")) {
		return "", fmt.Errorf("no pg_ctl beside %s", initdb)
	}
	return d, nil
}

func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// asUnprivileged returns how to run a command as a user PostgreSQL
// accepts, and how to give that user a directory: as root, through
// runuser as postgres (Debian's package creates it) or else nobody;
// otherwise as the current user.
func asUnprivileged() (run func(dir, name string, args ...string) ([]byte, error), chown func(string) error, err error) {
	plain := func(dir, name string, args ...string) ([]byte, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.Bytes(), err
	}
	if os.Geteuid() != 0 {
		return plain, func(string) error { return nil }, nil
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		return nil, nil, fmt.Errorf("running as root without runuser to drop privileges: %w", err)
	}
	var u *user.User
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if u == nil {
		return nil, nil, fmt.Errorf("running as root and neither user postgres nor nobody exists")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	asUser := func(dir, name string, args ...string) ([]byte, error) {
		return plain(dir, runuser, append([]string{"-u", u.Username, "--", name}, args...)...)
	}
	return asUser, func(dir string) error { return os.Chown(dir, uid, gid) }, nil
}

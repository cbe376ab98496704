package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// host is a local host (infra/local) started as a process on a fresh data directory.
type host struct {
	URL    string
	APIKey string
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan error
}

var (
	listeningLine = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	apiKeyLine    = regexp.MustCompile(`API key\s+(\S+)`)
)

// buildHost compiles ./infra/local of the module at root into dir.
func buildHost(ctx context.Context, root, dir string) (string, error) {
	exe := filepath.Join(dir, "evalapi-local")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", exe, "./infra/local")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./infra/local: %w\n%s", err, out)
	}
	return exe, nil
}

// startHost runs exe on 127.0.0.1 with a free port (PORT=0) and an empty data directory,
// and waits until it prints its address and the first start's API key.
func startHost(ctx context.Context, exe, dataDir string) (*host, error) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "PORT=0", "DATA_DIR="+dataDir, "LOG_LEVEL=ERROR")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h := &host{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = h.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if m := apiKeyLine.FindStringSubmatch(line); m != nil && h.APIKey == "" {
				h.APIKey = m[1]
			}
			if m := listeningLine.FindStringSubmatch(line); m != nil && h.URL == "" {
				h.URL = m[1]
				close(found)
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	go func() { h.done <- cmd.Wait() }()
	select {
	case <-found:
	case err := <-h.done:
		return nil, fmt.Errorf("local host exited before listening: %v\n%s", err, h.stderr.String())
	case <-time.After(60 * time.Second):
		h.stop()
		return nil, errors.New("local host did not listen within 60 s")
	case <-ctx.Done():
		h.stop()
		return nil, ctx.Err()
	}
	if h.APIKey == "" { // printed before the address, on a fresh data directory
		h.stop()
		return nil, errors.New("local host printed no API key (is the data directory fresh?)")
	}
	return h, nil
}

// stop asks the host to shut down (SIGINT, as Ctrl-C) and kills it after 15 s.
func (h *host) stop() error {
	h.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-h.done:
		return err
	case <-time.After(15 * time.Second):
		h.cmd.Process.Kill()
		return errors.New("local host did not stop within 15 s; killed")
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 { // keep the head: the first errors say the most
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// isLoopback reports whether u is an http URL of 127.0.0.1.
func isLoopback(u string) bool {
	return strings.HasPrefix(u, "http://127.0.0.1:") || u == "http://127.0.0.1"
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// binDir holds the host binary that the tests of this package build; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "evalapi-local-*")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildHost builds this command once per test binary, as `go run ./infra/local` would.
var buildHost = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "local")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", errors.New("go build: " + err.Error() + "\n" + string(out))
	}
	return bin, nil
})

// host is a local host running as a separate process.
type host struct {
	URL    string
	cmd    *exec.Cmd
	stdout syncBuffer // the terminal: start line, first-start credentials
	stderr syncBuffer // the JSON log
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

// configVars are the variables of the service that a developer's shell may hold; the host
// under test gets only the ones a test sets.
var configVars = []string{"TABLE_NAME", "SECRETS_PREFIX", "JWT_SECRET_ARN", "API_KEY_PEPPER_ARN",
	"DYNAMODB_ENDPOINT", "SECRETSMANAGER_ENDPOINT", "LOG_LEVEL", "ACCESS_TOKEN_TTL", "REFRESH_TOKEN_TTL",
	"ALLOW_PRIVATE_PROVIDER_ENDPOINTS", "PORT", "DATA_DIR", "ADMIN_EMAIL", "ADMIN_PASSWORD"}

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// startHost starts the local host with env (KEY=value) on a free port and waits until it
// answers the healthcheck. t.Cleanup stops it, whatever the test does.
func startHost(t *testing.T, env ...string) *host {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: builds and starts the local host")
	}
	bin, err := buildHost()
	if err != nil {
		t.Fatal(err)
	}
	h := &host{cmd: exec.Command(bin), exited: make(chan struct{})}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(configVars, k) {
			h.cmd.Env = append(h.cmd.Env, kv)
		}
	}
	// PORT=0: the host picks a free port and prints it, so no other process can take the
	// port between choosing it and binding it.
	h.cmd.Env = append(h.cmd.Env, "PORT=0")
	h.cmd.Env = append(h.cmd.Env, env...)
	h.cmd.Stderr = &h.stderr
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.stdout.Write(append(sc.Bytes(), '\n'))
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		io.Copy(&h.stdout, out)
		h.err = h.cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() { h.stop(t) })

	select {
	case h.URL = <-urls:
	case <-h.exited:
		t.Fatalf("the host exited before listening: %v\nstdout:\n%s\nstderr:\n%s", h.err, h.stdout.String(), h.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("the host did not listen within 30 s\nstdout:\n%s\nstderr:\n%s", h.stdout.String(), h.stderr.String())
	}
	return h
}

// stop interrupts the host as Ctrl-C does and expects a clean exit.
func (h *host) stop(t *testing.T) {
	t.Helper()
	select {
	case <-h.exited:
		return
	default:
	}
	if err := h.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Errorf("interrupt: %v", err)
	}
	select {
	case <-h.exited:
		if h.err != nil {
			t.Errorf("the host did not exit cleanly on SIGINT: %v\nstderr:\n%s", h.err, h.stderr.String())
		}
	case <-time.After(15 * time.Second):
		h.cmd.Process.Kill()
		<-h.exited
		t.Errorf("the host did not stop within 15 s of SIGINT\nstderr:\n%s", h.stderr.String())
	}
	if t.Failed() {
		t.Logf("host stdout:\n%s\nhost stderr:\n%s", h.stdout.String(), h.stderr.String())
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

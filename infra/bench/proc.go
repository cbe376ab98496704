package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proc is a server started as a process on 127.0.0.1, its output in files of dir.
type proc struct {
	name    string
	URL     string
	Startup time.Duration // exec → first healthcheck 200 (see start)
	cmd     *exec.Cmd
	out     string // stdout file
	log     string // stderr file
	done    chan error
	once    sync.Once
	stopErr error
}

// start execs exe with env on a free port of 127.0.0.1 (PORT) and waits for its first
// healthcheck 200. The start-up timer starts just before the fork/exec (cmd.Start) and stops
// once the body of the first 200 of GET /v2/healthcheck is read; the healthcheck is polled
// every 200 µs over new connections, so the figure is late by at most about that.
func start(ctx context.Context, name, exe, dir string, env, args []string) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p := &proc{name: name, URL: "http://127.0.0.1:" + strconv.Itoa(port), done: make(chan error, 1),
		out: filepath.Join(dir, name+".out"), log: filepath.Join(dir, name+".log")}
	stdout, err := os.Create(p.out)
	if err != nil {
		return nil, err
	}
	defer stdout.Close()
	stderr, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	defer stderr.Close()
	p.cmd = exec.Command(exe, args...)
	// A copy: env is reused from start to start. Output to files, which the child writes itself.
	p.cmd.Env = slices.Concat(env, []string{"PORT=" + strconv.Itoa(port)})
	p.cmd.Stdout, p.cmd.Stderr = stdout, stderr

	poll := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	t0 := time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.done <- p.cmd.Wait() }()
	deadline := t0.Add(60 * time.Second)
	for {
		if ok := healthy(ctx, poll, p.URL); ok {
			p.Startup = time.Since(t0)
			return p, nil
		}
		select {
		case err := <-p.done:
			return nil, fmt.Errorf("%s exited before answering: %v\n%s", name, err, p.tail())
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Microsecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s did not answer the healthcheck within 60 s\n%s", name, p.tail())
		}
	}
}

func healthy(ctx context.Context, c *http.Client, base string) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v2/healthcheck", nil)
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK
}

// stdout is what the process printed so far.
func (p *proc) stdout() string {
	b, _ := os.ReadFile(p.out)
	return string(b)
}

// tail is the end of its stdout and stderr, for errors.
func (p *proc) tail() string {
	s := p.stdout()
	if b, err := os.ReadFile(p.log); err == nil {
		s += string(b)
	}
	if len(s) > 4000 {
		s = "..." + s[len(s)-4000:]
	}
	return s
}

// stop sends SIGINT (the servers shut down gracefully on it) and kills after 15 s; once.
func (p *proc) stop() error {
	p.once.Do(func() {
		p.cmd.Process.Signal(os.Interrupt)
		select {
		case p.stopErr = <-p.done:
		case <-time.After(15 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
			p.stopErr = fmt.Errorf("%s did not stop within 15 s; killed", p.name)
		}
	})
	return p.stopErr
}

// cpu is the CPU time (user + system, all threads) the process has used so far.
func (p *proc) cpu() (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux ABI.
const clockTick = 10 * time.Millisecond

// parseStatCPU reads utime + stime (fields 14 and 15) of a /proc/<pid>/stat line. The
// command name (field 2) may hold spaces and parentheses, so fields count from its last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("/proc stat: no command name")
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, errors.New("/proc stat: too few fields")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc stat: %w", err)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// freePort asks the kernel for a free port of 127.0.0.1. (Another process could take it
// before the server binds it; the server then fails to listen and start says so.)
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// cleanEnv is the environment without the variables the benchmark sets or that would point
// the host elsewhere (emulator endpoints, a log level: the host runs at its default).
func cleanEnv(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, d := range drop {
			if k == d {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

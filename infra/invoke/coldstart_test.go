package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app/groups"
)

// BenchmarkColdStart times each function binary from process start to its first answered
// event, the healthcheck, handed over by a stand-in of the Lambda Runtime API that has it
// ready when the function first asks. The binaries are built once with the flags of
// `make build` and `sam build` (-tags lambda.norpc -ldflags "-s -w" -trimpath, static) for
// the host's architecture. ns/op is the mean; p50-ms and p90-ms the median and 90th
// percentile of the runs.
//
// It also checks that the cold start and the healthcheck open no network connection: every
// process gets HTTPS_PROXY and HTTP_PROXY pointing at a listener that counts connections
// (the AWS SDK's HTTP client honours them), and any connection fails the benchmark. Init
// reads the configuration from the environment only; the one secret, the token signing
// key, is fetched on first use and cached (shared/app/cloud.go).
func BenchmarkColdStart(b *testing.B) {
	root, err := apitest.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	event, err := os.ReadFile(filepath.Join(root, "events", "healthcheck.json"))
	if err != nil {
		b.Fatal(err)
	}
	bin := b.TempDir()
	for _, name := range groups.Names() {
		cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-ldflags", "-s -w", "-trimpath",
			"-o", filepath.Join(bin, name), "./functions/"+name)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", name, err, out)
		}
	}
	var connections atomic.Int64
	proxy := countingListener(b, &connections)
	rt := newColdRuntime(b, event)
	for _, name := range groups.Names() {
		b.Run(name, func(b *testing.B) {
			env := append(cloudEnv(rt.addr), "HTTPS_PROXY=http://"+proxy, "HTTP_PROXY=http://"+proxy, "NO_PROXY=")
			var took []time.Duration
			for b.Loop() {
				resp, d := rt.run(b, filepath.Join(bin, name), env)
				took = append(took, d)
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("healthcheck: %d %s", resp.StatusCode, resp.Body)
				}
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
			b.ReportMetric(ms(took[(len(took)*9)/10]), "p90-ms")
			if n := connections.Load(); n > 0 {
				b.Fatalf("%d network connection(s) during cold start and healthcheck; init must make none", n)
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// countingListener accepts connections on 127.0.0.1, counts them and closes them.
func countingListener(b *testing.B, n *atomic.Int64) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// coldRuntime is the part of the Lambda Runtime API a cold start uses: the first
// /invocation/next of a process gets the event at once, its response ends the run.
type coldRuntime struct {
	addr      string
	event     []byte
	responses chan []byte
}

func newColdRuntime(b *testing.B, event []byte) *coldRuntime {
	rt := &coldRuntime{event: event, responses: make(chan []byte, 1)}
	var seq atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Lambda-Runtime-Aws-Request-Id", fmt.Sprintf("cold-%d", seq.Add(1)))
		w.Header().Set("Lambda-Runtime-Deadline-Ms", fmt.Sprint(time.Now().Add(FunctionTimeout).UnixMilli()))
		w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:000000000000:function:evalapi-test")
		w.Write(rt.event)
	})
	answer := func(prefix string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			w.WriteHeader(http.StatusAccepted)
			rt.responses <- append([]byte(prefix), body...)
		}
	}
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", answer(""))
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", answer("invocation error: "))
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", answer("init error: "))
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	rt.addr = strings.TrimPrefix(srv.URL, "http://")
	return rt
}

// run starts exe, waits for its first answer and kills it (which Lambda does to an idle
// instance, in its own time); took is from the start to the answer.
func (rt *coldRuntime) run(b *testing.B, exe string, env []string) (resp events.APIGatewayV2HTTPResponse, took time.Duration) {
	start := time.Now()
	cmd := exec.Command(exe)
	cmd.Env = env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	var body []byte
	select {
	case body = <-rt.responses:
		took = time.Since(start)
	case <-time.After(30 * time.Second):
		b.Fatalf("%s did not answer within 30 s; output:\n%s", exe, out.String())
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		b.Fatalf("%s answered %s: %v", exe, body, err)
	}
	return resp, took
}

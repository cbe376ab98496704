package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app/groups"
)

// TestFunctionBinaries builds every functions/<group> main and runs it as Lambda would: a
// separate process that takes the healthcheck event from a stand-in of the Lambda Runtime
// API. It covers what the in-process runner cannot: each main's wiring, the cloud
// configuration read from the environment, and the JSON log lines with Lambda's request id.
func TestFunctionBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the six functions")
	}
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	event, err := os.ReadFile(filepath.Join(root, "events", "healthcheck.json"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, name := range groups.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exe := filepath.Join(bin, name)
			cmd := exec.Command("go", "build", "-o", exe, "./functions/"+name)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			checkDocsCarried(t, exe, name == "docs")
			rt := newFakeRuntime(t)
			var stdout bytes.Buffer
			fn := startFunction(t, exe, cloudEnv(rt.addr), &stdout)

			id := uuid.NewString()
			body := rt.invoke(t, id, event)
			var resp events.APIGatewayV2HTTPResponse
			if err := json.Unmarshal(body, &resp); err != nil {
				t.Fatalf("response %s: %v", body, err)
			}
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Body, `{"api_version":"v2","message":"ok","version":"`) {
				t.Errorf("response = %d %s", resp.StatusCode, resp.Body)
			}
			fn.stop()
			if !strings.Contains(stdout.String(), `"requestId":"`+id+`"`) {
				t.Error("no JSON log line carries the invocation's requestId")
			}
			if t.Failed() {
				t.Logf("function output:\n%s", stdout.String())
			}
		})
	}
}

// TestFunctionInitFailure checks that a function without its configuration stops at init,
// naming what is missing.
func TestFunctionInitFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a function")
	}
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "identity")
	cmd := exec.Command("go", "build", "-o", exe, "./functions/identity")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rt := newFakeRuntime(t)
	var env []string
	for _, kv := range cloudEnv(rt.addr) {
		if !strings.HasPrefix(kv, "TABLE_NAME=") {
			env = append(env, kv)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, exe)
	run.Env = env
	out, err := run.CombinedOutput()
	if err == nil {
		t.Fatal("the function started without TABLE_NAME")
	}
	if !strings.Contains(string(out), "TABLE_NAME") {
		t.Errorf("init failure does not name TABLE_NAME:\n%s", out)
	}
}

// cloudEnv is the environment Lambda and template.yaml give a function, with AWS
// credentials that are never used: the healthcheck makes no AWS call.
func cloudEnv(runtimeAPI string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"AWS_LAMBDA_RUNTIME_API=" + runtimeAPI,
		"AWS_LAMBDA_LOG_FORMAT=JSON",
		"AWS_LAMBDA_LOG_LEVEL=INFO",
		"AWS_LAMBDA_FUNCTION_NAME=evalapi-test",
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true",
		"TABLE_NAME=evalapi-test-Table",
		"SECRETS_PREFIX=evalapi/test/",
		"JWT_SECRET_ARN=arn:aws:secretsmanager:us-east-1:000000000000:secret:jwt",
		"LOG_LEVEL=INFO",
	}
}

// function is a function process; stop kills it (Lambda freezes and kills, it never asks).
type function struct {
	cmd  *exec.Cmd
	once sync.Once
}

func startFunction(t *testing.T, exe string, env []string, stdout io.Writer) *function {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Env = env
	cmd.Stdout = stdout
	cmd.Stderr = stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &function{cmd: cmd}
	t.Cleanup(f.stop)
	return f
}

func (f *function) stop() {
	f.once.Do(func() {
		f.cmd.Process.Kill()
		f.cmd.Wait()
	})
}

// fakeRuntime is the part of the Lambda Runtime API that aws-lambda-go's loop calls.
type fakeRuntime struct {
	addr      string
	next      chan invocation
	responses chan []byte
}

type invocation struct {
	id      string
	payload []byte
}

func newFakeRuntime(t *testing.T) *fakeRuntime {
	rt := &fakeRuntime{next: make(chan invocation), responses: make(chan []byte, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		select {
		case inv := <-rt.next:
			w.Header().Set("Lambda-Runtime-Aws-Request-Id", inv.id)
			w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(FunctionTimeout).UnixMilli(), 10))
			w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:000000000000:function:evalapi-test")
			w.Header().Set("Lambda-Runtime-Trace-Id", "Root=1-65f0c0de-0123456789abcdef01234567;Sampled=0")
			w.Write(inv.payload)
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		rt.responses <- b
	})
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		rt.responses <- append([]byte("invocation error: "), b...)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	rt.addr = strings.TrimPrefix(srv.URL, "http://")
	return rt
}

// invoke hands the function one event and returns what it answered.
func (rt *fakeRuntime) invoke(t *testing.T, id string, payload []byte) []byte {
	t.Helper()
	select {
	case rt.next <- invocation{id: id, payload: payload}:
	case <-time.After(30 * time.Second):
		t.Fatal("the function did not ask for an invocation within 30 s")
	}
	select {
	case b := <-rt.responses:
		return b
	case <-time.After(30 * time.Second):
		t.Fatal("the function did not answer within 30 s")
	}
	return nil
}

// checkDocsCarried: only the docs function's binary carries the API page's viewer and the
// OpenAPI document (see infra's TestDocsOnlyInItsFunction).
func checkDocsCarried(t *testing.T, exe string, want bool) {
	t.Helper()
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := os.ReadFile(filepath.Join(root, "shared", "docs", "assets", "rapidoc-min.js.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for what, marker := range map[string][]byte{
		"the RapiDoc bundle":   viewer[len(viewer)/2 : len(viewer)/2+64],
		"the OpenAPI document": []byte("title: Evaluation and Observability Service API"),
	} {
		if got := bytes.Contains(bin, marker); got != want {
			t.Errorf("binary carries %s: %v, want %v", what, got, want)
		}
	}
}

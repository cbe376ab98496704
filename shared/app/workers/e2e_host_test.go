package workers_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// e2eHost is the local host's wiring in-process, as `make run` builds it: every group on
// one router, the table's stream feeding the evaluation dispatcher, the evaluator judging
// with the real judge, and the experiment runner behind its local queue. Providers on
// loopback are allowed (the tests' stub provider). Answers and log lines are kept for the
// canary checks.
type e2eHost struct {
	t       *testing.T
	d       app.Deps
	admin   auth.BootstrapResult
	rt      http.Handler
	stream  *local.Stream
	eval    *queue.Local
	runs    *local.Queue
	logs    syncBuffer
	answers syncBuffer
}

func newE2EHost(t *testing.T) *e2eHost {
	t.Helper()
	h := &e2eHost{t: t}
	cfg, err := app.ReadConfig(app.Local, func(k string) string {
		if k == "ALLOW_PRIVATE_PROVIDER_ENDPOINTS" {
			return "true"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	onCommit := func(c []embedded.Change) {
		mu.Lock()
		defer mu.Unlock()
		if h.stream != nil {
			h.stream.OnCommit(c)
		}
	}
	d, closeDeps, err := local.Open(t.Context(), cfg, slog.New(slog.NewJSONHandler(&h.logs, nil)), local.Options{DataDir: t.TempDir(), OnCommit: onCommit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeDeps() })
	t.Cleanup(d.Auth.Wait)
	h.admin = apptest.Admin(t, d)
	ec := workers.EvalConfig{QuietPeriod: time.Minute, MaxReceiveCount: 5}
	h.eval = local.Evaluation(d, workers.LLMJudge(d), ec)
	model, prices := workers.ExperimentModels(d)
	h.runs = local.NewQueue(workers.ExperimentRunner(d, model, nil, prices).HandleChunk, 5, d.Log)
	d.ExperimentQueue = h.runs
	mu.Lock()
	h.stream = local.NewStream(workers.Stream(d, h.eval, ec), d.Log)
	mu.Unlock()
	t.Cleanup(func() { h.runs.Close(); h.stream.Close(); h.eval.Close() })
	var regs []app.Register
	for _, g := range groups.All() {
		regs = append(regs, g.Register)
	}
	h.d, h.rt = d, app.NewRouter(d, regs...)
	return h
}

// do sends a request as the admin and decodes a 200 answer into into (when not nil).
func (h *e2eHost) do(method, path, body string, into any) {
	h.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Service-API-Key", h.admin.APIKey.RevealString())
	rec := httptest.NewRecorder()
	h.rt.ServeHTTP(rec, req)
	_, _ = h.answers.Write(rec.Body.Bytes())
	if rec.Code != http.StatusOK {
		h.t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
	}
	if into != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
			h.t.Fatalf("%s %s: %v: %s", method, path, err, rec.Body.String())
		}
	}
}

// drain waits until the experiment runner, the stream and the evaluation queue are idle:
// each feeds the next, so a few rounds.
func (h *e2eHost) drain() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 4*time.Minute)
	defer cancel()
	for range 4 {
		h.runs.Wait()
		h.stream.Wait()
		if err := h.eval.Wait(ctx); err != nil {
			h.t.Fatalf("evaluation queue not drained: %v", err)
		}
	}
}

// syncBuffer is a sink safe for the workers' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

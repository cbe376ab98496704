package integrations

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/base"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

var testNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// harness is the group mounted on a router over an embedded table, with two organizations
// to act as, secrets in a tracked store, and every response and log line kept for the
// canary scan. Every response is checked against docs/openapi.yaml.
type harness struct {
	t          *testing.T
	tbl        *faultyTable
	sec        *trackedSecrets
	rt         *httpapi.Router
	v          *apitest.V
	org, other authtest.Org
	clock      atomic.Int64 // seconds after testNow
	logs       *syncBuffer

	mu        sync.Mutex
	responses []string // status, headers and body of every response
}

type options struct {
	secrets      secrets.Store // default: memory
	allowPrivate bool
	timeout      time.Duration
}

func newHarness(t *testing.T, o options) *harness {
	t.Helper()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &harness{t: t, tbl: &faultyTable{Table: db}, v: apitest.Validator(t), logs: &syncBuffer{}}
	if o.secrets == nil {
		o.secrets = secrets.NewMemory()
	}
	h.sec = &trackedSecrets{Store: o.secrets, live: map[string]bool{}}
	log := slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	env := authtest.New(t, h.tbl, auth.Config{Logger: log})
	h.rt = httpapi.NewRouter(log)
	Register(h.rt, Deps{Deps: base.Deps{Table: h.tbl, Authenticate: env.Service.Authenticate, Log: log, Now: func() time.Time { return testNow.Add(time.Duration(h.clock.Load()) * time.Second) }}, Secrets: h.sec, Discoverer: &Discoverer{AllowPrivate: o.allowPrivate, Timeout: o.timeout}})
	h.org, h.other = env.Org(t), env.Org(t)
	return h
}

// do sends a request as who (nil: without credentials) and returns the status and body. It
// is safe to call from several goroutines.
func (h *harness) do(who *authtest.User, method, path, body string) (int, string) {
	rec := authtest.Do(h.t, h.rt, h.v, who, method, path, body)
	var head bytes.Buffer
	_ = rec.Header().Write(&head)
	h.mu.Lock()
	h.responses = append(h.responses, head.String()+"\n"+rec.Body.String())
	h.mu.Unlock()
	return rec.Code, rec.Body.String()
}

// put writes who's integration of provider and returns the response, failing on non-200.
func (h *harness) put(who *authtest.User, provider, body string) integration {
	h.t.Helper()
	code, resp := h.do(who, "PUT", "/v2/integrations/"+provider, body)
	if code != http.StatusOK {
		h.t.Fatalf("put %s: %d %s", provider, code, resp)
	}
	var in integration
	if err := json.Unmarshal([]byte(resp), &in); err != nil {
		h.t.Fatal(err)
	}
	return in
}

func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("response is not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Fatalf("body\n got %s\nwant %s", gb, wb)
	}
}

// syncBuffer collects log lines from concurrent handlers.
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

// trackedSecrets knows which secrets are live, and can be made to fail.
type trackedSecrets struct {
	secrets.Store
	failPut atomic.Bool
	mu      sync.Mutex
	live    map[string]bool // refs put and not deleted
}

var errInjected = errors.New("injected failure")

func (s *trackedSecrets) Put(ctx context.Context, name string, value []byte, tags map[string]string) (string, error) {
	if s.failPut.Load() {
		return "", errInjected
	}
	ref, err := s.Store.Put(ctx, name, value, tags)
	if err == nil {
		s.mu.Lock()
		s.live[ref] = true
		s.mu.Unlock()
	}
	return ref, err
}

func (s *trackedSecrets) Delete(ctx context.Context, ref string) error {
	err := s.Store.Delete(ctx, ref)
	if err == nil {
		s.mu.Lock()
		delete(s.live, ref)
		s.mu.Unlock()
	}
	return err
}

func (s *trackedSecrets) liveRefs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for ref := range s.live {
		out = append(out, ref)
	}
	return out
}

// faultyTable fails the writes of integration records on demand, and counts the reads the
// list's cost is checked with.
type faultyTable struct {
	store.Table
	failWrites        atomic.Bool
	queries, batchGet atomic.Int64
}

func (f *faultyTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	f.queries.Add(1)
	return f.Table.Query(ctx, q)
}

func (f *faultyTable) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	f.batchGet.Add(1)
	return f.Table.BatchGet(ctx, keys, consistent)
}

func (f *faultyTable) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	if f.failWrites.Load() && it[store.AttrEntity] == store.EntityIntegration {
		return errInjected
	}
	return f.Table.Put(ctx, it, conds...)
}

func (f *faultyTable) Transact(ctx context.Context, ops []store.Op) error {
	if f.failWrites.Load() {
		for _, op := range ops {
			if op.Item[store.AttrEntity] == store.EntityIntegration {
				return errInjected
			}
		}
	}
	return f.Table.Transact(ctx, ops)
}

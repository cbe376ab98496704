package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretsfault"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/store/storecount"
	"github.com/evalobs/evalapi/shared/store/storefault"
)

// The performance tests (bench_test.go, budget_test.go) share what the event tests do: the
// events under events/, their expectations, the fixture and the real Lambda adapter. They
// add a store that counts round trips and the fixture admin's API key, since HTTP Basic
// (what the events carry) costs one argon2id hash, ~35 ms, and hides the handler's cost.

// perfEvent is one event file and a function that serves it.
type perfEvent struct {
	rel    string // events/<rel>, slash-separated
	fn     string
	name   string // rel, with "@fn" for a top-level event served by every function
	raw    []byte
	method string
	want   Expected
}

// perfEvents lists every event under events/ with the function(s) it goes to, as TestEvents
// does: the benchmark and the budgets follow new operations without a hand list.
func perfEvents(tb testing.TB) []perfEvent {
	tb.Helper()
	root, err := apitest.ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(root, "events")
	files, problems, err := eventFiles(dir)
	if err != nil {
		tb.Fatal(err)
	}
	if len(problems) > 0 {
		tb.Fatalf("events/: %s", strings.Join(problems, "; "))
	}
	var out []perfEvent
	for _, rel := range files {
		if strings.HasPrefix(filepath.ToSlash(rel), "workers/") {
			continue // worker events (TestWorkerEvents): no HTTP request to measure
		}
		path := filepath.Join(dir, rel)
		raw, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		e, err := DecodeEvent(raw)
		if err != nil {
			tb.Fatalf("events/%s: %v", rel, err)
		}
		var want Expected
		if err := readJSON(strings.TrimSuffix(path, ".json")+ExpectedSuffix, &want); err != nil {
			tb.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		targets := groups.Names()
		g, _, nested := strings.Cut(rel, "/")
		if nested {
			if _, ok := groups.Find(g); !ok {
				tb.Fatalf("events/%s: %q is not an operation group", rel, g)
			}
			targets = []string{g}
		}
		for _, fn := range targets {
			name := rel
			if !nested {
				name += "@" + fn
			}
			out = append(out, perfEvent{rel: rel, fn: fn, name: name, raw: raw,
				method: e.RequestContext.HTTP.Method, want: want})
		}
	}
	return out
}

// mutating reports whether the event may change the store (so that a repeat of it may answer
// differently from its first run).
func (e perfEvent) mutating() bool {
	switch e.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// perfFixture is the fixture of the event tests behind a counting store, plus an API key of
// the fixture's admin.
type perfFixture struct {
	d       app.Deps
	count   *storecount.Table
	apiKey  string
	closeFn func() error
	slow    *slowTable
}

// perfSeed is the fixture seeded once, with the admin's API key made, for every perfFixture
// of the binary: seeding costs two argon2id hashes at the service's parameters (the admin's
// password, then its check when the key is made through POST /v2/api_keys), ~0.1 s, and
// BenchmarkEvents and TestRoundTripBudgets take a fresh fixture for each of ~300 runs.
// The admin keeps the service's hash: BenchmarkEvents' Basic column measures it.
var perfSeed = sync.OnceValues(func() (*perfSeedState, error) {
	ctx := context.Background()
	cfg, err := app.ReadConfig(app.Local, func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	log := app.JSONLogger(io.Discard, slog.LevelError)
	base, closeFn, err := local.Open(ctx, cfg, log, local.Options{Memory: true})
	if err != nil {
		return nil, err
	}
	defer closeFn()
	// Every write goes through the recorders, so that the snapshot holds all of them.
	ft, fs := storefault.New(base.Table), secretsfault.New(base.Secrets)
	d, err := app.NewDeps(base.Config, log, ft, fs)
	if err != nil {
		return nil, err
	}
	d.ExperimentQueue = &local.HeldQueue{}
	if err := seed(ctx, d); err != nil {
		return nil, err
	}
	key, err := createAPIKey(d)
	if err != nil {
		return nil, err
	}
	snap := &snapshot{cfg: base.Config, items: map[store.Key]store.Item{}, secrets: map[string][]byte{}}
	if err := snap.read(ctx, ft.Inner(), ft.Written(), fs.Inner(), append(fs.Written(), cfg.JWTSecretARN)); err != nil {
		return nil, err
	}
	return &perfSeedState{snap: snap, apiKey: key}, nil
})

type perfSeedState struct {
	snap   *snapshot
	apiKey string
}

// newPerfFixture is a fresh in-memory store holding perfSeed's snapshot. latency, when
// positive, delays every store call by that much, so that calls a handler makes
// concurrently overlap in the count's depth however fast the embedded store answers
// (DynamoDB takes milliseconds).
func newPerfFixture(tb testing.TB, latency time.Duration) *perfFixture {
	tb.Helper()
	f, err := openPerfFixture(latency)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// openPerfFixture is newPerfFixture for goroutines other than the test's.
func openPerfFixture(latency time.Duration) (*perfFixture, error) {
	ctx := context.Background()
	seeded, err := perfSeed()
	if err != nil {
		return nil, fmt.Errorf("seed the fixture: %w", err)
	}
	db, err := embedded.OpenMemory()
	if err != nil {
		return nil, err
	}
	if err := db.BatchWrite(ctx, slices.Collect(maps.Values(seeded.snap.items)), nil); err != nil {
		db.Close()
		return nil, fmt.Errorf("copy the fixture: %w", err)
	}
	mem := secrets.NewMemory()
	for ref, v := range seeded.snap.secrets {
		if _, err := mem.Put(ctx, ref, v, nil); err != nil {
			db.Close()
			return nil, fmt.Errorf("copy the fixture's secrets: %w", err)
		}
	}
	// The copy is written at full speed; the delay applies from then on.
	slow := &slowTable{Table: db}
	count := storecount.New(slow)
	d, err := app.NewDeps(seeded.snap.cfg, app.JSONLogger(io.Discard, slog.LevelError), count, mem) // auth counted too
	if err != nil {
		db.Close()
		return nil, err
	}
	d.ExperimentQueue = &local.HeldQueue{} // experiments start on the held queue
	slow.latency.Store(int64(latency))
	return &perfFixture{d: d, count: count, apiKey: seeded.apiKey, closeFn: db.Close, slow: slow}, nil
}

func (f *perfFixture) close() error {
	f.d.Auth.Wait() // its after-response writes need the store open
	return f.closeFn()
}

// createAPIKey makes an API key for the fixture's admin through POST /v2/api_keys, as a
// client would.
func createAPIKey(d app.Deps) (string, error) {
	h := app.NewRouter(d, groups.Identity)
	req := httptest.NewRequest(http.MethodPost, "/v2/api_keys", strings.NewReader(`{"description":"perf"}`))
	req.Header.Set("Authorization", FixtureAuthorization)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out struct {
		APIKey string `json:"api_key"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil || out.APIKey == "" {
		return "", fmt.Errorf("create API key: %d %s", rec.Code, rec.Body.String())
	}
	d.Auth.Wait()
	return out.APIKey, nil
}

// withAPIKey is raw with the fixture's Basic credentials replaced by key (header
// Service-API-Key); ok is false when the event does not act as the fixture's admin (an
// unauthenticated request, a login).
func withAPIKey(raw []byte, key string) ([]byte, bool, error) {
	var ev map[string]any
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, false, err
	}
	headers, _ := ev["headers"].(map[string]any)
	found := false
	for k, v := range headers {
		if strings.EqualFold(k, "authorization") && v == FixtureAuthorization {
			delete(headers, k)
			found = true
		}
	}
	if !found {
		return raw, false, nil
	}
	headers["service-api-key"] = key
	out, err := json.Marshal(ev)
	return out, true, err
}

// currentUserEvent is GET /v2/current_user with key: the warm-up of the key cache (it reads,
// and changes nothing the measured event sees).
func currentUserEvent(key string) []byte {
	e := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "GET /v2/current_user", RawPath: "/v2/current_user",
		Headers: map[string]string{"service-api-key": key, "accept": "application/json"}}
	e.RequestContext.HTTP.Method = http.MethodGet
	e.RequestContext.HTTP.Path = e.RawPath
	e.RequestContext.DomainName = "abcdef1234.execute-api.us-east-1.amazonaws.com"
	raw, _ := json.Marshal(e)
	return raw
}

// warm authenticates one request with the API key, so that the key is in the cache.
func (f *perfFixture) warm(ctx context.Context) error {
	resp, err := newLambdaCall(f.d, "identity").invoke(ctx, currentUserEvent(f.apiKey))
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("warm-up GET /v2/current_user: %d %s", resp.StatusCode, resp.Body)
	}
	f.d.Auth.Wait()
	return err
}

// lambdaCall is one invocation as the Lambda runtime makes it: the event's JSON decoded, the
// handler (built once, at cold start) called, the response encoded.
type lambdaCall struct {
	fn      string
	handler app.ProxyFunc
}

func newLambdaCall(d app.Deps, fn string) lambdaCall {
	g, _ := groups.Find(fn)
	return lambdaCall{fn: fn, handler: app.Proxy(app.NewRouter(WithWorkers(d), g.Register))}
}

func (c lambdaCall) invoke(ctx context.Context, raw []byte) (events.APIGatewayV2HTTPResponse, error) {
	var e events.APIGatewayV2HTTPRequest
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&e); err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, FunctionTimeout)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "perf",
		InvokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:evalapi-" + c.fn})
	resp, err := c.handler(ctx, e)
	if err != nil {
		return resp, err
	}
	_, err = json.Marshal(resp)
	return resp, err
}

// slowTable delays every call by latency (nanoseconds; 0 at first), standing in for the
// network between Lambda and DynamoDB.
type slowTable struct {
	store.Table
	latency atomic.Int64
}

func (s *slowTable) wait() {
	if d := time.Duration(s.latency.Load()); d > 0 {
		time.Sleep(d)
	}
}

func (s *slowTable) Get(ctx context.Context, key store.Key, consistent bool) (store.Item, error) {
	s.wait()
	return s.Table.Get(ctx, key, consistent)
}

func (s *slowTable) Put(ctx context.Context, item store.Item, conds ...store.Cond) error {
	s.wait()
	return s.Table.Put(ctx, item, conds...)
}

func (s *slowTable) Delete(ctx context.Context, key store.Key, conds ...store.Cond) error {
	s.wait()
	return s.Table.Delete(ctx, key, conds...)
}

func (s *slowTable) Update(ctx context.Context, u store.Update) (store.Item, error) {
	s.wait()
	return s.Table.Update(ctx, u)
}

func (s *slowTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	s.wait()
	return s.Table.Query(ctx, q)
}

func (s *slowTable) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	s.wait()
	return s.Table.BatchGet(ctx, keys, consistent)
}

func (s *slowTable) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	s.wait()
	return s.Table.BatchWrite(ctx, puts, deletes)
}

func (s *slowTable) Transact(ctx context.Context, ops []store.Op) error {
	s.wait()
	return s.Table.Transact(ctx, ops)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/local"
)

// BenchmarkHostPaths times the two paths of `make bench-http` (docs/PERFORMANCE.md, "HTTP
// paths") on the local host's router, in-process: the same deps as the host on a fresh
// embedded store, the same fixture (a dataset of 100 rows of two 65-byte texts, a log
// stream with two scorers), the default log level (to io.Discard). No sockets and no
// net/http server: what remains is the router, the middleware, authentication, the store
// and the encoding, with exact bytes and allocations per request.
//
//	go test -run '^$' -bench HostPaths -benchmem ./infra/local/
func BenchmarkHostPaths(b *testing.B) {
	h := newBenchHost(b)
	for _, p := range []struct {
		name, path string
		header     http.Header
	}{
		{"content", "/v2/datasets/" + h.datasetID + "/content?limit=100", http.Header{"Service-Api-Key": {h.apiKey}}},
		{"metric_settings", "/v2/projects/" + h.projectID + "/log_streams/" + h.logStreamID + "/metric_settings",
			http.Header{"Authorization": {"Bearer " + h.bearer}}},
	} {
		b.Run(p.name, func(b *testing.B) {
			p.header.Set("Accept", "application/json")
			w := &discardWriter{}
			serve := func() {
				r := httptest.NewRequest(http.MethodGet, p.path, nil)
				r.Header = p.header
				w.reset()
				h.rt.ServeHTTP(w, r)
				if w.status != http.StatusOK {
					b.Fatalf("GET %s: %d", p.path, w.status)
				}
			}
			serve()
			b.ReportAllocs()
			for b.Loop() {
				serve()
			}
			b.ReportMetric(float64(w.n), "body-bytes")
		})
	}
}

type benchHost struct {
	rt                                                http.Handler
	apiKey, bearer, datasetID, projectID, logStreamID string
}

func newBenchHost(b *testing.B) benchHost {
	ctx := context.Background()
	env := map[string]string{"ADMIN_EMAIL": "bench@example.com", "ADMIN_PASSWORD": "bench-Password-0123456789"}
	getenv := func(k string) string { return env[k] }
	cfg, err := app.ReadConfig(app.Local, getenv)
	if err != nil {
		b.Fatal(err)
	}
	d, closeDeps, err := local.Open(ctx, cfg, app.JSONLogger(io.Discard, cfg.LogLevel), local.Options{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Auth.Wait(); closeDeps() })
	var out bytes.Buffer
	if err := local.Bootstrap(ctx, d, getenv, &out); err != nil {
		b.Fatal(err)
	}
	var all []app.Register
	for _, g := range groups.All() {
		all = append(all, g.Register)
	}
	h := benchHost{rt: app.NewRouter(d, all...)}
	m := apiKeyLine.FindStringSubmatch(out.String())
	if m == nil {
		b.Fatalf("no API key in %q", out.String())
	}
	h.apiKey = m[1]
	call := func(method, path, contentType, body string) []byte {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Service-API-Key", h.apiKey)
		r.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		h.rt.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	create := func(method, path string, v any) string {
		body, _ := json.Marshal(v)
		var id struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(call(method, path, "application/json", string(body)), &id); err != nil {
			b.Fatal(err)
		}
		return id.ID
	}
	// As infra/bench's seed: 100 rows of two 65-byte texts, two of the demo's scorers.
	rows := make([][]any, 100)
	for i := range rows {
		rows[i] = []any{benchText(i), benchText(i + 100)}
	}
	h.datasetID = create(http.MethodPost, "/v2/datasets", map[string]any{"name": "bench", "column_names": []string{"input", "output"}, "rows": rows})
	h.projectID = create(http.MethodPost, "/v2/projects", map[string]any{"name": "bench"})
	h.logStreamID = create(http.MethodPost, "/v2/projects/"+h.projectID+"/log_streams", map[string]any{"name": "production"})
	scorers, _ := json.Marshal(map[string]any{"scorers": []map[string]any{
		{"id": uuid.NewString(), "name": "correctness", "scorer_type": "llm", "output_type": "percentage", "roll_up_method": "average"},
		{"id": uuid.NewString(), "name": "toxicity", "scorer_type": "luna", "output_type": "boolean", "roll_up_method": "percentage_true"},
	}})
	call(http.MethodPatch, "/v2/projects/"+h.projectID+"/log_streams/"+h.logStreamID+"/metric_settings", "application/json", string(scorers))
	form := url.Values{"username": {env["ADMIN_EMAIL"]}, "password": {env["ADMIN_PASSWORD"]}}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(call(http.MethodPost, "/login", "application/x-www-form-urlencoded", form.Encode()), &tok); err != nil {
		b.Fatal(err)
	}
	h.bearer = tok.AccessToken
	return h
}

func benchText(i int) string {
	s := fmt.Sprintf("row %d: the model answered a question about billing with a short polite summary", i)
	return s[:65]
}

// discardWriter is a ResponseWriter that keeps the status and the length of the body.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) reset() {
	if w.h == nil {
		w.h = http.Header{}
	}
	clear(w.h)
	w.status, w.n = 0, 0
}

func (w *discardWriter) Header() http.Header { return w.h }

func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

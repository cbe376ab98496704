// Package httpapi is the HTTP contract every operation shares: routing on net/http's
// ServeMux, JSON in and out, the error bodies of the original service, request ids and one
// access-log line per request. The same Router serves in Lambda, in the local host and in
// tests.
package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
)

// HandlerFunc is an operation: it writes its answer, or returns the error to answer with.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Middleware wraps an operation (authentication, for one).
type Middleware func(HandlerFunc) HandlerFunc

// Router is the ServeMux of one or more operation groups with the shared middleware.
type Router struct {
	mux      *http.ServeMux
	log      *slog.Logger
	patterns []string
	handlers map[string]HandlerFunc // the operation of each pattern, unwrapped
}

// NewRouter returns an empty router that logs to log.
func NewRouter(log *slog.Logger) *Router {
	return &Router{mux: http.NewServeMux(), log: log, handlers: map[string]HandlerFunc{}}
}

// Handle registers h for a ServeMux pattern ("POST /v2/datasets/{dataset_id}/content"),
// wrapped by mw (the first is outermost), and for its twin (Twin): the same operation
// answers at the specification's /v2 path and at the unprefixed path the original
// service's clients call, with the same handler, so the two cannot behave differently.
//
// Only the /v2 form goes into the ServeMux; ServeHTTP gives a path without the prefix the
// prefix before matching. Registering both forms doubled the patterns, and a ServeMux
// registration (parsing, conflict checks, the caller's location) is most of the time it
// takes to build a router at start.
func (rt *Router) Handle(pattern string, h HandlerFunc, mw ...Middleware) {
	rt.handlers[pattern] = h
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, rt.log, err)
		}
	})
	rt.mux.Handle(prefixed(pattern), serve)
	rt.patterns = append(rt.patterns, pattern)
}

// prefixed is the /v2 form of a pattern.
func prefixed(pattern string) string {
	_, path, ok := strings.Cut(pattern, " ")
	if !ok {
		path = pattern
	}
	if strings.HasPrefix(path, VersionPrefix+"/") {
		return pattern
	}
	return Twin(pattern)
}

// withPrefix returns r with its path in the /v2 form the mux holds, and whether it changed.
// r must be the router's own copy (it is: ServeHTTP's WithContext made it).
func withPrefix(r *http.Request) bool {
	if strings.HasPrefix(r.URL.Path, VersionPrefix+"/") {
		return false
	}
	u := *r.URL
	u.Path = VersionPrefix + u.Path
	if u.RawPath != "" {
		u.RawPath = VersionPrefix + u.RawPath
	}
	r.URL = &u
	return true
}

// VersionPrefix is the prefix of the specification's paths (§9).
const VersionPrefix = "/v2"

// Twin returns the other form of a route pattern or path: "GET /v2/projects" ↔ "GET
// /projects", "POST /login" ↔ "POST /v2/login". The original service's clients call every
// operation without the prefix, its public document (and the specification) with it.
func Twin(pattern string) string {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "", pattern
	}
	if rest, ok := strings.CutPrefix(path, VersionPrefix+"/"); ok {
		path = "/" + rest
	} else {
		path = VersionPrefix + path
	}
	if method == "" {
		return path
	}
	return method + " " + path
}

// Match returns the pattern r reaches on this router ("" for none): the registered form or
// its twin, for tests that check both forms answer.
func (rt *Router) Match(r *http.Request) string {
	r = r.WithContext(r.Context())
	twin := withPrefix(r)
	_, pattern := rt.mux.Handler(r)
	if twin && pattern != "" {
		return Twin(pattern)
	}
	return pattern
}

// Routes lists the registered patterns ("POST /v2/datasets"), sorted: the operations the
// router serves, for tests that hold it to template.yaml and docs/openapi.yaml. Each is
// also served at its Twin, which Routes does not list.
func (rt *Router) Routes() []string {
	out := slices.Clone(rt.patterns)
	slices.Sort(out)
	return out
}

// Handler returns the operation registered for pattern, without its middleware: the route
// map (docs/routes.md) names the function that serves each route from it.
func (rt *Router) Handler(pattern string) (HandlerFunc, bool) {
	h, ok := rt.handlers[pattern]
	return h, ok
}

// Logger is the router's logger, for handlers that log.
func (rt *Router) Logger() *slog.Logger { return rt.log }

// ServeHTTP runs the shared middleware around the matched route.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := requestIDOf(r)
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
	twin := withPrefix(r)
	rec := &recorder{ResponseWriter: w}
	rec.Header().Set("X-Request-Id", id)
	defer func() {
		if p := recover(); p != nil {
			rt.log.ErrorContext(r.Context(), "panic", "request_id", id, "route", routeOf(r, twin), "panic_type", panicType(p))
			if !rec.wrote {
				WriteJSON(rec, http.StatusInternalServerError, map[string]string{"detail": "Internal Server Error"})
			}
		}
		rt.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("request_id", id), slog.String("method", r.Method),
			slog.String("route", routeOf(r, twin)), slog.Int("status", rec.status),
			slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000))
	}()
	r.Body = http.MaxBytesReader(rec, r.Body, MaxBody*16)
	if _, pattern := rt.mux.Handler(r); pattern == "" {
		rt.unmatched(rec, r)
		return
	}
	rt.mux.ServeHTTP(rec, r)
}

// unmatched answers what the mux would answer (404, or 405 with Allow) in FastAPI's shape.
func (rt *Router) unmatched(w http.ResponseWriter, r *http.Request) {
	h, _ := rt.mux.Handler(r)
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
		return
	}
	WriteJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
}

// routeOf is the pattern r matched, in the form it was called by (twin: without /v2).
func routeOf(r *http.Request, twin bool) string {
	switch {
	case r.Pattern == "":
		return "unmatched"
	case twin:
		return Twin(r.Pattern)
	}
	return r.Pattern
}

func panicType(p any) string {
	if err, ok := p.(error); ok {
		return "error: " + err.Error()
	}
	return "panic"
}

type requestIDKey struct{}

// RequestID returns the id of the request ctx belongs to.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// requestIDOf takes API Gateway's request id when the request came through it, else makes one.
func requestIDOf(r *http.Request) string {
	if gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context()); ok && gw.RequestID != "" {
		return gw.RequestID
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// recorder remembers the status for the access log and whether anything was written.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.status, r.wrote = code, true
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// headerProbe captures what the mux's own 404/405 handler would send.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.status = code }

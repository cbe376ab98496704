package identity_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// schemes are the ways a request authenticates, with the store calls each may make.
var schemes = []struct {
	name  string
	cache bool
	hdr   func(u authtest.User) http.Header
	calls map[string]int // per request, in steady state
}{
	{"api_key_uncached", false, authtest.User.Header, map[string]int{"Get": 2}},
	{"api_key_cached", true, authtest.User.Header, map[string]int{}},
	{"bearer_jwt_uncached", false, authtest.User.BearerHeader, map[string]int{"BatchGet": 1}},
	{"bearer_jwt", true, authtest.User.BearerHeader, map[string]int{}},
	{"basic", true, authtest.User.BasicHeader, map[string]int{"Get": 2}},
}

// authOnly is a protected no-op: what the middleware costs by itself.
func authOnly(svc *auth.Service) http.HandlerFunc {
	h := svc.Authenticate(func(w http.ResponseWriter, r *http.Request) error {
		if _, ok := auth.CallerFrom(r.Context()); !ok {
			panic("no caller")
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
		}
	}
}

func setupScheme(t testing.TB, tbl store.Table, cache bool) (*storecount.Table, http.HandlerFunc, authtest.User, *auth.Service) {
	counted := storecount.New(tbl)
	cfg := auth.Config{}
	if !cache {
		cfg.APIKeyCacheTTL = -1
	}
	env := authtest.New(t, counted, cfg)
	return counted, authOnly(env.Service), env.Org(t).User, env.Service
}

func serve(t testing.TB, h http.HandlerFunc, hdr http.Header) {
	req := httptest.NewRequest("GET", "/", nil)
	req.Header = hdr
	rec := httptest.NewRecorder()
	h(rec, req)
	if rec.Code != http.StatusNoContent {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

// TestStoreCallsPerRequest holds each scheme to its round-trip budget. The first use of an
// API key also stamps last_used_at, after the response; later uses within a minute do not.
func TestStoreCallsPerRequest(t *testing.T) {
	for _, s := range schemes {
		t.Run(s.name, func(t *testing.T) {
			counted, h, u, svc := setupScheme(t, openEmbedded(t), s.cache)
			hdr := s.hdr(u)
			serve(t, h, hdr) // warm: the cache, the signing key, the first last-used stamp
			svc.Wait()
			counted.Reset()
			for range 3 {
				serve(t, h, hdr)
			}
			svc.Wait()
			got := counted.Snapshot()
			for name, n := range s.calls {
				if got.Calls[name] != 3*n {
					t.Errorf("%s calls for 3 requests = %d, want %d (%s)", name, got.Calls[name], 3*n, got)
				}
			}
			want := 0
			for _, n := range s.calls {
				want += 3 * n
			}
			if got.Total != want {
				t.Errorf("store calls for 3 requests: %s, want %d in all", got, want)
			}
		})
	}
}

// BenchmarkAuthenticate measures the middleware alone per scheme and backend, reporting the
// store calls per request (in the cloud each is a DynamoDB round trip of a few ms).
func BenchmarkAuthenticate(b *testing.B) {
	for _, be := range backends() {
		for _, s := range schemes {
			b.Run(be.name+"/"+s.name, func(b *testing.B) { benchScheme(b, be.open(b), s.cache, s.hdr) })
		}
	}
}

func benchScheme(b *testing.B, tbl store.Table, cache bool, hdrOf func(authtest.User) http.Header) {
	counted, h, u, svc := setupScheme(b, tbl, cache)
	hdr := hdrOf(u)
	serve(b, h, hdr)
	svc.Wait()
	counted.Reset()
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, hdr)
	}
	svc.Wait()
	b.ReportMetric(float64(counted.Snapshot().Total)/float64(b.N), "store-calls/op")
}

func BenchmarkArgon2idVerify(b *testing.B) {
	hash, err := auth.HashPassword("benchmark password")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := auth.VerifyPassword(hash, "benchmark password"); !ok || err != nil {
			b.Fatal("verify failed")
		}
	}
}

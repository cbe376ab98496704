package integrations

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/secrets"
)

// fakeResolver answers every name with the same addresses, and counts lookups.
type fakeResolver struct {
	addrs []netip.Addr
	calls atomic.Int64
}

func (r *fakeResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.calls.Add(1)
	return r.addrs, nil
}

// countingDiscoverer records every connection it attempts.
func countingDiscoverer(allowPrivate bool, timeout time.Duration, r Resolver) (*Discoverer, *atomic.Int64) {
	var n atomic.Int64
	d := &Discoverer{AllowPrivate: allowPrivate, Timeout: timeout, Resolver: r}
	d.dialed = func(netip.AddrPort) { n.Add(1) }
	return d, &n
}

var token = secrets.NewValueString("discovery-test-token")

func TestDeploymentsRefusesSSRF(t *testing.T) {
	// A server that would show it was reached: every SSRF case must leave it untouched.
	var hits atomic.Int64
	bait := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, `{"data":[{"id":"x","model":"m"}]}`)
	}))
	defer bait.Close()
	for _, tc := range []struct {
		name, url    string
		allowPrivate bool
		resolver     Resolver
		want         error
	}{
		{"metadata", "http://169.254.169.254/latest/meta-data/", false, nil, errBadURL},
		{"metadata, https", "https://169.254.169.254/latest/meta-data/", false, nil, errRefusedAddress},
		{"metadata, test mode", "http://169.254.169.254/latest/meta-data/", true, nil, errRefusedAddress},
		{"mapped metadata", "http://[::ffff:169.254.169.254]/", true, nil, errRefusedAddress},
		{"loopback port", "http://127.0.0.1:2773/", false, nil, errBadURL},
		{"loopback port, https", "https://127.0.0.1:2773/", false, nil, errRefusedAddress},
		{"localhost", "https://localhost:9001/", false, nil, errRefusedAddress},
		{"localhost over http", "http://localhost:9001/", false, nil, errBadURL},
		{"private", "https://10.0.0.1/", false, nil, errRefusedAddress},
		{"private, test mode", "http://10.0.0.1/", true, nil, errRefusedAddress},
		{"hex", "http://0x7f000001/", true, nil, errRefusedAddress},
		{"decimal", "http://2130706433/", true, nil, errRefusedAddress},
		{"file", "file:///etc/passwd", true, nil, errBadURL},
		{"gopher", "gopher://x", true, nil, errBadURL},
		{"name resolving to private", "https://internal.example.com/", false,
			&fakeResolver{addrs: []netip.Addr{netip.MustParseAddr("10.1.2.3")}}, errRefusedAddress},
		{"name resolving to public and metadata", "https://mixed.example.com/", false,
			&fakeResolver{addrs: []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("169.254.169.254")}}, errRefusedAddress},
		{"name resolving to mapped loopback", "https://sneaky.example.com/", false,
			&fakeResolver{addrs: []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.1")}}, errRefusedAddress},
		{"name resolving to the bait, not test mode", "https://bait.example.com" + bait.URL[len("http://127.0.0.1"):], false,
			&fakeResolver{addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}, errRefusedAddress},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, dialed := countingDiscoverer(tc.allowPrivate, time.Second, tc.resolver)
			_, err := d.Deployments(t.Context(), tc.url, DefaultAPIVersion, token)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if n := dialed.Load(); n != 0 {
				t.Fatalf("%d connections attempted", n)
			}
		})
	}
	if hits.Load() != 0 {
		t.Fatalf("the bait server was reached %d times", hits.Load())
	}
}

func TestDeploymentsFromFakeProvider(t *testing.T) {
	var got struct {
		path, query, key string
	}
	var metadataHits atomic.Int64
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok/openai/deployments":
			got.path, got.query, got.key = r.URL.Path, r.URL.RawQuery, r.Header.Get("api-key")
			_, _ = io.WriteString(w, `{"data":[{"id":"dep-1","model":"gpt-4o","status":"succeeded"},{"id":"dep-2","model":"gpt-5"}],"object":"list"}`)
		case "/unauthorized/openai/deployments":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":"provider-body-must-not-leak"}`)
		case "/redirect/openai/deployments":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/huge/openai/deployments":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"data":[{"id":"`)
			chunk := strings.Repeat("a", 1<<20)
			for range 50 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		case "/notjson/openai/deployments":
			_, _ = io.WriteString(w, `<html>provider-body-must-not-leak</html>`)
		case "/shape/openai/deployments":
			_, _ = io.WriteString(w, `{"data":[{"id":"x"}]}`)
		case "/slow/openai/deployments":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/latest/meta-data/":
			metadataHits.Add(1)
		}
	}))
	defer provider.Close()

	d := &Discoverer{AllowPrivate: true, Timeout: 300 * time.Millisecond}
	ds, err := d.Deployments(t.Context(), provider.URL+"/ok", "2024-10-21", token)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0] != (Deployment{Model: "gpt-4o", ID: "dep-1"}) || ds[1] != (Deployment{Model: "gpt-5", ID: "dep-2"}) {
		t.Fatalf("deployments %+v", ds)
	}
	if got.query != "api-version=2024-10-21" || got.key != token.RevealString() {
		t.Fatalf("request %+v", got)
	}

	for _, tc := range []struct {
		path string
		want error
	}{
		{"/unauthorized", errUnauthorized},
		{"/redirect", errBadResponse},
		{"/huge", errBadResponse},
		{"/notjson", errBadResponse},
		{"/shape", errBadResponse},
		{"/missing", errBadResponse},
		{"/slow", errTimeout},
	} {
		t.Run(tc.path, func(t *testing.T) {
			start := time.Now()
			_, err := d.Deployments(t.Context(), provider.URL+tc.path, DefaultAPIVersion, token)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if strings.Contains(causeMessage(err), "provider-body-must-not-leak") {
				t.Fatal("the cause echoes the provider")
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("took %s", took)
			}
		})
	}
	if metadataHits.Load() != 0 {
		t.Fatal("the redirect was followed")
	}

	// Nothing listens on a closed server's port.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if _, err := d.Deployments(t.Context(), closed.URL, DefaultAPIVersion, token); !errors.Is(err, errUnreachable) {
		t.Fatalf("closed port: %v, want unreachable", err)
	}
}

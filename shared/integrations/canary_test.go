package integrations

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/secrets/localfile"
	"github.com/evalobs/evalapi/shared/store"
)

// fakeProvider serves a deployment list on loopback to the token "good-token" (or the
// canary), and 401 to any other.
func fakeProvider(t *testing.T, accept ...string) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		key := r.Header.Get("api-key")
		for _, a := range accept {
			if key == a && r.URL.Path == "/openai/deployments" {
				_, _ = io.WriteString(w, `{"data":[{"id":"dep-1","model":"gpt-4o"}]}`)
				return
			}
		}
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"code":"401","message":"provider says: bad key"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestDiscoveryThroughFakeProvider(t *testing.T) {
	h := newHarness(t, options{allowPrivate: true, timeout: 2 * time.Second})
	srv, calls := fakeProvider(t, "good-token")
	in := h.put(&h.org.User, "cloud-host", fmt.Sprintf(`{"token":"good-token","endpoint":%q}`, srv.URL))
	stored, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderCloudHost)
	if err != nil || stored.ID != in.ID || fmt.Sprint(stored.Settings["available_deployments"]) != "[map[id:dep-1 model:gpt-4o]]" {
		t.Fatalf("stored %+v %v", stored.Settings, err)
	}

	// A 401 from the provider is a 422 "unauthorized", and stores nothing.
	before := calls.Load()
	code, resp := h.do(&h.org.Manager, "PUT", "/v2/integrations/cloud-host", fmt.Sprintf(`{"token":"bad-token","endpoint":%q}`, srv.URL))
	if code != 422 || calls.Load() != before+1 {
		t.Fatalf("%d %s", code, resp)
	}
	sameJSON(t, resp, fmt.Sprintf(`{"detail":[{"type":"value_error","loc":["body","endpoint"],
		"msg":"Value error, endpoint unauthorized: the provider refused the token","input":%q,"ctx":{"error":{}}}]}`, srv.URL))
	if _, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.Manager.UserID, ProviderCloudHost); err == nil {
		t.Fatal("stored after a refused listing")
	}
	if refs := h.sec.liveRefs(); len(refs) != 1 {
		t.Fatalf("live secrets %v", refs)
	}

	// Without test mode, the same loopback server is refused before any connection.
	strict := newHarness(t, options{})
	before = calls.Load()
	code, resp = strict.do(&strict.org.User, "PUT", "/v2/integrations/cloud-host", fmt.Sprintf(`{"token":"good-token","endpoint":%q}`, strings.Replace(srv.URL, "http:", "https:", 1)))
	if code != 422 || !strings.Contains(resp, "endpoint refused") || calls.Load() != before {
		t.Fatalf("strict: %d %s", code, resp)
	}
}

// TestCanary plants a unique token and header value through both providers, on the local
// file secret store, then scans every response and log line of the run for them: raw,
// base64, hex and URL-encoded. They come back only through the secrets port.
func TestCanary(t *testing.T) {
	sec, err := localfile.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, options{secrets: sec, allowPrivate: true, timeout: 2 * time.Second})
	token := "canary-tok-" + rand.Text()
	header := "canary-hdr-" + rand.Text()
	srv, _ := fakeProvider(t, token)

	cloud := h.put(&h.org.User, "cloud-host", fmt.Sprintf(`{"token":%q,"endpoint":%q,"default_headers":{"Authorization":%q}}`, token, srv.URL, header))
	h.put(&h.org.User, "cloud-host", fmt.Sprintf(`{"token":%q,"endpoint":"https://example.com","default_headers":{"X-H":%q},"available_deployments":[]}`, token, header))
	vendor := h.put(&h.org.User, "model-vendor", fmt.Sprintf(`{"token":%q}`, token))
	// Refusals that hold the canary in their bodies.
	for _, body := range []string{
		fmt.Sprintf(`{"token":%q,"endpoint":%q,"default_headers":{"X":%q}}`, token, strings.Replace(srv.URL, "http:", "ftp:", 1), header),
		fmt.Sprintf(`{"token":%q,"endpoint":"https://u:%s@example.com","default_headers":{"X":[%q]}}`, token, token, header),
		fmt.Sprintf(`{"token":[%q],"endpoint":%q,"default_headers":%q}`, token, srv.URL, header),
		fmt.Sprintf(`{"token":%q,"endpoint":%q,"proxy":"x","multi_modal_config":{"max_files":0}}`, token+"x", srv.URL),
	} {
		if code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/cloud-host", body); code != 422 {
			t.Fatalf("%d %s", code, resp)
		}
	}
	// The custom integration: API key, headers and OAuth2 client credentials, stored and refused.
	h.put(&h.org.User, "custom", fmt.Sprintf(`{"endpoint":%q,"authentication_type":"api_key","api_key_header":"X-Key","api_key_value":%q,"headers":{"X-H":%q}}`, srv.URL, token, header))
	managed := h.put(&h.org.Manager, "custom", fmt.Sprintf(`{"endpoint":%q,"token":"id:%s","oauth2_token_url":%q,"headers":{"X-H":%q}}`, srv.URL, token, srv.URL+"/token", header))
	// Shared with the user, so the user's list holds another user's integration too.
	if code, resp := h.do(&h.org.Manager, "POST", usersPath(managed.ID), fmt.Sprintf(`[{"user_id":%q}]`, h.org.User.UserID)); code != 200 {
		t.Fatalf("share: %d %s", code, resp)
	}
	for _, body := range []string{
		fmt.Sprintf(`{"authentication_type":"api_key","api_key_value":%q,"headers":{"X-H":%q}}`, token, header),
		fmt.Sprintf(`{"endpoint":"ftp://x","token":%q,"headers":{"X-H":[%q]}}`, token, header),
		fmt.Sprintf(`{"endpoint":%q,"token":%q,"api_key_value":[%q],"headers":%q}`, srv.URL, token, token, header),
	} {
		if code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/custom", body); code != 422 {
			t.Fatalf("%d %s", code, resp)
		}
	}
	if code, _ := h.do(&h.org.User, "PUT", "/v2/integrations/model-vendor", fmt.Sprintf(`{"token":{"t":%q}}`, token)); code != 422 {
		t.Fatal("object token accepted")
	}
	if code, _ := h.do(&h.org.ReadOnly, "PUT", "/v2/integrations/model-vendor", fmt.Sprintf(`{"token":%q}`, token)); code != 403 {
		t.Fatal("read-only wrote")
	}

	// The list answers every integration with its credentials stored, own and shared: none
	// of them.
	for _, who := range []*authtest.User{&h.org.User, &h.org.Manager} {
		if code, resp := h.do(who, "GET", "/v2/integrations", ""); code != 200 || !strings.Contains(resp, managed.ID) {
			t.Fatalf("list: %d %s, want the shared integration %s in it", code, resp, managed.ID)
		}
	}

	var haystack strings.Builder
	for _, r := range h.responses {
		haystack.WriteString(r)
	}
	haystack.WriteString(h.logs.String())
	all := haystack.String()
	if !strings.Contains(all, `"level"`) { // the scan covers log lines too
		t.Fatal("no log line was written")
	}
	if len(h.responses) < 8 {
		t.Fatalf("only %d responses scanned", len(h.responses))
	}
	for _, s := range []string{token, header} {
		for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s)), base64.RawStdEncoding.EncodeToString([]byte(s)),
			base64.URLEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s)),
			hex.EncodeToString([]byte(s)), url.QueryEscape(s), url.PathEscape(s), s[len(s)-16:]} {
			if strings.Contains(all, form) {
				t.Fatalf("a response or log line holds the canary (form %q)", form)
			}
		}
	}

	// Read back through the port only.
	for _, p := range []string{ProviderCloudHost, ProviderModelVendor} {
		in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, p)
		if err != nil {
			t.Fatal(err)
		}
		if in.ID != cloud.ID && in.ID != vendor.ID {
			t.Fatalf("unexpected id %s", in.ID)
		}
		tok, headers, ok, err := ReadSecret(t.Context(), sec, in)
		if err != nil || !ok || tok.RevealString() != token {
			t.Fatalf("%s: token not read back (ok=%v err=%v)", p, ok, err)
		}
		if p == ProviderCloudHost && headers["X-H"].RevealString() != header {
			t.Fatalf("header not read back")
		}
		item, err := h.tbl.Get(t.Context(), store.Key{PK: "USER#" + h.org.User.UserID, SK: "INTEGRATION#" + p}, true)
		if err != nil || strings.Contains(fmt.Sprint(item), token) || strings.Contains(fmt.Sprint(item), header) {
			t.Fatalf("the record holds the canary (%v)", err)
		}
	}
}

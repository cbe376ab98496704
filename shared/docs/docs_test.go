package docs_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	apidoc "github.com/evalobs/evalapi/docs"
	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/docs"
)

func serve(t *testing.T, path string, hdr http.Header) *httptest.ResponseRecorder {
	t.Helper()
	rt := app.NewRouter(apptest.Deps(t), groups.Docs)
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	apitest.Validator(t).CheckRecorder(t, req, rec)
	return rec
}

// The JSON is the YAML document, value for value, at both paths and without credentials.
func TestOpenAPIJSON(t *testing.T) {
	var want any
	if err := yaml.Unmarshal(apidoc.OpenAPIYAML, &want); err != nil {
		t.Fatal(err)
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/openapi.json", "/v2/openapi.json"} {
		rec := serve(t, path, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Header())
		}
		var got any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("GET %s: not JSON: %v", path, err)
		}
		gotJSON, _ := json.Marshal(got)
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("GET %s: the JSON differs from docs/openapi.yaml", path)
		}
		if !strings.HasPrefix(rec.Body.String(), `{"openapi":"3.1.0","info":`) {
			t.Errorf("GET %s: keys are not in the document's order: %.60s", path, rec.Body.String())
		}
	}
	// The embedded document is the file.
	file, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.yaml"))
	if err != nil || !bytes.Equal(file, apidoc.OpenAPIYAML) {
		t.Errorf("the embedded document is not docs/openapi.yaml (%v)", err)
	}
}

func TestYAMLToJSON(t *testing.T) {
	for in, want := range map[string]string{
		"a: 1\nb: [x, 2.5, true, null]\n200: ok\n": `{"a":1,"b":["x",2.5,true,null],"200":"ok"}`,
		"s: '1'\nt: \"yes\"\nu: yes\n":             `{"s":"1","t":"yes","u":"yes"}`,
		"- {k: v}\n- []\n":                         `[{"k":"v"},[]]`,
	} {
		got, err := docs.YAMLToJSON([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("YAMLToJSON(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := docs.YAMLToJSON([]byte("[a: b]: c\n")); err == nil {
		t.Error("a non-scalar key converted")
	}
}

// The page loads its viewer and the document from this service only, at either form.
func TestPage(t *testing.T) {
	for path, wantSpec := range map[string]string{"/docs": `spec-url="openapi.json"`, "/v2/docs": `spec-url="openapi.json"`} {
		rec := serve(t, path, nil)
		body := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Header())
		}
		if !strings.Contains(body, `src="docs/rapidoc-min.js"`) || !strings.Contains(body, wantSpec) || !strings.Contains(body, `load-fonts="false"`) {
			t.Errorf("GET %s: page %s", path, body)
		}
		if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
			t.Errorf("GET %s: the page names an outside address", path)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}
}

func TestViewer(t *testing.T) {
	plain := serve(t, "/docs/rapidoc-min.js", nil)
	if plain.Code != http.StatusOK || plain.Header().Get("Content-Encoding") != "" || plain.Body.Len() != 863099 {
		t.Fatalf("plain: %d %s, %d bytes", plain.Code, plain.Header(), plain.Body.Len())
	}
	gz := serve(t, "/v2/docs/rapidoc-min.js", http.Header{"Accept-Encoding": {"br, gzip;q=0.8"}})
	if gz.Header().Get("Content-Encoding") != "gzip" || gz.Body.Len() != 217516 {
		t.Fatalf("gzip: %s, %d bytes", gz.Header(), gz.Body.Len())
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	unpacked, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unpacked, plain.Body.Bytes()) {
		t.Errorf("the gzip answer does not unpack to the plain one (%v)", err)
	}
	if refused := serve(t, "/docs/rapidoc-min.js", http.Header{"Accept-Encoding": {"gzip;q=0"}}); refused.Header().Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 got gzip")
	}
}

// Package docs serves the API's own description: the OpenAPI document as JSON
// (GET /v2/openapi.json, as FastAPI serves its openapi.json) and a self-contained API page
// (GET /v2/docs) that renders it with a vendored RapiDoc (assets/, MIT licence) and loads
// nothing from the internet. Both answer without credentials. Only functions/docs links
// this package (infra's architecture test holds it): the page and the document stay out
// of the other functions' binaries and cold starts.
package docs

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	apidoc "github.com/evalobs/evalapi/docs"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// RapiDoc 9.3.8's standalone bundle (npm rapidoc@9.3.8, dist/rapidoc-min.js.gz as
// published: 217,516 bytes gzip, 863,099 bytes plain).
//
//go:embed assets/rapidoc-min.js.gz
var rapidocGzip []byte

// RapiDocVersion is the version of the vendored viewer.
const RapiDocVersion = "9.3.8"

// Register mounts the document and the page on rt, without authentication.
func Register(rt *httpapi.Router) {
	rt.Handle("GET /v2/openapi.json", openAPI)
	rt.Handle("GET /v2/docs", page)
	rt.Handle("GET /v2/docs/rapidoc-min.js", viewer)
}

// The document converted once per process, on its first request: the conversion costs a
// few milliseconds that a cold start need not pay. No package-level initializer refers to
// the embedded data, so a binary that links this package without calling Register (every
// function but functions/docs links the table of groups) leaves it out.
var (
	jsonOnce sync.Once
	jsonDoc  []byte
	jsonErr  error
)

// openAPI is GET /v2/openapi.json.
func openAPI(w http.ResponseWriter, r *http.Request) error {
	jsonOnce.Do(func() { jsonDoc, jsonErr = YAMLToJSON(apidoc.OpenAPIYAML) })
	b, err := jsonDoc, jsonErr
	if err != nil {
		return fmt.Errorf("openapi.json: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err
}

// page is GET /v2/docs: relative addresses, so that /docs and /v2/docs both load their own
// form of the document and of the viewer.
func page(w http.ResponseWriter, r *http.Request) error {
	base := "docs/"
	if strings.HasSuffix(r.URL.Path, "/") {
		base = ""
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'")
	w.WriteHeader(http.StatusOK)
	_, err := fmt.Fprintf(w, pageHTML, base, strings.TrimSuffix(base, "docs/")+"openapi.json")
	return err
}

const pageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Evaluation and Observability Service API</title>
<script type="module" src="%srapidoc-min.js"></script>
</head>
<body>
<rapi-doc spec-url="%s" load-fonts="false" render-style="read" show-header="false"
  allow-try="true" allow-server-selection="false" schema-style="table"></rapi-doc>
</body>
</html>
`

// viewer is GET /v2/docs/rapidoc-min.js: the bundle as stored (gzip) to a client that takes
// it, else unpacked.
func viewer(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusOK)
		_, err := w.Write(rapidocGzip)
		return err
	}
	zr, err := gzip.NewReader(bytes.NewReader(rapidocGzip))
	if err != nil {
		return fmt.Errorf("rapidoc bundle: %w", err)
	}
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, zr)
	return err
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

package traces

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
)

// TestSampleEvents replays this package's sample events (events/traces/ingest_traces and
// metrics_search*) on the harness, seeded with SeedExample as the event fixture is, and checks
// each against its expectation the way infra/invoke's event tests do.
func TestSampleEvents(t *testing.T) {
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(root, "events", "traces", "*.json"))
	ran := 0
	for _, path := range names {
		base := filepath.Base(path)
		if strings.HasSuffix(base, ".expected.json") || !(strings.HasPrefix(base, "ingest_traces") || strings.HasPrefix(base, "metrics_search")) {
			continue
		}
		ran++
		t.Run(base, func(t *testing.T) {
			h := newHarness(t, 0)
			var ev struct {
				RawPath        string `json:"rawPath"`
				Body           string `json:"body"`
				RequestContext struct {
					HTTP struct{ Method string } `json:"http"`
				} `json:"requestContext"`
			}
			var want struct {
				StatusCode   int             `json:"statusCode"`
				Body         json.RawMessage `json:"body"`
				BodySubset   json.RawMessage `json:"body_subset"`
				BodyContains []string        `json:"body_contains"`
			}
			read := func(p string, v any) {
				b, err := os.ReadFile(p)
				if err == nil {
					err = json.Unmarshal(b, v)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			read(path, &ev)
			read(strings.TrimSuffix(path, ".json")+".expected.json", &want)
			code, body := h.do(&h.org.Admin, ev.RequestContext.HTTP.Method, ev.RawPath, ev.Body)
			if code != want.StatusCode {
				t.Fatalf("status %d, want %d: %s", code, want.StatusCode, body)
			}
			var got any
			_ = json.Unmarshal([]byte(body), &got)
			for _, c := range []struct {
				raw json.RawMessage
				ok  func(w any) bool
			}{
				{want.Body, func(w any) bool { return reflect.DeepEqual(w, got) }},
				{want.BodySubset, func(w any) bool { return subset(w, got) }},
			} {
				var w any
				if len(c.raw) > 0 && (json.Unmarshal(c.raw, &w) != nil || !c.ok(w)) {
					t.Errorf("body %s does not match %s", body, c.raw)
				}
			}
			for _, s := range want.BodyContains {
				if !strings.Contains(body, s) {
					t.Errorf("body %s lacks %q", body, s)
				}
			}
		})
	}
	if ran != 4 {
		t.Errorf("ran %d events, want 4", ran)
	}
}

func subset(want, got any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(want, got)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, wv := range wm {
		if gv, ok := gm[k]; !ok || !subset(wv, gv) {
			return false
		}
	}
	return true
}

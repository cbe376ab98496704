package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/apitest"
)

// TestLoadSmall starts the local host as a process and runs a small load against it: 3,000
// requests from 200 clients (the concurrency, at a size that fits CI), no unexpected
// answer, and every write read back.
func TestLoadSmall(t *testing.T) {
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	dir := t.TempDir()
	exe, err := buildHost(ctx, root, dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := startHost(ctx, exe, filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := h.stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	cfg := config{URL: h.URL, APIKey: h.APIKey, Clients: 200, Requests: 3000, Timeout: 60 * time.Second, Tag: "test"}
	rep, err := run(context.WithoutCancel(ctx), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.print(&out, cfg)
	t.Log("\n" + out.String())
	if rep.Unexpected > 0 || len(rep.Problems) > 0 {
		t.Errorf("%d unexpected answer(s); problems: %q\nhost log:\n%.4000s", rep.Unexpected, rep.Problems, h.stderr.String())
	}
	writes := map[string]int{}
	total := 0
	for _, s := range rep.Routes {
		total += s.Count
		if strings.HasPrefix(s.Route, "POST /v2/datasets") || strings.HasPrefix(s.Route, "POST /v2/scorers") {
			writes[s.Route] = s.Count - s.Other - s.Unexpected
		}
	}
	if total != cfg.Requests {
		t.Errorf("%d requests counted, want %d", total, cfg.Requests)
	}
	for _, route := range []string{"POST /v2/datasets", "POST /v2/datasets/{id}/content", "POST /v2/scorers/{id}/version/decision"} {
		if writes[route] == 0 {
			t.Errorf("%s: no write succeeded (%v)", route, writes)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:3000": true, "http://localhost:3000": false, "http://10.0.0.1:3000": false,
		"http://127.0.0.1.evil.example:80": false,
	} {
		if got := isLoopback(u); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", u, got, want)
		}
	}
}

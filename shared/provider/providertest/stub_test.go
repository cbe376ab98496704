package providertest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, ctx context.Context, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestStub(t *testing.T) {
	s := New(t)
	s.Handle("m", Script(RateLimited("3"), Fail(500), Answer("done")))
	var statuses []int
	for range 4 {
		resp, _ := post(t, t.Context(), s.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == 429 && resp.Header.Get("Retry-After") != "3" {
			t.Fatal("no Retry-After")
		}
	}
	if want := []int{429, 500, 200, 200}; len(statuses) != 4 || statuses[0] != want[0] || statuses[1] != want[1] || statuses[3] != want[3] {
		t.Fatalf("statuses %v", statuses)
	}
	_, body := post(t, t.Context(), s.URL+"/openai/deployments/dep/chat/completions?api-version=v", `{"messages":[]}`)
	if !strings.Contains(body, DefaultContent[:10]) && !strings.Contains(body, "The stub judge agrees") {
		t.Fatalf("default answer %s", body)
	}
	calls := s.Calls()
	if len(calls) != 5 || calls[4].Deployment != "dep" || calls[4].APIVersion != "v" || calls[2].N != 3 {
		t.Fatalf("calls %+v", calls)
	}

	// A hanging call returns when the caller gives up.
	s.Reply("slow", Hang())
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if resp, _ := post(t, ctx, s.URL+"/chat/completions", `{"model":"slow","messages":[]}`); resp != nil {
		t.Fatal("a hanging call answered")
	}

	// OAuth2: only the registered client gets a token; calls then need it.
	s.OAuth2("id", "secret", "tok", 60)
	req, _ := http.NewRequest(http.MethodPost, s.TokenURL(), strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("id", "wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("wrong secret: %v %v", resp, err)
	}
	resp.Body.Close()
	if resp, _ := post(t, t.Context(), s.URL+"/chat/completions", `{"model":"m","messages":[]}`); resp.StatusCode != 401 {
		t.Fatalf("call without the token: %d", resp.StatusCode)
	}
}

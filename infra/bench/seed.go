package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// fixture is what the HTTP benchmark reads, created through the API of a fresh local host.
type fixture struct {
	apiKey, bearer                    string
	projectID, logStreamID, datasetID string
}

// api calls the host as a client would.
type api struct {
	base string
	hdr  http.Header
	c    *http.Client
}

func (a api) call(ctx context.Context, method, path, contentType string, body io.Reader) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range a.hdr {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return resp, b, err
}

// json sends v as JSON and decodes the answer's id.
func (a api) create(ctx context.Context, method, path string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	_, out, err := a.call(ctx, method, path, "application/json", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	var id struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out, &id); err != nil {
		return "", fmt.Errorf("%s %s: %w", method, path, err)
	}
	return id.ID, nil
}

// Sizes of the benchmark's answers, near the ones of issue 23's hand-taken table.
const (
	datasetRows = 100
	rowText     = 65 // bytes of each of the two text cells of a row (each appears twice, in values and values_dict): a ~79 KB page
)

// seed creates, through the API of the host at base, a dataset of datasetRows rows, a
// project with a log stream and two of the demo's metric settings (infra/demo; ~1.7 KB as
// the answer echoes every field of each scorer), and signs in as the admin for a Bearer token.
func seed(ctx context.Context, base, apiKey, email, password string) (fixture, error) {
	f := fixture{apiKey: apiKey}
	a := api{base: base, hdr: http.Header{"Service-API-Key": {apiKey}, "Accept": {"application/json"}}, c: http.DefaultClient}
	var err error
	rows := make([][]any, datasetRows)
	for i := range rows {
		rows[i] = []any{prose(i, rowText), prose(i+datasetRows, rowText)}
	}
	if f.datasetID, err = a.create(ctx, http.MethodPost, "/v2/datasets", map[string]any{
		"name": "bench", "column_names": []string{"input", "output"}, "rows": rows}); err != nil {
		return f, err
	}
	if f.projectID, err = a.create(ctx, http.MethodPost, "/v2/projects", map[string]any{"name": "bench"}); err != nil {
		return f, err
	}
	if f.logStreamID, err = a.create(ctx, http.MethodPost, "/v2/projects/"+f.projectID+"/log_streams",
		map[string]any{"name": "production"}); err != nil {
		return f, err
	}
	scorers := []map[string]any{
		{"id": uuid.NewString(), "name": "correctness", "scorer_type": "llm", "output_type": "percentage", "roll_up_method": "average"},
		{"id": uuid.NewString(), "name": "toxicity", "scorer_type": "luna", "output_type": "boolean", "roll_up_method": "percentage_true"},
	}
	b, _ := json.Marshal(map[string]any{"scorers": scorers})
	if _, _, err := a.call(ctx, http.MethodPatch, "/v2/projects/"+f.projectID+"/log_streams/"+f.logStreamID+"/metric_settings",
		"application/json", bytes.NewReader(b)); err != nil {
		return f, err
	}
	form := url.Values{"username": {email}, "password": {password}, "grant_type": {"password"}}
	anon := api{base: base, hdr: http.Header{"Accept": {"application/json"}}, c: http.DefaultClient}
	_, out, err := anon.call(ctx, http.MethodPost, "/login", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		return f, err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(out, &tok); err != nil || tok.AccessToken == "" {
		return f, fmt.Errorf("login answered no access_token: %v", err)
	}
	f.bearer = tok.AccessToken
	return f, nil
}

// prose is n bytes of plain words, different for each i.
func prose(i, n int) string {
	words := []string{"the", "model", "answered", "question", "about", "billing", "with", "a", "short", "polite",
		"summary", "of", "account", "settings", "and", "next", "steps", "for", "customer", "support"}
	var b strings.Builder
	for k := i; b.Len() < n; k += 7 {
		b.WriteString(words[k%len(words)])
		b.WriteByte(' ')
	}
	return b.String()[:n]
}

// randomPassword is the admin's password on the benchmark's fresh host.
func randomPassword() string {
	var b [18]byte
	rand.Read(b[:])
	return fmt.Sprintf("bench-%x", b)
}

package datasets_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/auth/authtest"
)

// upload posts a multipart create as user.
func (h *harness) upload(user authtest.User, query string, fields map[string]string, files map[string][]byte) response {
	h.t.Helper()
	body, ct := authtest.Multipart(h.t, fields, files)
	rec := authtest.DoBody(h.t, h.rt, h.v, &user, "POST", "/datasets"+query, ct, body)
	return response{code: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// A 20,000-row CSV uploaded as the original's clients do comes back, row for row, through
// the content pages.
func TestUploadLargeCSVRoundTrips(t *testing.T) {
	h := newHarness(t)
	const n = 20_000
	var csv bytes.Buffer
	csv.WriteString("input,output,note\n")
	for i := range n {
		fmt.Fprintf(&csv, "question %d,\"answer, %d\",%s\n", i, i, strings.Repeat("x", i%7))
	}
	resp := h.upload(h.org.User, "?format=csv", map[string]string{"name": "big", "draft": "true"}, map[string][]byte{"file:big.csv": csv.Bytes()})
	var d struct {
		datasetOut
		Draft        bool `json:"draft"`
		ProjectCount int  `json:"project_count"`
	}
	if resp.code != http.StatusOK {
		t.Fatalf("upload: %d %.300s", resp.code, resp.body)
	}
	resp.decode(t, &d)
	if d.NumRows != n || d.Name != "big" || !d.Draft || d.CurrentVersionIndex != 1 || strings.Join(d.ColumnNames, ",") != "input,output,note" {
		t.Fatalf("uploaded: %+v", d)
	}
	seen := 0
	for start := 0; start < n; {
		var p page
		h.must(&h.org.User, "GET", fmt.Sprintf("/datasets/%s/content?starting_token=%d&limit=3000", d.ID, start), nil, &p)
		for _, r := range p.Rows {
			i := seen
			want := []any{fmt.Sprintf("question %d", i), fmt.Sprintf("answer, %d", i), strings.Repeat("x", i%7)}
			if r.Index != i || fmt.Sprint(r.Values) != fmt.Sprint(want) {
				t.Fatalf("row %d: %d %v, want %v", i, r.Index, r.Values, want)
			}
			seen++
		}
		if p.NextStartingToken == nil {
			break
		}
		start = *p.NextStartingToken
	}
	if seen != n {
		t.Fatalf("read %d rows back, want %d", seen, n)
	}
}

func TestUploadFormats(t *testing.T) {
	h := newHarness(t)
	jsonl := []byte("{\"input\": \"a\", \"output\": 1}\n\n{\"output\": 2.5, \"input\": \"b\", \"meta\": {\"k\": \"v\"}}\n")
	json := []byte("[\n  {\"q\": \"1+1\", \"a\": 2},\n  {\"q\": \"2+2\", \"a\": null}\n]")
	for _, tc := range []struct {
		name, query string
		file        string
		data        []byte
		fields      map[string]string
		wantName    string
		wantCols    string
		wantRows    int
	}{
		{"jsonl by query", "?format=jsonl", "file:data.txt", jsonl, nil, "data", "input,output,meta", 2},
		{"json by extension", "", "file:qa.json", json, map[string]string{"name": "qa"}, "qa", "q,a", 2},
		{"csv by default", "", "file:plain", []byte("a\n1\n"), map[string]string{"name": "plain"}, "plain", "a", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.upload(h.org.User, tc.query, tc.fields, map[string][]byte{tc.file: tc.data})
			var d datasetOut
			if resp.code != http.StatusOK {
				t.Fatalf("%d %s", resp.code, resp.body)
			}
			resp.decode(t, &d)
			if d.Name != tc.wantName || strings.Join(d.ColumnNames, ",") != tc.wantCols || d.NumRows != tc.wantRows {
				t.Errorf("got %+v", d)
			}
		})
	}
	var p page
	resp := h.upload(h.org.User, "?format=jsonl", map[string]string{"name": "again"}, map[string][]byte{"file": jsonl})
	var d datasetOut
	resp.decode(t, &d)
	h.must(&h.org.User, "GET", "/v2/datasets/"+d.ID+"/content", nil, &p)
	if fmt.Sprint(p.Rows[0].Values) != "[a 1 <nil>]" || fmt.Sprint(p.Rows[1].Values) != "[b 2.5 map[k:v]]" {
		t.Errorf("jsonl rows: %v %v", p.Rows[0].Values, p.Rows[1].Values)
	}
}

// Refusals: a file that does not parse names its line; feather is not read; a body over
// the cap is a 413; the fields are checked as FastAPI checks a form.
func TestUploadRefusals(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name, query string
		fields      map[string]string
		files       map[string][]byte
		status      int
		want        string
	}{
		{"ragged csv", "", nil, map[string][]byte{"file:a.csv": []byte("a,b\n1,2\n3\n")}, 422, "does not parse at line 3"},
		{"bad quote", "", nil, map[string][]byte{"file:a.csv": []byte("a,b\n1,\"2\n")}, 422, "does not parse at line 2"},
		{"repeated column", "", nil, map[string][]byte{"file:a.csv": []byte("a,a\n1,2\n")}, 422, "column 'a' appears twice"},
		{"empty csv", "", nil, map[string][]byte{"file:a.csv": {}}, 422, "at line 1"},
		{"bad jsonl line", "?format=jsonl", nil, map[string][]byte{"file": []byte("{\"a\":1}\n{\"a\":\n")}, 422, "does not parse at line 2"},
		{"jsonl not an object", "?format=jsonl", nil, map[string][]byte{"file": []byte("{\"a\":1}\n[1]\n")}, 422, "at line 2"},
		{"nested value", "?format=jsonl", nil, map[string][]byte{"file": []byte("{\"a\":1}\n{\"a\":{\"b\":{\"c\":1}}}\n")}, 422, "at line 2"},
		{"bad json", "?format=json", nil, map[string][]byte{"file": []byte("[\n{\"a\": 1},\n{\"a\" 2}\n]")}, 422, "does not parse at line 3"},
		{"feather", "?format=feather", nil, map[string][]byte{"file": []byte("ARROW1")}, 422, "feather files are not supported"},
		{"unknown format", "?format=xlsx", nil, map[string][]byte{"file": []byte("a\n")}, 422, `"loc":["query","format"]`},
		{"no file", "", map[string]string{"name": "x"}, nil, 422, `"loc":["body","file"]`},
		{"bad draft", "", map[string]string{"draft": "maybe"}, map[string][]byte{"file": []byte("a\n")}, 422, `"loc":["body","draft"]`},
		{"too large", "", nil, map[string][]byte{"file": bytes.Repeat([]byte("a\n"), 2<<20+1)}, 413, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.upload(h.org.User, tc.query, tc.fields, tc.files)
			if resp.code != tc.status || !strings.Contains(string(resp.body), tc.want) {
				t.Errorf("%d %.400s, want %d with %q", resp.code, resp.body, tc.status, tc.want)
			}
		})
	}
	if resp := h.upload(h.org.ReadOnly, "", nil, map[string][]byte{"file": []byte("a\n1\n")}); resp.code != http.StatusForbidden {
		t.Errorf("read-only upload: %d", resp.code)
	}
}

// append_suffix_if_duplicate numbers a taken name; copy_from_dataset_id copies a version.
func TestUploadNamingAndCopy(t *testing.T) {
	h := newHarness(t)
	u := h.org.User
	first := h.create(u, "qa", []string{"q"}, [][]any{{"v1"}})
	h.must(&u, "POST", "/v2/datasets/"+first.ID+"/content", map[string]any{"rows": [][]any{{"v2"}}}, nil)
	var d datasetOut
	resp := h.upload(u, "", map[string]string{"name": "qa", "append_suffix_if_duplicate": "true"}, map[string][]byte{"file": []byte("q\nx\n")})
	resp.decode(t, &d)
	if d.Name != "qa (1)" {
		t.Errorf("name with suffix: %q", d.Name)
	}
	resp = h.upload(u, "", map[string]string{"name": "copy", "copy_from_dataset_id": first.ID, "copy_from_dataset_version_index": "1"}, nil)
	resp.decode(t, &d)
	if resp.code != 200 || d.NumRows != 1 || d.Name != "copy" {
		t.Fatalf("copy of version 1: %d %s", resp.code, resp.body)
	}
	other := h.newUser()
	if resp := h.upload(other, "", map[string]string{"name": "steal", "copy_from_dataset_id": first.ID}, nil); resp.code != http.StatusForbidden {
		t.Errorf("copy of a dataset the caller may not read: %d %s", resp.code, resp.body)
	}
	if resp := h.upload(u, "", map[string]string{"name": "x", "copy_from_dataset_id": first.ID, "copy_from_dataset_version_index": "9"}, nil); resp.code != 422 {
		t.Errorf("copy of a version that does not exist: %d %s", resp.code, resp.body)
	}
}

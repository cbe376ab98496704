package apitest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestIDViolations(t *testing.T) {
	v4 := "9d3e2f1a-5b4c-4d6e-9f0a-1b2c3d4e5f60"
	v5 := uuid.NewSHA1(uuid.NameSpaceURL, []byte("user-42")).String()
	v7 := uuid.Must(uuid.NewV7()).String()
	for _, tc := range []struct {
		name, body string
		want       []string // paths of the violations
	}{
		{"all UUID4", `{"id":"` + v4 + `","project_id":"` + v4 + `","trace_ids":["` + v4 + `"],"parent_id":null}`, nil},
		{"a v5 id", `{"id":"` + v5 + `"}`, []string{".id"}},
		{"a v7 id", `{"signals_run_id":"` + v7 + `"}`, []string{".signals_run_id"}},
		{"a v5 id in a nested record", `{"records":[{"id":"` + v4 + `","session_id":"` + v5 + `"}]}`, []string{".records[0].session_id"}},
		{"a v7 id in a list of ids", `{"finding_ids":["` + v4 + `","` + v7 + `"]}`, []string{".finding_ids[1]"}},
		{"not a UUID at all", `{"dataset_id":"abc","version_id":3}`, []string{".dataset_id", ".version_id"}},
		{"a list of ids that is no list", `{"trace_ids":"` + v4 + `"}`, []string{".trace_ids"}},
		{"upper-case UUID4", `{"id":"` + strings.ToUpper(v4) + `"}`, nil},
		{"exclusions", `{"external_id":"user-7","session_external_id":"u","request_id":"r-1","otel_trace_id":"0af7651916cd43dd8448eb211c80319c",
			"user_metadata":{"user_id":"u-7"},"input":{"id":1},"output":[{"tool_call_id":"call_1"}],"api_key":"gk_secret","name_ids":null,
			"columns":[{"id":"input"}],"lora_task_id":7}`, nil},
		{"not JSON", `id=` + v5, nil},
		{"a JSON list", `[{"id":"` + v5 + `"}]`, []string{"[0].id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, v := range IDViolations([]byte(tc.body)) {
				got = append(got, v.Path)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("IDViolations(%s) = %v, want %v", tc.body, got, tc.want)
			}
		})
	}
}

// The recorder writes a file at a binary's first success and a line per violation, and
// IDRecorded reads them back: what infra/idcheck fails on.
func TestIDRecorder(t *testing.T) {
	dir := t.TempDir()
	r := &idRecorder{dir: dir}
	r.record("GET", "/v2/a", 422, []byte(`{"id":"x"}`)) // an error answers no ids of ours
	r.record("GET", "/openapi.json", 200, []byte(`{"id":{"format":"uuid"}}`))
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Fatalf("an error response created %v", files)
	}
	r.record("GET", "/v2/a", 200, []byte(`{"id":"9d3e2f1a-5b4c-4d6e-9f0a-1b2c3d4e5f60"}`))
	v5 := uuid.NewSHA1(uuid.NameSpaceURL, []byte("x")).String()
	r.record("POST", "/v2/b", 201, []byte(`{"session_id":"`+v5+`"}`))
	got, binaries, err := IDRecorded(dir)
	if err != nil || binaries != 1 {
		t.Fatalf("IDRecorded: %d binaries, %v", binaries, err)
	}
	if want := []string{`POST /v2/b 201 .session_id = "` + v5 + `"`}; !slices.Equal(got, want) {
		t.Errorf("recorded %q, want %q", got, want)
	}
}

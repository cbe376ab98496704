package apitest

import (
	"os"
	"strings"
	"testing"
)

// The contract catches each break the original's clients met (issue 18), and accepts the
// corrected answers and the specification's documented differences.
func TestContractCatchesTheClientsBreaks(t *testing.T) {
	c, err := ClientContract()
	if err != nil {
		t.Fatal(err)
	}
	const (
		uid  = `"5b0c7e9a-1d2f-4a3b-8c4d-5e6f7a8b9c0d"`
		ts   = `"2026-01-02T03:04:05Z"`
		user = `{"id":` + uid + `,"email":"a@example.com","first_name":null,"last_name":null}`
		tag  = `{"key":"suite","value":"x","tag_type":"generic","project_id":` + uid + `,"run_id":` + uid +
			`,"created_by":` + uid + `,"id":` + uid + `,"created_at":` + ts + `,"updated_at":` + ts + `}`
	)
	experiment := func(fields string) string {
		return `[{"id":` + uid + `,"project_id":` + uid + `,"task_type":16` + fields + `}]`
	}
	dataset := func(fields string) string {
		return `{"id":` + uid + `,"name":"d","created_at":` + ts + `,"updated_at":` + ts + `,"num_rows":1,"column_names":["a"],"created_by_user":` + user + `,"current_version_index":1` + fields + `}`
	}
	for _, tc := range []struct {
		name, op string
		status   int
		body     string
		want     string // "" when the answer conforms
	}{
		{"healthcheck as it was", "GET /v2/healthcheck", 200, `{"status":"ok"}`, `lacks "api_version"`},
		{"healthcheck", "GET /v2/healthcheck", 200, `{"api_version":"v2","message":"ok","version":"dev"}`, ""},
		{"project without user and runs", "GET /v2/projects/{project_id}", 200,
			`{"id":` + uid + `,"name":"p","created_by":` + uid + `,"created_at":` + ts + `,"updated_at":` + ts + `}`, `lacks "created_by_user"`},
		{"project", "GET /v2/projects/{project_id}", 200,
			`{"id":` + uid + `,"name":"p","type":"gen_ai","created_by":` + uid + `,"created_by_user":` + user + `,"runs":[],"created_at":` + ts + `,"updated_at":` + ts + `}`, ""},
		{"project of an unknown type", "GET /v2/projects/{project_id}", 200,
			`{"id":` + uid + `,"type":"genai","created_by":` + uid + `,"created_by_user":` + user + `,"runs":[],"created_at":` + ts + `,"updated_at":` + ts + `}`, `is not a ProjectType`},
		{"dataset without project_count and draft", "POST /v2/datasets", 200, dataset(``), `lacks "project_count"`},
		{"dataset", "POST /v2/datasets", 200, dataset(`,"project_count":0,"draft":false`), ""},
		{"content edit answered 200", "PATCH /v2/datasets/{dataset_id}/content", 200, `{"version":2}`, "accepts only 204"},
		{"content edit", "PATCH /v2/datasets/{dataset_id}/content", 204, ``, ""},
		{"experiment tags as bare pairs", "GET /v2/projects/{project_id}/experiments", 200,
			experiment(`,"tags":{"suite":[{"key":"suite","value":"x","tag_type":"generic"}]}`), `RunTagDB lacks "project_id"`},
		{"experiment tags as records", "GET /v2/projects/{project_id}/experiments", 200, experiment(`,"tags":{"suite":[` + tag + `]}`), ""},
		{"experiment task type 19 (specification)", "GET /v2/projects/{project_id}/experiments", 200,
			`[{"id":` + uid + `,"project_id":` + uid + `,"task_type":19}]`, ""},
		{"experiment task type 20", "GET /v2/projects/{project_id}/experiments", 200,
			`[{"id":` + uid + `,"project_id":` + uid + `,"task_type":20}]`, "is not a TaskType"},
		{"run settings with nulls the client does not take", "GET /v2/projects/{project_id}/experiments", 200,
			experiment(`,"prompt_run_settings":{"echo":null}`), `echo: null is not a boolean`},
		{"scorer_type null", "GET /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings", 200,
			`{"scorers":[{"id":` + uid + `,"scorer_type":null}]}`, "is not a ScorerTypes"},
		{"roll_up_method not the client's", "GET /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings", 200,
			`{"scorers":[{"id":` + uid + `,"scorer_type":"llm","roll_up_method":"avg"}]}`, "RollUpMethodDisplayOptions"},
		{"metric settings", "GET /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings", 200,
			`{"scorers":[{"id":` + uid + `,"scorer_type":"llm","roll_up_method":"average"}],"segment_filters":null}`, ""},
		{"an operation the contract does not know", "GET /v2/nowhere", 200, `{}`, "has no entry"},
		{"an error is not the contract's business", "GET /v2/projects/{project_id}", 404, `{"detail":"Project not found"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := c.CheckContract(tc.op, tc.status, []byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("conforming answer refused: %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("break not caught (want an error with %q)", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestSplitAlternatives(t *testing.T) {
	got := splitAlternatives("A | list[B | C] | map[enum(\"x\", \"y\") | null] | null")
	want := []string{"A", "list[B | C]", `map[enum("x", "y") | null]`, "null"}
	if strings.Join(got, "#") != strings.Join(want, "#") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// ContractCoverage names each served operation without an entry, each the client parses
// that no recorded response covered, and each entry that is not an operation; the records
// of several test binaries add up.
func TestContractCoverage(t *testing.T) {
	c := &Contract{Operations: map[string]*ContractOp{
		"GET /v2/a":    {Client: "/a", Status: 200, Body: "X"},
		"GET /v2/b":    {Client: "/b", Status: 204},
		"GET /v2/ours": nil,
		"GET /v2/gone": {Client: "/gone", Status: 200},
	}}
	dir := t.TempDir()
	for i, ops := range [][]string{{"GET /v2/a", "GET /v2/a"}, {"GET /v2/ours"}} {
		f, err := os.CreateTemp(dir, "ops-*.txt")
		if err != nil {
			t.Fatal(err)
		}
		r := &opRecorder{seen: map[string]bool{}, f: f}
		for _, op := range ops {
			if err := r.record(op); err != nil {
				t.Fatalf("binary %d: %v", i, err)
			}
		}
		f.Close()
	}
	recorded, err := Recorded(dir)
	if err != nil || len(recorded) != 2 || !recorded["GET /v2/a"] || !recorded["GET /v2/ours"] {
		t.Fatalf("recorded %v (%v)", recorded, err)
	}
	got := c.ContractCoverage([]string{"GET /v2/a", "GET /v2/b", "GET /v2/ours", "GET /v2/new"}, recorded)
	want := []string{
		"GET /v2/b: no test checked a 204 answer against the client's empty body",
		"GET /v2/gone: in the contract file, but not an operation of docs/openapi.yaml",
		"GET /v2/new: no entry in shared/apitest/testdata/client-contract.json",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("gaps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

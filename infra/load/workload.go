package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// fixture is what the setup creates, and the writes the run makes.
type fixture struct {
	projectID, logStreamID, datasetID, appendID, scorerID string
	appendBase                                            int  // rows of appendID before the run
	experiments                                           bool // the experiments list route exists

	mu       sync.Mutex
	created  []string         // datasets created by the run
	appended []string         // values of the rows appended (one row per append)
	versions map[int64]string // scorer versions created: number -> id
}

// op is one kind of request of the mix.
type op struct {
	route  string // the route's name in the report
	weight int    // share of the mix, out of the sum of weights
	expect []int  // statuses that are not errors
	call   func(ctx context.Context, i int) (int, []byte, error)
	record func(i int, status int, body []byte) error // a write notes what it made
}

// setup creates a project with a log stream, a dataset to read, a dataset to append to and a
// scorer, and finds out whether the experiments routes exist yet.
func setup(ctx context.Context, c *client, tag string) (*fixture, error) {
	f := &fixture{versions: map[int64]string{}}
	var id struct {
		ID string `json:"id"`
	}
	if err := c.must(ctx, http.MethodPost, "/v2/projects", map[string]any{"name": "load " + tag}, &id); err != nil {
		return nil, err
	}
	f.projectID = id.ID
	if err := c.must(ctx, http.MethodPost, "/v2/projects/"+f.projectID+"/log_streams", map[string]any{"name": "load"}, &id); err != nil {
		return nil, err
	}
	f.logStreamID = id.ID
	rows := make([][]any, 50)
	for i := range rows {
		rows[i] = []any{"question " + strconv.Itoa(i), "answer " + strconv.Itoa(i)}
	}
	if err := c.must(ctx, http.MethodPost, "/v2/datasets", map[string]any{"name": "load read " + tag,
		"column_names": []string{"input", "output"}, "rows": rows}, &id); err != nil {
		return nil, err
	}
	f.datasetID = id.ID
	if err := c.must(ctx, http.MethodPost, "/v2/datasets", map[string]any{"name": "load append " + tag,
		"column_names": []string{"input", "output"}, "rows": rows[:1]}, &id); err != nil {
		return nil, err
	}
	f.appendID, f.appendBase = id.ID, 1
	if err := c.must(ctx, http.MethodPost, "/v2/scorers", map[string]any{"name": "load " + tag, "scorer_type": "llm",
		"output_type": "categorical", "input_type": "basic", "scoreable_node_types": []string{"llm"}}, &id); err != nil {
		return nil, err
	}
	f.scorerID = id.ID
	code, _, err := c.do(ctx, http.MethodGet, "/v2/projects/"+f.projectID+"/experiments", nil)
	if err != nil {
		return nil, err
	}
	f.experiments = code == http.StatusOK
	return f, nil
}

// ops is the mix: mostly authenticated reads of existing routes, some writes.
func (f *fixture) ops(c *client) []op {
	get := func(path string) func(ctx context.Context, i int) (int, []byte, error) {
		return func(ctx context.Context, i int) (int, []byte, error) { return c.do(ctx, http.MethodGet, path, nil) }
	}
	ok := []int{http.StatusOK}
	// 409 (a scorer) or 423 (a dataset, as the original's clients expect): the record is
	// being changed by a concurrent request ("retry shortly"): an answer of contention the
	// client is told about, not a lost write.
	okOrBusy := []int{http.StatusOK, http.StatusConflict}
	okOrLocked := []int{http.StatusOK, http.StatusLocked}
	ops := []op{
		{route: "GET /v2/healthcheck", weight: 2, expect: ok, call: get("/v2/healthcheck")},
		{route: "GET /v2/current_user", weight: 3, expect: ok, call: get("/v2/current_user")},
		{route: "GET /v2/datasets/{id}/content", weight: 3, expect: ok, call: get("/v2/datasets/" + f.datasetID + "/content?limit=20")},
		{route: "GET /v2/datasets/{id}/groups", weight: 2, expect: ok, call: get("/v2/datasets/" + f.datasetID + "/groups")},
		{route: "GET .../metric_settings", weight: 2, expect: ok,
			call: get("/v2/projects/" + f.projectID + "/log_streams/" + f.logStreamID + "/metric_settings")},
		{route: "POST .../traces/available_columns", weight: 2, expect: ok,
			call: func(ctx context.Context, i int) (int, []byte, error) {
				return c.do(ctx, http.MethodPost, "/v2/projects/"+f.projectID+"/traces/available_columns",
					map[string]any{"log_stream_id": f.logStreamID})
			}},
		{route: "POST /v2/datasets", weight: 1, expect: ok,
			call: func(ctx context.Context, i int) (int, []byte, error) {
				return c.do(ctx, http.MethodPost, "/v2/datasets", map[string]any{"name": "load created " + strconv.Itoa(i),
					"column_names": []string{"input"}, "rows": [][]any{{"row of " + strconv.Itoa(i)}}})
			},
			record: func(i, status int, body []byte) error {
				var d struct{ ID string }
				if err := json.Unmarshal(body, &d); err != nil || d.ID == "" {
					return fmt.Errorf("create dataset answered %s", body)
				}
				f.mu.Lock()
				f.created = append(f.created, d.ID)
				f.mu.Unlock()
				return nil
			}},
		{route: "POST /v2/datasets/{id}/content", weight: 2, expect: okOrLocked,
			call: func(ctx context.Context, i int) (int, []byte, error) {
				return c.do(ctx, http.MethodPost, "/v2/datasets/"+f.appendID+"/content",
					map[string]any{"rows": [][]any{{"append " + strconv.Itoa(i), "x"}}})
			},
			record: func(i, status int, body []byte) error {
				f.mu.Lock()
				f.appended = append(f.appended, "append "+strconv.Itoa(i))
				f.mu.Unlock()
				return nil
			}},
		{route: "POST /v2/scorers/{id}/version/decision", weight: 2, expect: okOrBusy,
			call: func(ctx context.Context, i int) (int, []byte, error) {
				return c.do(ctx, http.MethodPost, "/v2/scorers/"+f.scorerID+"/version/decision",
					map[string]any{"question": "Is answer " + strconv.Itoa(i) + " polite?", "answer_options": []string{"polite", "rude"}})
			},
			record: func(i, status int, body []byte) error {
				var v struct {
					ID      string `json:"id"`
					Version int64  `json:"version"`
				}
				if err := json.Unmarshal(body, &v); err != nil || v.ID == "" {
					return fmt.Errorf("create version answered %s", body)
				}
				f.mu.Lock()
				defer f.mu.Unlock()
				if other, dup := f.versions[v.Version]; dup {
					return fmt.Errorf("scorer version %d was given twice (%s and %s): a lost write", v.Version, other, v.ID)
				}
				f.versions[v.Version] = v.ID
				return nil
			}},
	}
	if f.experiments {
		ops = append(ops, op{route: "GET /v2/projects/{id}/experiments", weight: 2, expect: ok,
			call: get("/v2/projects/" + f.projectID + "/experiments")})
	}
	return ops
}

// verify reads back what the run wrote: every created dataset, every appended row, and the
// scorer's versions numbered without a gap.
func (f *fixture) verify(ctx context.Context, c *client) []string {
	var problems []string
	for _, id := range f.created {
		if code, b, err := c.do(ctx, http.MethodGet, "/v2/datasets/"+id+"/content", nil); err != nil || code != http.StatusOK {
			problems = append(problems, fmt.Sprintf("created dataset %s reads %d %s %v", id, code, b, err))
		}
	}
	var values []string
	for start := 0; ; {
		var page struct {
			Rows []struct {
				Values []any `json:"values"`
			} `json:"rows"`
			Next *int `json:"next_starting_token"`
		}
		path := fmt.Sprintf("/v2/datasets/%s/content?starting_token=%d&limit=100", f.appendID, start)
		if err := c.must(ctx, http.MethodGet, path, nil, &page); err != nil {
			return append(problems, err.Error())
		}
		for _, r := range page.Rows {
			if len(r.Values) > 0 {
				values = append(values, fmt.Sprint(r.Values[0]))
			}
		}
		if page.Next == nil {
			break
		}
		start = *page.Next
	}
	if want := f.appendBase + len(f.appended); len(values) != want {
		problems = append(problems, fmt.Sprintf("the append dataset has %d rows, want %d (1 + %d appends answered 200)",
			len(values), want, len(f.appended)))
	}
	for _, v := range f.appended {
		if !slices.Contains(values, v) {
			problems = append(problems, fmt.Sprintf("appended row %q is missing", v))
		}
	}
	var nums []int64
	for n := range f.versions {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	for i := 1; i < len(nums); i++ {
		if nums[i] != nums[i-1]+1 {
			problems = append(problems, fmt.Sprintf("scorer versions jump from %d to %d", nums[i-1], nums[i]))
		}
	}
	return problems
}

// result is one request's outcome.
type result struct {
	op     int
	status int
	took   time.Duration
	err    error
}

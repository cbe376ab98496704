package store_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
)

func ptr[T any](v T) *T { return &v }

var now = time.Date(2026, 3, 4, 5, 6, 7, 890000000, time.UTC)

func TestProjectsAndLogStreams(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		p := store.Project{ID: "p1-" + t.Name(), OrgID: "org-a", Name: "demo", Type: "gen_ai", CreatedBy: "u", CreatedAt: now, UpdatedAt: now}
		if err := store.CreateProject(ctx, tbl, p); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			err  error
		}{
			{"same name same org", store.CreateProject(ctx, tbl, store.Project{ID: "p2-" + t.Name(), OrgID: "org-a", Name: "demo"})},
			{"same id", store.CreateProject(ctx, tbl, store.Project{ID: p.ID, OrgID: "org-a", Name: "other"})},
		} {
			if tc.err == nil {
				t.Errorf("%s: created twice", tc.name)
			}
		}
		if err := store.CreateProject(ctx, tbl, store.Project{ID: "p3-" + t.Name(), OrgID: "org-b", Name: "demo"}); err != nil {
			t.Errorf("another organization may use the name: %v", err)
		}
		if err := store.CreateProject(ctx, tbl, store.Project{ID: "p4-" + t.Name(), OrgID: "org-a", Name: "demo"}); !errors.Is(err, store.ErrNameTaken) {
			t.Errorf("duplicate name: %v, want ErrNameTaken", err)
		}
		got, err := store.GetProject(ctx, tbl, "org-a", p.ID)
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("GetProject = %+v, %v; want %+v", got, err, p)
		}
		if _, err := store.GetProject(ctx, tbl, "org-b", p.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organization's project: %v, want ErrNotFound", err)
		}

		ls := store.LogStream{ID: "ls1", ProjectID: p.ID, OrgID: "org-a", Name: "prod", CreatedAt: now, UpdatedAt: now}
		if err := store.CreateLogStream(ctx, tbl, ls); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateLogStream(ctx, tbl, store.LogStream{ID: "ls2", ProjectID: p.ID, OrgID: "org-a", Name: "prod"}); !errors.Is(err, store.ErrNameTaken) {
			t.Errorf("duplicate log stream name: %v", err)
		}
		if err := store.CreateLogStream(ctx, tbl, store.LogStream{ID: "ls3", ProjectID: "missing-" + t.Name(), OrgID: "org-a", Name: "x"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("log stream of a missing project: %v, want ErrNotFound", err)
		}
		read, err := store.GetLogStream(ctx, tbl, "org-a", p.ID, "ls1")
		if err != nil || read.Scorers == nil || len(read.Scorers) != 0 || read.SegmentFilters != nil || read.Name != "prod" {
			t.Errorf("new log stream = %+v, %v; want no scorers and null segment filters", read, err)
		}
		for _, miss := range []struct{ org, project string }{{"org-b", p.ID}, {"org-a", "p3-" + t.Name()}} {
			if _, err := store.GetLogStream(ctx, tbl, miss.org, miss.project, "ls1"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("GetLogStream(%s, %s) = %v, want ErrNotFound", miss.org, miss.project, err)
			}
		}
	})
}

// fullSettings uses every field kind the settings hold.
func fullSettings() store.MetricSettings {
	return store.MetricSettings{
		Scorers: []store.ScorerConfig{{
			ID: "s1", Name: ptr("tone"), ScorerType: ptr("llm"), NumJudges: ptr(int64(3)), CotEnabled: ptr(false),
			ScoreableNodeTypes: []string{}, RollUpConfig: &store.RollUpConfig{RollUpMethods: []string{"average", "max"}},
			Filters: []store.ScorerFilter{
				{Name: store.FilterNodeName, Operator: "eq", Value: store.FilterValue{Values: []string{"llm"}}, CaseSensitive: false},
				{Name: store.FilterMetadata, Operator: "one_of", Key: "", Value: store.FilterValue{Values: []string{"a", "b"}, List: true}},
				{Name: store.FilterModality, Operator: "ne", Value: store.FilterValue{List: true, Values: []string{}}},
			},
			ClassNameToVocabIx: map[string]store.VocabIndex{"yes": {One: 4}, "no": {Set: []int64{1, 2}}, "none": {Set: []int64{}}},
			ChainpollTemplate: &store.ChainPollTemplate{Template: "t", ValueFieldName: "rating", ExplanationFieldName: "explanation",
				MetricFewShotExamples: []store.FewShotExample{{GenerationPromptAndResponse: "g", EvaluatingResponse: "e"}}, ResponseSchema: map[string]any{"type": "object"}},
			ScorerVersion: &store.ScorerVersionRecord{ID: "v", Version: 2, ScorerID: "s1",
				FinetunedScorer: &store.FinetunedScorerRecord{ID: "f", Name: "n", LoraTaskID: 9, Prompt: "p",
					ClassNameToVocabIx: map[string]store.VocabIndex{"a": {One: 0}}}},
			GroundTruth: ptr(false),
		}, {ID: "s2"}},
		SegmentFilters: []store.SegmentFilter{
			{SampleRate: 0.25, LLMScorers: true},
			{SampleRate: 1, Filter: &store.ScorerFilter{Name: store.FilterNodeName, Operator: "contains", Value: store.FilterValue{Values: []string{"x"}}, CaseSensitive: true}},
		},
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMetricSettingsRoundTrip(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		p := store.Project{ID: "p-" + t.Name(), OrgID: "o", Name: "n"}
		ls := store.LogStream{ID: "ls", ProjectID: p.ID, OrgID: "o", Name: "n"}
		if err := store.CreateProject(ctx, tbl, p); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateLogStream(ctx, tbl, ls); err != nil {
			t.Fatal(err)
		}
		want := fullSettings()
		got, err := store.SetMetricSettings(ctx, tbl, ls, &want.Scorers, &want.SegmentFilters, now)
		if err != nil {
			t.Fatal(err)
		}
		if asJSON(t, got) != asJSON(t, want) {
			t.Errorf("returned settings\n got  %s\n want %s", asJSON(t, got), asJSON(t, want))
		}
		read, err := store.GetLogStream(ctx, tbl, "o", p.ID, "ls")
		if err != nil || asJSON(t, read.MetricSettings) != asJSON(t, want) || !read.UpdatedAt.Equal(now) {
			t.Errorf("read settings\n got  %s (%v)\n want %s", asJSON(t, read.MetricSettings), err, asJSON(t, want))
		}
		// A patch of one part leaves the other as it was.
		one := []store.ScorerConfig{{ID: "s3"}}
		got, err = store.SetMetricSettings(ctx, tbl, ls, &one, nil, now)
		if err != nil || len(got.Scorers) != 1 || asJSON(t, got.SegmentFilters) != asJSON(t, want.SegmentFilters) {
			t.Errorf("scorers-only patch = %s, %v", asJSON(t, got), err)
		}
		gone := store.LogStream{ID: "gone", ProjectID: p.ID}
		if _, err := store.SetMetricSettings(ctx, tbl, gone, &one, nil, now); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("settings of a missing log stream: %v, want ErrNotFound", err)
		}
	})
}

func TestColumnSummary(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		run := "run-" + t.Name()
		if got, err := store.FilledColumns(ctx, tbl, run); err != nil || len(got) != 0 {
			t.Fatalf("no summary: %v, %v; want none filled", got, err)
		}
		for _, ids := range [][]string{{"input", "metrics/tone"}, {"input", "model"}, nil} {
			if err := store.MarkColumnsFilled(ctx, tbl, run, ids...); err != nil {
				t.Fatal(err)
			}
		}
		got, err := store.FilledColumns(ctx, tbl, run)
		want := map[string]bool{"input": true, "metrics/tone": true, "model": true}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("FilledColumns = %v, %v; want %v", got, err, want)
		}
	})
}

// eachTable runs fn on a fresh table of every backend (testenv.EachTable).
func eachTable(t *testing.T, fn func(t *testing.T, tbl store.Table)) { testenv.EachTable(t, fn) }

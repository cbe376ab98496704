package store_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

func TestScorerVersions(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		s := store.Scorer{ID: "sc-" + t.Name(), OrgID: "org-a", Name: "polite", Label: "Polite Words", ScorerType: "llm", Tags: []string{},
			OutputType: ptr("discrete"), CreatedAt: now, UpdatedAt: now}
		if err := store.CreateScorer(ctx, tbl, s); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateScorer(ctx, tbl, store.Scorer{ID: "other-" + t.Name(), OrgID: "org-a", Name: "polite"}); !errors.Is(err, store.ErrNameTaken) {
			t.Errorf("duplicate scorer name: %v", err)
		}
		// Labels are claimed lower-cased: another case of the label is taken too.
		if err := store.CreateScorer(ctx, tbl, store.Scorer{ID: "label-" + t.Name(), OrgID: "org-a", Name: "kind", Label: "POLITE words"}); !errors.Is(err, store.ErrLabelTaken) {
			t.Errorf("duplicate scorer label: %v", err)
		}
		if err := store.CreateScorer(ctx, tbl, store.Scorer{ID: "label-b-" + t.Name(), OrgID: "org-b", Name: "kind", Label: "POLITE words"}); err != nil {
			t.Errorf("the label in another organization: %v", err)
		}
		if _, err := store.GetScorer(ctx, tbl, "org-b", s.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organization's scorer: %v", err)
		}
		read, err := store.GetScorer(ctx, tbl, "org-a", s.ID)
		if err != nil || read.VersionCount != 0 || !reflect.DeepEqual(read, s) {
			t.Fatalf("GetScorer = %+v, %v", read, err)
		}
		if read.LatestVersion != nil {
			t.Errorf("latest of a new scorer = %v", read.LatestVersion)
		}
		levels := store.AnswerOptions{Levels: []store.DecisionLevel{{Label: "low", Value: 0}, {Label: "high", Value: 1}}}
		for n := int64(1); n <= 3; n++ {
			v := store.ScorerVersion{ID: "v", CreatedAt: now, UpdatedAt: now,
				Decision: &store.DecisionScorer{Question: "q", AnswerOptions: levels}}
			got, err := store.PutNextScorerVersion(ctx, tbl, read, v)
			if err != nil || got.Version != n {
				t.Fatalf("version %d: %+v, %v", n, got, err)
			}
			// The same stale scorer loses: its number is taken.
			if _, err := store.PutNextScorerVersion(ctx, tbl, read, v); !errors.Is(err, store.ErrVersionRace) || !errors.Is(err, store.ErrConditionFailed) {
				t.Fatalf("stale write of version %d: %v, want ErrVersionRace", n, err)
			}
			if read, err = store.GetScorer(ctx, tbl, "org-a", s.ID); err != nil || read.VersionCount != n {
				t.Fatalf("after version %d the counter is %d (%v)", n, read.VersionCount, err)
			}
		}
		if latest := read.LatestVersion; latest == nil || latest.Version != 3 || latest.ScorerID != s.ID ||
			!reflect.DeepEqual(latest.Decision.AnswerOptions, levels) {
			t.Errorf("latest = %+v", latest)
		}
		all, err := store.ScorerVersions(ctx, tbl, s.ID)
		if err != nil || len(all) != 3 {
			t.Fatalf("ScorerVersions = %d, %v", len(all), err)
		}
		for i, v := range all {
			if v.Version != int64(i+1) || v.ScorerID != s.ID {
				t.Errorf("version %d = %+v", i+1, v)
			}
		}
	})
}

func TestAnswerOptionsJSON(t *testing.T) {
	for _, tc := range []struct {
		json string
		opts store.AnswerOptions
	}{
		{`null`, store.AnswerOptions{}},
		{`["a","b"]`, store.AnswerOptions{Labels: []string{"a", "b"}}},
		{`[{"label":"a","value":0},{"label":"b","value":1}]`, store.AnswerOptions{Levels: []store.DecisionLevel{{Label: "a", Value: 0}, {Label: "b", Value: 1}}}},
	} {
		b, err := json.Marshal(tc.opts)
		if err != nil || string(b) != tc.json {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.opts, b, err, tc.json)
		}
		var back store.AnswerOptions
		if err := json.Unmarshal([]byte(tc.json), &back); err != nil || !reflect.DeepEqual(back, tc.opts) {
			t.Errorf("Unmarshal(%s) = %+v, %v", tc.json, back, err)
		}
	}
}

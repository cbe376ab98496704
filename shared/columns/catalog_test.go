package columns

import (
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

func ptr[T any](v T) *T { return &v }

func TestMetric(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    store.ScorerConfig
		id     string
		unit   *string
		rollUp string
	}{
		{"named percentage", store.ScorerConfig{ID: "a", Name: ptr("correctness"), OutputType: ptr("percentage")},
			"metrics/correctness", ptr("percentage"), "average"},
		{"unnamed uses id", store.ScorerConfig{ID: "0b6c2f1e-0000-4000-8000-000000000000"},
			"metrics/0b6c2f1e-0000-4000-8000-000000000000", nil, "average"},
		{"empty name uses id", store.ScorerConfig{ID: "x", Name: ptr("")}, "metrics/x", nil, "average"},
		{"roll_up_method wins", store.ScorerConfig{ID: "a", Name: ptr("m"), RollUpMethod: ptr("sum"),
			RollUpConfig: &store.RollUpConfig{RollUpMethods: []string{"max"}}}, "metrics/m", nil, "sum"},
		{"roll_up_config first", store.ScorerConfig{ID: "a", Name: ptr("m"), OutputType: ptr("boolean"),
			RollUpConfig: &store.RollUpConfig{RollUpMethods: []string{"category_count"}}}, "metrics/m", nil, "category_count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Metric(tc.cfg)
			if c.ID != tc.id || c.Category != "metric" || c.FilterType != "number" || c.DataType != "floating_point" {
				t.Errorf("got %+v", c)
			}
			if (c.DataUnit == nil) != (tc.unit == nil) || (c.DataUnit != nil && *c.DataUnit != *tc.unit) {
				t.Errorf("data_unit = %v, want %v", c.DataUnit, tc.unit)
			}
			if c.RollUpMethod == nil || *c.RollUpMethod != tc.rollUp {
				t.Errorf("roll_up_method = %v, want %s", c.RollUpMethod, tc.rollUp)
			}
			if c.ApplicableTypes == nil || len(c.ApplicableTypes) != 0 || c.Threshold == nil || len(c.Threshold.Buckets) == 0 {
				t.Errorf("applicable_types must be [] and threshold set: %+v", c)
			}
			if !c.Accepts(FilterNumber) || c.Accepts(FilterText) {
				t.Error("a metric column takes number filters only")
			}
		})
	}
}

func TestCatalogForSettings(t *testing.T) {
	cat := ForSettings(store.MetricSettings{Scorers: []store.ScorerConfig{
		{ID: "1", Name: ptr("b")}, {ID: "2", Name: ptr("a")}, {ID: "3", Name: ptr("b")},
	}})
	cols := cat.Columns()
	ids := make([]string, len(cols))
	for i, c := range cols {
		ids[i] = c.ID
	}
	if len(cols) != 38 || !slices.Equal(ids[36:], []string{"metrics/b", "metrics/a"}) || ids[0] != "input" || ids[35] != "selector_path" {
		t.Fatalf("catalog ids = %v", ids)
	}
	for _, tc := range []struct {
		id string
		ok bool
	}{{"metrics/a", true}, {"input", true}, {"metrics/c", false}, {"b", false}} {
		if _, ok := cat.Lookup(tc.id); ok != tc.ok {
			t.Errorf("Lookup(%q) = %v", tc.id, ok)
		}
	}
	marked := cat.WithEmptiness(map[string]bool{"input": true, "metrics/a": true})
	for _, c := range marked {
		want := c.ID != "input" && c.ID != "metrics/a"
		if c.IsEmpty != want {
			t.Errorf("%s is_empty = %v, want %v", c.ID, c.IsEmpty, want)
		}
	}
	if c, _ := cat.Lookup("input"); c.IsEmpty {
		t.Error("WithEmptiness changed the catalog")
	}
}

package columns

import (
	"encoding/json"
	"slices"
	"testing"
)

// specRow is one row of the standard-column table of §2.11, copied from the specification.
type specRow struct {
	id       string
	data     DataType
	filter   FilterType
	types    []string
	optional bool
	multi    bool     // multi_valued
	unsorted bool     // sortable false
	allowed  []string // allowed_values, nil when the row names none
}

var (
	all    = []string{"workflow", "trace", "http", "agent", "llm", "control", "session", "tool", "retriever"}
	nosess = []string{"workflow", "trace", "http", "agent", "llm", "control", "tool", "retriever"}
	span   = []string{"workflow", "http", "agent", "llm", "control", "tool", "retriever"}
)

var specTable = []specRow{
	{id: "input", data: "text", filter: "text", types: all},
	{id: "output", data: "text", filter: "text", types: all},
	{id: "name", data: "text", filter: "text", types: all},
	{id: "created_at", data: "timestamp", filter: "date", types: all},
	{id: "tags", data: "string_list", filter: "collection", types: nosess, multi: true, unsorted: true},
	{id: "status_code", data: "integer", filter: "number", types: nosess, optional: true},
	{id: "external_id", data: "text", filter: "text", types: all, optional: true},
	{id: "dataset_input", data: "text", filter: "text", types: nosess},
	{id: "dataset_output", data: "text", filter: "text", types: nosess},
	{id: "id", data: "uuid", filter: "id", types: all},
	{id: "session_id", data: "uuid", filter: "id", types: nosess},
	{id: "project_id", data: "uuid", filter: "id", types: nosess},
	{id: "run_id", data: "uuid", filter: "id", types: nosess},
	{id: "updated_at", data: "timestamp", filter: "date", types: nosess, optional: true},
	{id: "has_children", data: "boolean", filter: "boolean", types: nosess, optional: true},
	{id: "progress_message", data: "text", filter: "text", types: all},
	{id: "error_message", data: "text", filter: "text", types: all},
	{id: "dataset_generated_output", data: "text", filter: "text", types: []string{"trace"}},
	{id: "is_complete", data: "boolean", filter: "boolean", types: nosess},
	{id: "type", data: "text", filter: "text", types: span, allowed: all},
	{id: "trace_id", data: "uuid", filter: "id", types: span},
	{id: "parent_id", data: "uuid", filter: "id", types: span},
	{id: "step_number", data: "integer", filter: "number", types: span, optional: true},
	{id: "agent_type", data: "text", filter: "text", types: []string{"agent"},
		allowed: []string{"judge", "classifier", "react", "default", "router", "planner", "supervisor", "reflection"}},
	{id: "agent_name", data: "text", filter: "text", types: []string{"control", "agent"}, optional: true},
	{id: "tools", data: "text", filter: "text", types: []string{"llm"}},
	{id: "model", data: "text", filter: "text", types: []string{"llm"}, optional: true},
	{id: "provider", data: "text", filter: "text", types: []string{"llm"}, optional: true},
	{id: "temperature", data: "floating_point", filter: "number", types: []string{"llm"}, optional: true},
	{id: "finish_reason", data: "text", filter: "text", types: []string{"llm"}, optional: true},
	{id: "tool_call_id", data: "text", filter: "text", types: []string{"tool"}, optional: true},
	{id: "control_id", data: "integer", filter: "number", types: []string{"control"}, optional: true},
	{id: "check_stage", data: "text", filter: "text", types: []string{"control"}, optional: true, allowed: []string{"post", "pre"}},
	{id: "applies_to", data: "text", filter: "text", types: []string{"control"}, optional: true, allowed: []string{"llm_call", "tool_call"}},
	{id: "evaluator_name", data: "text", filter: "text", types: []string{"control"}, optional: true},
	{id: "selector_path", data: "text", filter: "text", types: []string{"control"}, optional: true},
}

func TestStandardMatchesSpecificationTable(t *testing.T) {
	got := Standard()
	if len(got) != len(specTable) || len(got) != 36 {
		t.Fatalf("Standard() has %d columns, the specification %d (36)", len(got), len(specTable))
	}
	for i, want := range specTable {
		c := got[i]
		t.Run(want.id, func(t *testing.T) {
			checks := []struct {
				what string
				ok   bool
			}{
				{"id (order)", c.ID == want.id},
				{"data_type", c.DataType == want.data},
				{"filter_type", c.FilterType == want.filter},
				{"applicable_types", slices.Equal(c.ApplicableTypes, want.types)},
				{"is_optional", c.IsOptional == want.optional},
				{"multi_valued", c.MultiValued == want.multi},
				{"sortable", c.Sortable == !want.unsorted},
				{"allowed_values", slices.Equal(c.AllowedValues, want.allowed) && (c.AllowedValues == nil) == (want.allowed == nil)},
				{"category", c.Category == "standard"},
				{"group_label", c.GroupLabel == "Standard"},
				{"filterable", c.Filterable},
				{"is_empty defaults false", !c.IsEmpty},
				{"label and description", c.Label != "" && c.Description != ""},
				{"no metric fields", c.DataUnit == nil && c.RollUpMethod == nil && c.Threshold == nil},
			}
			for _, ch := range checks {
				if !ch.ok {
					t.Errorf("%s: got %+v", ch.what, c)
				}
			}
		})
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		id   string
		ok   bool
		kind FilterType
	}{
		{"input", true, FilterText},
		{"created_at", true, FilterDate},
		{"tags", true, FilterCollection},
		{"temperature", true, FilterNumber},
		{"session_id", true, FilterID},
		{"is_complete", true, FilterBoolean},
		{"metrics/correctness", false, ""},
		{"Input", false, ""},
		{"", false, ""},
	} {
		c, ok := Lookup(tc.id)
		if ok != tc.ok || c.FilterType != tc.kind {
			t.Errorf("Lookup(%q) = %v %q, want %v %q", tc.id, ok, c.FilterType, tc.ok, tc.kind)
		}
		if ok && (!c.Accepts(tc.kind) || c.Accepts("other")) {
			t.Errorf("Lookup(%q).Accepts wrong", tc.id)
		}
	}
}

func TestStandardReturnsCopies(t *testing.T) {
	a := Standard()
	a[0].ApplicableTypes[0] = "changed"
	a[19].AllowedValues[0] = "changed"
	b := Standard()
	if b[0].ApplicableTypes[0] != "workflow" || b[19].AllowedValues[0] != "workflow" {
		t.Fatal("changing a returned column changed the catalog")
	}
}

func TestColumnJSONHasEveryKey(t *testing.T) {
	c, _ := Lookup("type")
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "label", "description", "category", "group_label", "data_type", "data_unit",
		"filter_type", "filterable", "sortable", "multi_valued", "is_empty", "is_optional", "applicable_types",
		"allowed_values", "roll_up_method", "threshold"} {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing from %s", k, b)
		}
	}
	if m["data_unit"] != nil || m["threshold"] != nil {
		t.Errorf("metric-only keys should be null on a standard column: %s", b)
	}
}

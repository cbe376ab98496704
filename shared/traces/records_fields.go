package traces

import (
	"strconv"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// The catalog columns of each record kind, for filters and sorts (§2.11's applicable types:
// a column a kind does not carry holds no value on it).

// traceFields are a trace's columns (fields.go).
type traceFields struct{ tr *store.Trace }

func (t traceFields) text(id string) (string, bool)    { return records.TextField(t.tr, id) }
func (t traceFields) ident(id string) (string, bool)   { return records.IDField(t.tr, id) }
func (t traceFields) number(id string) (float64, bool) { return records.NumberField(t.tr, id) }
func (t traceFields) boolean(id string) (bool, bool)   { return records.BoolField(t.tr, id) }
func (t traceFields) date(id string) (time.Time, bool) { return records.DateField(t.tr, id) }
func (t traceFields) tags() []string                   { return t.tr.Tags }

// spanFields are a span's columns.
type spanFields struct{ sp *store.Span }

func opt(p *string) (string, bool) {
	if p == nil {
		return "", false
	}
	return *p, true
}

func (s spanFields) text(id string) (string, bool) {
	sp := s.sp
	switch id {
	case "input":
		return sp.Input.Text(), true
	case "output":
		return sp.Output.Text(), true
	case "name":
		return sp.Name, true
	case "type":
		return sp.Type, true
	case "tools":
		if sp.Tools.IsNull() {
			return "", false
		}
		return sp.Tools.Text(), true
	case "external_id":
		return opt(sp.ExternalID)
	case "dataset_input":
		return opt(sp.DatasetInput)
	case "dataset_output":
		return opt(sp.DatasetOutput)
	case "model":
		return opt(sp.Model)
	case "provider":
		return opt(sp.Provider)
	case "finish_reason":
		return opt(sp.FinishReason)
	case "tool_call_id":
		return opt(sp.ToolCallID)
	case "agent_type":
		return opt(sp.AgentType)
	case "agent_name":
		return opt(sp.AgentName)
	case "check_stage", "applies_to", "evaluator_name", "selector_path":
		v, ok := sp.Control[id]
		return v, ok
	}
	return "", false
}

func (s spanFields) ident(id string) (string, bool) {
	sp := s.sp
	switch id {
	case "id":
		return sp.ID, true
	case "trace_id":
		return sp.TraceID, true
	case "parent_id":
		return sp.ParentID, true
	case "project_id":
		return sp.ProjectID, true
	case "run_id":
		return sp.RunID, true
	case "session_id":
		return opt(sp.SessionID)
	}
	return "", false
}

func (s spanFields) number(id string) (float64, bool) {
	sp := s.sp
	if name, ok := strings.CutPrefix(id, columns.MetricPrefix); ok {
		if v, ok := sp.Metrics[name]; ok && v.Number != nil {
			return *v.Number, true
		}
		return 0, false
	}
	switch id {
	case "status_code":
		if sp.StatusCode != nil {
			return float64(*sp.StatusCode), true
		}
	case "temperature":
		if sp.Temperature != nil {
			return *sp.Temperature, true
		}
	case "step_number":
		if sp.StepNumber != nil {
			return float64(*sp.StepNumber), true
		}
	case "control_id":
		if v, ok := sp.Control["control_id"]; ok {
			n, err := strconv.ParseFloat(v, 64)
			return n, err == nil
		}
	}
	return records.UsageNumber(sp.Usage, id)
}

func (s spanFields) boolean(id string) (bool, bool) {
	switch id {
	case "is_complete":
		return s.sp.IsComplete, true
	case "has_children":
		return s.sp.HasChildren, true
	}
	return false, false
}

func (s spanFields) date(id string) (time.Time, bool) {
	switch id {
	case "created_at":
		return s.sp.CreatedAt, true
	case "updated_at":
		if s.sp.UpdatedAt != nil {
			return *s.sp.UpdatedAt, true
		}
	}
	return time.Time{}, false
}

func (s spanFields) tags() []string { return s.sp.Tags }

// sessionFields are a session's columns.
type sessionFields struct{ s *store.LogSession }

func (f sessionFields) text(id string) (string, bool) {
	switch id {
	case "name":
		return opt(f.s.Name)
	case "external_id":
		return opt(f.s.ExternalID)
	case "type":
		return "session", true
	}
	return "", false
}

func (f sessionFields) ident(id string) (string, bool) {
	switch id {
	case "id", "session_id":
		return f.s.ID, true
	case "project_id":
		return f.s.ProjectID, true
	case "run_id":
		return f.s.RunID, true
	}
	return "", false
}

func (f sessionFields) number(string) (float64, bool) { return 0, false }
func (f sessionFields) boolean(string) (bool, bool)   { return false, false }

func (f sessionFields) date(id string) (time.Time, bool) {
	switch id {
	case "created_at":
		return f.s.CreatedAt, true
	case "updated_at":
		if f.s.UpdatedAt != nil {
			return *f.s.UpdatedAt, true
		}
	}
	return time.Time{}, false
}

func (f sessionFields) tags() []string { return nil }

package records

import (
	"strconv"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/store"
)

// The values of a trace by column id of the catalog (§2.11). A trace holds the trace-level
// columns; columns that only spans carry (agent_name, tool_call_id, control fields, ...) hold
// no value on a trace, so filters on them match nothing and group_by on them finds no group.

func TextField(tr *store.Trace, id string) (string, bool) {
	opt := func(p *string) (string, bool) {
		if p == nil {
			return "", false
		}
		return *p, true
	}
	switch id {
	case "input":
		return tr.Input.Text(), true
	case "output":
		return tr.Output.Text(), true
	case "name":
		return tr.Name, true
	case "type":
		return tr.Type, true
	case "external_id":
		return opt(tr.ExternalID)
	case "dataset_input":
		return opt(tr.DatasetInput)
	case "dataset_output":
		return opt(tr.DatasetOutput)
	case "dataset_generated_output":
		return opt(tr.DatasetGeneratedOutput)
	case "progress_message":
		return opt(tr.ProgressMessage)
	case "error_message":
		return opt(tr.ErrorMessage)
	case "model":
		return opt(tr.Model)
	case "provider":
		return opt(tr.Provider)
	case "finish_reason":
		return opt(tr.FinishReason)
	}
	return "", false
}

func IDField(tr *store.Trace, id string) (string, bool) {
	switch id {
	case "id", "trace_id":
		return tr.ID, true
	case "project_id":
		return tr.ProjectID, true
	case "run_id":
		return tr.RunID, true
	case "session_id":
		if tr.SessionID != nil {
			return *tr.SessionID, true
		}
	}
	return "", false
}

func NumberField(tr *store.Trace, id string) (float64, bool) {
	if name, ok := strings.CutPrefix(id, columns.MetricPrefix); ok {
		if v, ok := tr.Metrics[name]; ok && v.Number != nil {
			return *v.Number, true
		}
		return 0, false
	}
	switch id {
	case "status_code":
		if tr.StatusCode != nil {
			return float64(*tr.StatusCode), true
		}
	case "temperature":
		if tr.Temperature != nil {
			return *tr.Temperature, true
		}
	}
	return UsageNumber(tr.Usage, id)
}

func BoolField(tr *store.Trace, id string) (bool, bool) {
	switch id {
	case "is_complete":
		return tr.IsComplete, true
	case "has_children":
		return tr.HasChildren, true
	}
	return false, false
}

func DateField(tr *store.Trace, id string) (time.Time, bool) {
	switch id {
	case "created_at":
		return tr.CreatedAt, true
	case "updated_at":
		if tr.UpdatedAt != nil {
			return *tr.UpdatedAt, true
		}
	}
	return time.Time{}, false
}

// GroupValues are the group_by values of a trace for a column: none when the trace holds no
// value, one per tag for tags (a trace counts once in each of its tags' groups).
func GroupValues(tr *store.Trace, col columns.Column, buf []string) []string {
	buf = buf[:0]
	switch col.FilterType {
	case columns.FilterText:
		if v, ok := TextField(tr, col.ID); ok {
			buf = append(buf, v)
		}
	case columns.FilterID:
		if v, ok := IDField(tr, col.ID); ok {
			buf = append(buf, v)
		}
	case columns.FilterNumber:
		if v, ok := NumberField(tr, col.ID); ok {
			buf = append(buf, FormatNumber(v))
		}
	case columns.FilterBoolean:
		if v, ok := BoolField(tr, col.ID); ok {
			buf = append(buf, strconv.FormatBool(v))
		}
	case columns.FilterDate:
		if v, ok := DateField(tr, col.ID); ok {
			buf = append(buf, v.UTC().Format(time.RFC3339Nano))
		}
	case columns.FilterCollection:
		buf = Dedupe(append(buf, tr.Tags...))
	}
	return buf
}

func FormatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// RollupColumns are the columns ingestion keeps roll-ups by, besides the totals: the cheap
// group_by columns of a trace.
var RollupColumns = []string{"model", "provider", "name", "type", "status_code", "tags"}

func IsRollupColumn(id string) bool {
	for _, c := range RollupColumns {
		if c == id {
			return true
		}
	}
	return false
}

// WithField is a trace holding only value in column id: how a roll-up row, which knows one
// column's value, is tested against a filter on that column.
func WithField(id, value string) *store.Trace {
	tr := &store.Trace{}
	switch id {
	case "model":
		tr.Model = &value
	case "provider":
		tr.Provider = &value
	case "name":
		tr.Name = value
	case "type":
		tr.Type = value
	case "status_code":
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			tr.StatusCode = &n
		}
	case "tags":
		tr.Tags = []string{value}
	}
	return tr
}

// UsageNumber reads the usage columns a search may sort on.
func UsageNumber(u store.Usage, id string) (float64, bool) {
	switch id {
	case "latency_ms":
		if u.LatencyMs != nil {
			return *u.LatencyMs, true
		}
	case "total_tokens":
		if u.TotalTokens != nil {
			return float64(*u.TotalTokens), true
		}
	case "total_cost":
		if u.TotalCost != nil {
			return *u.TotalCost, true
		}
	}
	return 0, false
}

package traces

import (
	"math"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// recordOut is a trace, a span or a session as the reads answer it: the client's
// ExtendedTraceRecordWithChildren, Extended*SpanRecord(WithChildren) and
// ExtendedSessionRecordWithChildren, with the catalog's usage columns beside their metrics
// object (latency_ms, total_tokens, total_cost...).
type recordOut struct {
	Type              string            `json:"type"`
	ID                string            `json:"id"`
	SessionID         *string           `json:"session_id"`
	TraceID           *string           `json:"trace_id"`
	ParentID          *string           `json:"parent_id,omitempty"`
	ProjectID         string            `json:"project_id"`
	RunID             string            `json:"run_id"`
	Name              string            `json:"name"`
	Input             store.Content     `json:"input"`
	RedactedInput     store.Content     `json:"redacted_input"`
	Output            store.Content     `json:"output"`
	RedactedOutput    store.Content     `json:"redacted_output"`
	CreatedAt         string            `json:"created_at"`
	UpdatedAt         *string           `json:"updated_at"`
	UserMetadata      map[string]string `json:"user_metadata"`
	Tags              []string          `json:"tags"`
	StatusCode        *int64            `json:"status_code"`
	Metrics           usageOut          `json:"metrics"`
	MetricInfo        map[string]any    `json:"metric_info"`
	ExternalID        *string           `json:"external_id"`
	DatasetInput      *string           `json:"dataset_input"`
	DatasetOutput     *string           `json:"dataset_output"`
	DatasetMetadata   map[string]string `json:"dataset_metadata"`
	HasChildren       *bool             `json:"has_children"`
	IsComplete        *bool             `json:"is_complete,omitempty"`
	ProgressMessage   string            `json:"progress_message"`
	ErrorMessage      string            `json:"error_message"`
	StepNumber        *int64            `json:"step_number,omitempty"`
	Depth             *int64            `json:"depth,omitempty"`
	NumSpans          *int64            `json:"num_spans,omitempty"`
	NumTraces         *int64            `json:"num_traces,omitempty"`
	PreviousSessionID *string           `json:"previous_session_id,omitempty"`
	// span columns
	Tools        store.Content `json:"tools,omitempty"`
	Events       store.Content `json:"events,omitempty"`
	Model        *string       `json:"model,omitempty"`
	Provider     *string       `json:"provider,omitempty"`
	Temperature  *float64      `json:"temperature,omitempty"`
	FinishReason *string       `json:"finish_reason,omitempty"`
	ToolCallID   *string       `json:"tool_call_id,omitempty"`
	AgentType    *string       `json:"agent_type,omitempty"`
	AgentName    *string       `json:"agent_name,omitempty"`
	ControlID    *int64        `json:"control_id,omitempty"`
	CheckStage   *string       `json:"check_stage,omitempty"`
	AppliesTo    *string       `json:"applies_to,omitempty"`
	Evaluator    *string       `json:"evaluator_name,omitempty"`
	SelectorPath *string       `json:"selector_path,omitempty"`
	// the catalog's usage columns
	LatencyMs   *float64 `json:"latency_ms,omitempty"`
	TotalTokens *int64   `json:"total_tokens,omitempty"`
	TotalCost   *float64 `json:"total_cost,omitempty"`
	// children
	Spans  []*recordOut `json:"spans,omitempty"`
	Traces []*recordOut `json:"traces,omitempty"`
	// WarningMessage says what a read cut to stay under the answer limit (answer_size.go).
	WarningMessage *string `json:"warning_message,omitempty"`
}

// usageOut is the client's metrics object (LlmMetrics).
type usageOut struct {
	DurationNs         *int64 `json:"duration_ns"`
	NumInputTokens     *int64 `json:"num_input_tokens,omitempty"`
	NumOutputTokens    *int64 `json:"num_output_tokens,omitempty"`
	NumTotalTokens     *int64 `json:"num_total_tokens,omitempty"`
	TimeToFirstTokenNs *int64 `json:"time_to_first_token_ns,omitempty"`
}

func usageOf(u store.Usage) usageOut {
	out := usageOut{NumInputTokens: u.InputTokens, NumOutputTokens: u.OutputTokens, NumTotalTokens: u.TotalTokens,
		TimeToFirstTokenNs: u.TimeToFirstTokenNs}
	if u.LatencyMs != nil {
		ns := int64(math.Round(*u.LatencyMs * 1e6))
		out.DurationNs = &ns
	}
	return out
}

// metricInfo is each scorer value's state as the client reads it: success with its value,
// or error with the standard error.
func metricInfo(ms map[string]store.MetricValue) map[string]any {
	if len(ms) == 0 {
		return nil
	}
	out := make(map[string]any, len(ms))
	for name, v := range ms {
		switch {
		case v.Error != nil:
			code := v.Error.Code
			out[name] = map[string]any{"status_type": "error", "message": v.Error.Message, "ems_error_code": code,
				"standard_error": standardErrorOf(*v.Error)}
		case v.Number != nil:
			out[name] = success(*v.Number, v.Explanation)
		case v.Category != nil:
			out[name] = success(*v.Category, v.Explanation)
		case v.Bool != nil:
			out[name] = success(*v.Bool, v.Explanation)
		case v.State == store.MetricPending:
			out[name] = map[string]any{"status_type": "pending"}
		case v.State == store.MetricSkipped:
			m := map[string]any{"status_type": "not_applicable", "message": v.Explanation}
			if v.Reason != "" {
				m["not_applicable_reason"] = v.Reason
			}
			out[name] = m
		}
		if m, ok := out[name].(map[string]any); ok && v.Source != "" {
			m["source"] = v.Source // an external evaluator's judgment (docs/OTEL.md)
		}
	}
	return out
}

// success is MetricSuccess, with the judge's explanation when there is one.
func success(value any, explanation string) map[string]any {
	m := map[string]any{"status_type": "success", "value": value}
	if explanation != "" {
		m["explanation"] = explanation
	}
	return m
}

func standardErrorOf(e store.ScorerError) standardError {
	return standardError{ErrorCode: e.Code, ErrorType: e.ErrorType, ErrorGroup: e.ErrorGroup, Severity: e.Severity,
		Message: e.Message, Retriable: e.Retriable, Blocking: e.Blocking}
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func optTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func boolPtr(b bool) *bool    { return &b }
func intPtr(n int64) *int64   { return &n }
func strPtr(s string) *string { return &s }

// traceOut is a trace as answered (spans added by the caller when it reads them).
func traceOut(tr *store.Trace) *recordOut {
	session := tr.SessionID
	if session == nil {
		session = &tr.ID // a trace logged without a session is its own
	}
	return &recordOut{Type: "trace", ID: tr.ID, SessionID: session, TraceID: strPtr(tr.ID), ProjectID: tr.ProjectID,
		RunID: tr.RunID, Name: tr.Name, Input: orEmpty(tr.Input), RedactedInput: tr.RedactedInput, Output: tr.Output,
		RedactedOutput: tr.RedactedOutput, CreatedAt: timestamp(tr.CreatedAt), UpdatedAt: optTimestamp(tr.UpdatedAt),
		UserMetadata: orEmptyMap(tr.Metadata), Tags: orEmptyList(tr.Tags), StatusCode: tr.StatusCode,
		Metrics: usageOf(tr.Usage), MetricInfo: metricInfo(tr.Metrics), ExternalID: tr.ExternalID,
		DatasetInput: tr.DatasetInput, DatasetOutput: tr.DatasetOutput, DatasetMetadata: orEmptyMap(tr.DatasetMetadata),
		HasChildren: boolPtr(tr.HasChildren), IsComplete: boolPtr(tr.IsComplete),
		ProgressMessage: deref(tr.ProgressMessage), ErrorMessage: deref(tr.ErrorMessage), NumSpans: intPtr(tr.NumSpans),
		Model: tr.Model, Provider: tr.Provider, Temperature: tr.Temperature, FinishReason: tr.FinishReason,
		LatencyMs: tr.LatencyMs, TotalTokens: tr.TotalTokens, TotalCost: tr.TotalCost}
}

// spanOut is a span as answered.
func spanOut(sp *store.Span) *recordOut {
	session := sp.SessionID
	if session == nil {
		session = &sp.TraceID
	}
	out := &recordOut{Type: sp.Type, ID: sp.ID, SessionID: session, TraceID: strPtr(sp.TraceID), ParentID: strPtr(sp.ParentID),
		ProjectID: sp.ProjectID, RunID: sp.RunID, Name: sp.Name, Input: orEmpty(sp.Input), RedactedInput: sp.RedactedInput,
		Output: sp.Output, RedactedOutput: sp.RedactedOutput, CreatedAt: timestamp(sp.CreatedAt),
		UpdatedAt: optTimestamp(sp.UpdatedAt), UserMetadata: orEmptyMap(sp.Metadata), Tags: orEmptyList(sp.Tags),
		StatusCode: sp.StatusCode, Metrics: usageOf(sp.Usage), MetricInfo: metricInfo(sp.Metrics), ExternalID: sp.ExternalID,
		DatasetInput: sp.DatasetInput, DatasetOutput: sp.DatasetOutput, DatasetMetadata: orEmptyMap(sp.DatasetMetadata),
		HasChildren: boolPtr(sp.HasChildren), IsComplete: boolPtr(sp.IsComplete), StepNumber: sp.StepNumber,
		Depth: intPtr(sp.Depth), Tools: sp.Tools, Events: sp.Events, Model: sp.Model, Provider: sp.Provider,
		Temperature: sp.Temperature, FinishReason: sp.FinishReason, ToolCallID: sp.ToolCallID, AgentType: sp.AgentType,
		AgentName: sp.AgentName, LatencyMs: sp.LatencyMs, TotalTokens: sp.TotalTokens, TotalCost: sp.TotalCost}
	if c := sp.Control; c != nil {
		if v, ok := c["control_id"]; ok {
			var n int64
			for _, ch := range v {
				n = n*10 + int64(ch-'0')
			}
			out.ControlID = &n
		}
		out.CheckStage, out.AppliesTo = optMap(c, "check_stage"), optMap(c, "applies_to")
		out.Evaluator, out.SelectorPath = optMap(c, "evaluator_name"), optMap(c, "selector_path")
	}
	return out
}

// sessionOut is a session as answered (traces added by the caller).
func sessionOut(s *store.LogSession) *recordOut {
	return &recordOut{Type: "session", ID: s.ID, SessionID: strPtr(s.ID), ProjectID: s.ProjectID, RunID: s.RunID,
		Name: deref(s.Name), Input: orEmpty(nil), CreatedAt: timestamp(s.CreatedAt), UpdatedAt: optTimestamp(s.UpdatedAt),
		UserMetadata: orEmptyMap(s.Metadata), Tags: []string{}, ExternalID: s.ExternalID, DatasetMetadata: map[string]string{},
		PreviousSessionID: s.PreviousSessionID}
}

func optMap(m map[string]string, k string) *string {
	if v, ok := m[k]; ok {
		return &v
	}
	return nil
}

func orEmpty(c store.Content) store.Content {
	if c.IsNull() {
		return store.StringContent("")
	}
	return c
}

func orEmptyMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func orEmptyList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// tree nests spans under their parents (the trace's id for a top-level span), children
// in creation order then by step; spans whose parent is unknown hang under the root.
func tree(rootID string, spans []store.Span) []*recordOut {
	byParent := map[string][]*store.Span{}
	known := map[string]bool{rootID: true}
	for i := range spans {
		known[spans[i].ID] = true
	}
	for i := range spans {
		sp := &spans[i]
		p := sp.ParentID
		if !known[p] {
			p = rootID
		}
		byParent[p] = append(byParent[p], sp)
	}
	var build func(id string, depth int) []*recordOut
	build = func(id string, depth int) []*recordOut {
		kids := byParent[id]
		sortSpans(kids)
		out := make([]*recordOut, 0, len(kids))
		for _, sp := range kids {
			o := spanOut(sp)
			if depth < maxDepth+1 {
				o.Spans = build(sp.ID, depth+1)
			}
			out = append(out, o)
		}
		return out
	}
	return build(rootID, 1)
}

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Traces: the records of a run, each with its spans and metric values, stored in the run's
// partition in time order so that a metrics search reads one contiguous sort-key range.
//
//	record   PK             SK                                        notes
//	trace    RUN#<run id>   TRACE#<created_at fixed width>#<trace id>  doc holds the trace as JSON; org_id scopes it

// EntityTrace names the trace records.
const EntityTrace = "trace"

// traceTimeLayout is RFC 3339 in UTC with nine fraction digits always written, so that sort
// keys order as times do.
const traceTimeLayout = "2006-01-02T15:04:05.000000000Z"

// TraceKey is the key of trace id of a run, created at createdAt.
func TraceKey(runID string, createdAt time.Time, id string) Key {
	return Key{PK: "RUN#" + runID, SK: "TRACE#" + createdAt.UTC().Format(traceTimeLayout) + "#" + id}
}

// TraceRange is the query of the traces of a run created in [from, to): a trace created at
// exactly to sorts after "TRACE#<to>" and is left out.
func TraceRange(runID string, from, to time.Time) Query {
	return Query{PK: "RUN#" + runID, SKOp: SKBetween,
		From: "TRACE#" + from.UTC().Format(traceTimeLayout), To: "TRACE#" + to.UTC().Format(traceTimeLayout)}
}

// ScorerError is an error a scorer recorded instead of a value (a StandardError).
type ScorerError struct {
	Code       int64  `json:"code"`
	Message    string `json:"message"`
	Severity   string `json:"severity"`
	ErrorType  string `json:"error_type,omitempty"`
	ErrorGroup string `json:"error_group,omitempty"`
	Retriable  bool   `json:"retriable,omitempty"`
	Blocking   bool   `json:"blocking,omitempty"`
}

// MetricValue is one scorer's result on a trace: a number, a category (a string or a
// boolean), or an error. Exactly one is set. Stored as a tagged object ({"n": 0.5}), which
// the standard decoder reads without a custom method: the scan decodes millions of them.
type MetricValue struct {
	Number   *float64     `json:"n,omitempty"`
	Category *string      `json:"c,omitempty"`
	Bool     *bool        `json:"b,omitempty"`
	Error    *ScorerError `json:"e,omitempty"`
}

// Span is one step of a trace.
type Span struct {
	ID           string            `json:"id"`
	ParentID     string            `json:"parent_id"`
	Type         string            `json:"type"`
	Name         string            `json:"name"`
	Input        string            `json:"input"`
	Output       string            `json:"output"`
	CreatedAt    time.Time         `json:"created_at"`
	StepNumber   *int64            `json:"step_number,omitempty"`
	Model        *string           `json:"model,omitempty"`
	Provider     *string           `json:"provider,omitempty"`
	Temperature  *float64          `json:"temperature,omitempty"`
	FinishReason *string           `json:"finish_reason,omitempty"`
	Tools        *string           `json:"tools,omitempty"`
	ToolCallID   *string           `json:"tool_call_id,omitempty"`
	AgentType    *string           `json:"agent_type,omitempty"`
	AgentName    *string           `json:"agent_name,omitempty"`
	StatusCode   *int64            `json:"status_code,omitempty"`
	LatencyMs    *float64          `json:"latency_ms,omitempty"`
	TotalTokens  *int64            `json:"total_tokens,omitempty"`
	TotalCost    *float64          `json:"total_cost,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	Control      map[string]string `json:"control,omitempty"` // control_id, check_stage, applies_to, evaluator_name, selector_path
}

// Trace is one record of a run with its spans. Optional columns are pointers: nil means the
// trace holds no value (a filter on that column does not match it).
type Trace struct {
	ID                     string                 `json:"id"`
	RunID                  string                 `json:"run_id"`
	ProjectID              string                 `json:"project_id"`
	OrgID                  string                 `json:"org_id"`
	CreatedAt              time.Time              `json:"created_at"`
	UpdatedAt              *time.Time             `json:"updated_at,omitempty"`
	Type                   string                 `json:"type"`
	Name                   string                 `json:"name"`
	Input                  string                 `json:"input"`
	Output                 string                 `json:"output"`
	Tags                   []string               `json:"tags,omitempty"`
	StatusCode             *int64                 `json:"status_code,omitempty"`
	ExternalID             *string                `json:"external_id,omitempty"`
	DatasetInput           *string                `json:"dataset_input,omitempty"`
	DatasetOutput          *string                `json:"dataset_output,omitempty"`
	DatasetGeneratedOutput *string                `json:"dataset_generated_output,omitempty"`
	ErrorMessage           *string                `json:"error_message,omitempty"`
	ProgressMessage        *string                `json:"progress_message,omitempty"`
	IsComplete             bool                   `json:"is_complete"`
	HasChildren            bool                   `json:"has_children"`
	SessionID              *string                `json:"session_id,omitempty"`
	Model                  *string                `json:"model,omitempty"`
	Provider               *string                `json:"provider,omitempty"`
	Temperature            *float64               `json:"temperature,omitempty"`
	FinishReason           *string                `json:"finish_reason,omitempty"`
	LatencyMs              *float64               `json:"latency_ms,omitempty"`
	TotalTokens            *int64                 `json:"total_tokens,omitempty"`
	TotalCost              *float64               `json:"total_cost,omitempty"`
	Metadata               map[string]string      `json:"metadata,omitempty"`
	Metrics                map[string]MetricValue `json:"metrics,omitempty"`
	// Spans are stored in an attribute of their own, so that a metrics scan, which needs
	// none of them, does not decode them (DecodeTrace leaves them out; DecodeTraceWithSpans reads them).
	Spans []Span `json:"-"`
}

// traceWriters bounds the conditional puts one request makes at once.
const traceWriters = 8

// PutTraces writes each trace unless a trace of the same id and creation time exists, and
// reports which were written. A retried request thus writes (and its caller counts) nothing
// twice. The trace is kept as one JSON attribute, which the metrics scan decodes directly.
func PutTraces(ctx context.Context, t Table, traces []Trace) ([]bool, error) {
	written := make([]bool, len(traces))
	errs := make([]error, len(traces))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(traceWriters, len(traces)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				written[i], errs[i] = putTrace(ctx, t, traces[i])
			}
		}()
	}
	for i := range traces {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return written, fmt.Errorf("put traces: %w", err)
	}
	return written, nil
}

// TraceItem is the item of a trace (bulk writers in tests and benchmarks put it directly):
// the trace as JSON in doc, its spans as JSON in spans.
func TraceItem(tr Trace) (Item, error) {
	doc, err := json.Marshal(tr)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", tr.ID, err)
	}
	k := TraceKey(tr.RunID, tr.CreatedAt, tr.ID)
	it := Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityTrace, "org_id": tr.OrgID, "run_id": tr.RunID,
		"trace_id": tr.ID, "doc": string(doc)}
	if len(tr.Spans) > 0 {
		spans, err := json.Marshal(tr.Spans)
		if err != nil {
			return nil, fmt.Errorf("trace %s: %w", tr.ID, err)
		}
		it["spans"] = string(spans)
	}
	return it, nil
}

func putTrace(ctx context.Context, t Table, tr Trace) (bool, error) {
	it, err := TraceItem(tr)
	if err != nil {
		return false, err
	}
	err = t.Put(ctx, it, NotExists())
	if errors.Is(err, ErrConditionFailed) {
		return false, nil
	}
	return err == nil, err
}

// DecodeTrace reads a trace item of a query page, without its spans.
func DecodeTrace(it Item, into *Trace) error {
	doc, _ := it["doc"].(string)
	*into = Trace{}
	if err := json.Unmarshal([]byte(doc), into); err != nil {
		return fmt.Errorf("decode trace %v: %w", it.Key(), err)
	}
	return nil
}

// DecodeTraceWithSpans reads a trace item with its spans.
func DecodeTraceWithSpans(it Item, into *Trace) error {
	if err := DecodeTrace(it, into); err != nil {
		return err
	}
	if spans, ok := it["spans"].(string); ok {
		if err := json.Unmarshal([]byte(spans), &into.Spans); err != nil {
			return fmt.Errorf("decode spans of trace %v: %w", it.Key(), err)
		}
	}
	return nil
}

// ScanTraces calls fn with every trace of the run created in [from, to), in time order,
// one page in memory at a time. fn returning an error stops the scan.
func ScanTraces(ctx context.Context, t Table, runID string, from, to time.Time, fn func(*Trace) error) error {
	q := TraceRange(runID, from, to)
	var tr Trace
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return fmt.Errorf("scan traces of run %s: %w", runID, err)
		}
		for _, it := range p.Items {
			if err := DecodeTrace(it, &tr); err != nil {
				return err
			}
			if err := fn(&tr); err != nil {
				return err
			}
		}
		if p.Next == nil {
			return nil
		}
		q.Start = p.Next
	}
}

// SessionKey marks that a run has traces of a session, so that its summary counts each
// session once however many requests carry it.
func SessionKey(runID, sessionID string) Key {
	return Key{PK: "RUN#" + runID, SK: "SESSION#" + sessionID}
}

// ClaimSession records the session in the run; false when it was recorded before.
func ClaimSession(ctx context.Context, t Table, runID, sessionID string) (bool, error) {
	k := SessionKey(runID, sessionID)
	err := t.Put(ctx, Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: "run_session", "run_id": runID}, NotExists())
	if errors.Is(err, ErrConditionFailed) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim session %s of run %s: %w", sessionID, runID, err)
	}
	return true, nil
}

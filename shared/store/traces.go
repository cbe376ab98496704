package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Traces, spans and sessions: the records of a run (a log stream or an experiment).
//
//	record   PK                    SK                                        indexes
//	trace    RUN#<run id>          TRACE#<created_at fixed width>#<id>       GSI1 REC#<id> / trace; GSI2 SESSTRACES#<session> / <created_at>#<id>
//	span     TRACE#<trace id>      SPAN#<span id>                            GSI1 REC#<id> / span; GSI2 RUNSPANS#<run> / <created_at>#<id>
//	session  RUN#<run id>          SESS#<created_at fixed width>#<id>        GSI1 REC#<id> / session; GSI2 SESSEXT#<run>#<external id> / <id>
//
// Traces sit in their run's partition in time order, so that a metrics search or a trace
// search reads one contiguous sort-key range; any record is found by id with one query of
// GSI1 (ids are UUIDs); a trace's spans are one query of its own partition. A record's item
// holds its header (every column a filter, a sort or an aggregate reads) as JSON in doc and
// its content (input, output, their redacted forms, tools, events) as JSON in content, so
// that a scan decodes content only for what it returns or filters on.

// Entity names of the records.
const (
	EntityTrace      = "trace"
	EntitySpan       = "span"
	EntityLogSession = "log_session"
)

// recordTimeLayout is RFC 3339 in UTC with nine fraction digits always written, so that sort
// keys order as times do.
const recordTimeLayout = "2006-01-02T15:04:05.000000000Z"

// TraceKey is the key of trace id of a run, created at createdAt.
func TraceKey(runID string, createdAt time.Time, id string) Key {
	return Key{PK: "RUN#" + runID, SK: "TRACE#" + createdAt.UTC().Format(recordTimeLayout) + "#" + id}
}

// TraceRange is the query of the traces of a run created in [from, to): a trace created at
// exactly to sorts after "TRACE#<to>" and is left out.
func TraceRange(runID string, from, to time.Time) Query {
	return Query{PK: "RUN#" + runID, SKOp: SKBetween,
		From: "TRACE#" + from.UTC().Format(recordTimeLayout), To: "TRACE#" + to.UTC().Format(recordTimeLayout)}
}

// recordIndexKey is the GSI1 partition of a record: any record by id.
func recordIndexKey(id string) string { return "REC#" + id }

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

// MetricValue is one scorer's result on a record: a number, a category (a string or a
// boolean), or an error. Exactly one is set. Stored as a tagged object ({"n": 0.5}), which
// the standard decoder reads without a custom method: the scan decodes millions of them.
//
// The evaluation pipeline adds State (MetricPending, MetricSkipped) on a value that holds
// none of the four, and Explanation beside a judged value or a skip; neither is counted
// anywhere.
type MetricValue struct {
	Number      *float64     `json:"n,omitempty"`
	Category    *string      `json:"c,omitempty"`
	Bool        *bool        `json:"b,omitempty"`
	Error       *ScorerError `json:"e,omitempty"`
	State       string       `json:"st,omitempty"`
	Explanation string       `json:"x,omitempty"`
	// Reason is a skipped state's not_applicable_reason: SkipBudget when the daily judge
	// budget held the judgment back (an evaluate job may still score it).
	Reason string `json:"r,omitempty"`
	// Source is who judged: empty for this service's scorers, SourceExternal for a value an
	// evaluator outside it sent (an OpenTelemetry gen_ai.evaluation.result, docs/OTEL.md).
	Source string `json:"src,omitempty"`
	// JudgedAt is when an external value was judged (its evaluation event's time), Unix
	// nanoseconds; 0 when unknown (values stored before it was kept). Supersedes compares it.
	JudgedAt int64 `json:"t,omitempty"`
}

// SourceExternal marks a metric value judged by an evaluator outside the service.
const SourceExternal = "external"

// HasResult reports whether v holds a value or an error (not only a state).
func (v MetricValue) HasResult() bool {
	return v.Number != nil || v.Category != nil || v.Bool != nil || v.Error != nil
}

// RecordContent is the content of a trace, span or session: stored apart from the header.
type RecordContent struct {
	Input          Content `json:"input,omitempty"`
	Output         Content `json:"output,omitempty"`
	RedactedInput  Content `json:"redacted_input,omitempty"`
	RedactedOutput Content `json:"redacted_output,omitempty"`
	Tools          Content `json:"tools,omitempty"`  // llm spans: the tool definitions
	Events         Content `json:"events,omitempty"` // llm spans: reasoning, tool calls...
}

// Usage are the usage columns every record kind carries (the client's metrics object).
type Usage struct {
	LatencyMs          *float64 `json:"latency_ms,omitempty"`
	TotalTokens        *int64   `json:"total_tokens,omitempty"`
	InputTokens        *int64   `json:"input_tokens,omitempty"`
	OutputTokens       *int64   `json:"output_tokens,omitempty"`
	TimeToFirstTokenNs *int64   `json:"time_to_first_token_ns,omitempty"`
	TotalCost          *float64 `json:"total_cost,omitempty"`
}

// Trace is one record of a run. Optional columns are pointers: nil means the trace holds no
// value (a filter on that column does not match it).
type Trace struct {
	ID                     string            `json:"id"`
	RunID                  string            `json:"run_id"`
	ProjectID              string            `json:"project_id"`
	OrgID                  string            `json:"org_id"`
	CreatedAt              time.Time         `json:"created_at"`
	UpdatedAt              *time.Time        `json:"updated_at,omitempty"`
	Type                   string            `json:"type"`
	Name                   string            `json:"name"`
	Tags                   []string          `json:"tags,omitempty"`
	StatusCode             *int64            `json:"status_code,omitempty"`
	ExternalID             *string           `json:"external_id,omitempty"`
	DatasetInput           *string           `json:"dataset_input,omitempty"`
	DatasetOutput          *string           `json:"dataset_output,omitempty"`
	DatasetGeneratedOutput *string           `json:"dataset_generated_output,omitempty"`
	DatasetMetadata        map[string]string `json:"dataset_metadata,omitempty"`
	ErrorMessage           *string           `json:"error_message,omitempty"`
	ProgressMessage        *string           `json:"progress_message,omitempty"`
	IsComplete             bool              `json:"is_complete"`
	HasChildren            bool              `json:"has_children"`
	NumSpans               int64             `json:"num_spans,omitempty"`
	SessionID              *string           `json:"session_id,omitempty"`
	Model                  *string           `json:"model,omitempty"`
	Provider               *string           `json:"provider,omitempty"`
	Temperature            *float64          `json:"temperature,omitempty"`
	FinishReason           *string           `json:"finish_reason,omitempty"`
	Usage
	Metadata map[string]string      `json:"metadata,omitempty"` // the client's user_metadata
	Metrics  map[string]MetricValue `json:"metrics,omitempty"`
	// Content is read only when asked for (DecodeTraceContent): a scan of headers leaves it.
	RecordContent `json:"-"`
	// Spans are the spans an ingestion writes with the trace (items of their own).
	Spans []Span `json:"-"`
}

// traceWriters bounds the conditional puts one request makes at once.
const traceWriters = 8

// PutTraces writes each trace unless a trace of the same id and creation time exists, and
// reports which were written (bulk writers in tests and benchmarks; ingestion writes traces
// with everything they add in transactions). Spans are not written.
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

// TraceItem is the item of a trace: its header as JSON in doc, its content as JSON in
// content.
func TraceItem(tr Trace) (Item, error) {
	doc, err := json.Marshal(tr)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", tr.ID, err)
	}
	k := TraceKey(tr.RunID, tr.CreatedAt, tr.ID)
	it := Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityTrace, "org_id": tr.OrgID, "run_id": tr.RunID,
		"trace_id": tr.ID, "doc": string(doc), AttrGSI1PK: recordIndexKey(tr.ID), AttrGSI1SK: EntityTrace}
	if tr.SessionID != nil {
		it[AttrGSI2PK], it[AttrGSI2SK] = sessionTracesPartition(*tr.SessionID), tr.CreatedAt.UTC().Format(recordTimeLayout)+"#"+tr.ID
	}
	if err := setContent(it, tr.RecordContent); err != nil {
		return nil, fmt.Errorf("trace %s: %w", tr.ID, err)
	}
	return it, nil
}

// sessionTracesPartition is the GSI2 partition of a session's traces in time order.
func sessionTracesPartition(sessionID string) string { return "SESSTRACES#" + sessionID }

// SessionTraces reads up to limit traces of a session, oldest first, with their content.
func SessionTraces(ctx context.Context, t Table, sessionID string, limit int) ([]Trace, error) {
	items, err := QueryAll(ctx, t, Query{Index: IndexGSI2, PK: sessionTracesPartition(sessionID), Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("traces of session %s: %w", sessionID, err)
	}
	if len(items) > limit {
		items = items[:limit]
	}
	out := make([]Trace, len(items))
	for i, it := range items {
		if err := DecodeTrace(it, &out[i]); err != nil {
			return nil, err
		}
		if err := DecodeTraceContent(it, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// setContent puts the content of a record in it, unless there is none.
func setContent(it Item, c RecordContent) error {
	if len(c.Input)+len(c.Output)+len(c.RedactedInput)+len(c.RedactedOutput)+len(c.Tools)+len(c.Events) == 0 {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	it["content"] = string(b)
	return nil
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

// DecodeTrace reads the header of a trace item (no content).
func DecodeTrace(it Item, into *Trace) error {
	doc, _ := it["doc"].(string)
	return decodeTraceDoc(doc, it.Key, into)
}

// decodeTraceDoc reads a trace's header from its doc attribute (which the trace keeps
// slices of: doc must stay unchanged); key names the item in an error.
func decodeTraceDoc(doc string, key func() Key, into *Trace) error {
	return decodeTraceDocIn(doc, key, into, nil)
}

// decodeTraceDocIn is decodeTraceDoc with a scratch for the header's values (nil: none).
func decodeTraceDocIn(doc string, key func() Key, into *Trace, sc *scratch) error {
	*into = Trace{}
	if sc != nil {
		sc.reset()
	}
	if decodeTraceHeaderIn(doc, into, sc) {
		return nil
	}
	*into = Trace{}
	if err := json.Unmarshal([]byte(doc), into); err != nil {
		return fmt.Errorf("decode trace %v: %w", key(), err)
	}
	return nil
}

// DecodeTraceContent reads a trace item's content into tr.
func DecodeTraceContent(it Item, tr *Trace) error {
	return decodeContent(it, &tr.RecordContent)
}

func decodeContent(it Item, into *RecordContent) error {
	*into = RecordContent{}
	c, ok := it["content"].(string)
	if !ok || decodeRecordContent(c, into) {
		return nil
	}
	*into = RecordContent{}
	if err := json.Unmarshal([]byte(c), into); err != nil {
		return fmt.Errorf("decode content of %v: %w", it.Key(), err)
	}
	return nil
}

// RawContent is the content attribute of a record item as stored (JSON text), for a quick
// test of its bytes before decoding.
func RawContent(it Item) string {
	c, _ := it["content"].(string)
	return c
}

// ScanOptions choose what a trace scan decodes.
type ScanOptions struct {
	// Content decodes each trace's content too (filters or groups on input or output).
	Content bool
	// Prefilter, when set, sees each trace's raw content (JSON text) before anything of it
	// is decoded; false skips the trace (it cannot match the query). It may run inside the
	// table's read transaction, on the table's own memory: a pure test of the text, which it
	// must not keep.
	Prefilter func(rawContent string) bool
	// Transient says fn keeps nothing a trace points to (its pointer fields, maps and
	// slices) after it returns; the scan may then reuse their storage for the next trace.
	// Strings may be kept.
	Transient bool
}

// ScanTraces calls fn with every trace of the run created in [from, to), in time order,
// one page in memory at a time: headers, and content when opts say so. fn returning an
// error stops the scan.
func ScanTraces(ctx context.Context, t Table, runID string, from, to time.Time, opts ScanOptions, fn func(*Trace) error) error {
	q := TraceRange(runID, from, to)
	if r, ok := t.(AttrRanger); ok {
		return scanTracesRanged(ctx, r, q, opts, fn)
	}
	var tr Trace
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return fmt.Errorf("scan traces of run %s: %w", runID, err)
		}
		for _, it := range p.Items {
			if opts.Prefilter != nil && !opts.Prefilter(RawContent(it)) {
				continue
			}
			if err := DecodeTrace(it, &tr); err != nil {
				return err
			}
			if opts.Content {
				if err := DecodeTraceContent(it, &tr); err != nil {
					return err
				}
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

package traces

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Limits of one ingestion request.
const (
	maxTracesPerRequest = 1000
	// maxSpansPerRequest bounds the spans one request carries (over all its traces, at any
	// depth); a larger trace arrives in several requests: the trace, then span appends.
	maxSpansPerRequest = 5000
	// maxDepth bounds the nesting of spans.
	maxDepth = 64
	// maxTagsPerTrace keeps a trace and everything it adds in one transaction (100
	// actions): its put and id claim, a new session (three actions), the run and column
	// summaries, and, per minute and per hour, the totals, five group columns and one row
	// per tag: 19 + 2 per tag.
	maxTagsPerTrace = 40
)

var (
	severities = []string{"low", "medium", "high", "critical"}
	errorTypes = []string{"llm_api_error", "credentials_error", "data_validation_error", "configuration_error",
		"permission_error", "not_found_error", "workflow_error", "rate_limit_error", "system_error",
		"not_applicable_reason", "uncataloged_error"}
	spanTypes      = []string{"workflow", "http", "agent", "llm", "control", "tool", "retriever"}
	loggingMethods = []string{"playground", "python_client", "typescript_client", "api_direct"}
)

// ingestRequest is a validated body of trace ingestion (the client's LogTracesIngestRequest).
type ingestRequest struct {
	run               runRef
	sessionID         *string // the request's session_id: every trace's unless it names its own
	sessionExternalID *string // or the session found (or created) by this external id
	traces            []store.Trace
}

// readIngest reads the body: exactly one of log_stream_id and experiment_id, 1..1000
// traces with their spans nested to any depth (5000 spans at most). A trace without id gets
// a fresh one (and so cannot be deduplicated on retry), one without created_at gets now.
func readIngest(errs *validate.Errors, raw any, present bool, now time.Time) ingestRequest {
	var q ingestRequest
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return q
	}
	before := errs.Len()
	runFields := []string{"log_stream_id", "experiment_id"}
	run, oneRun := readRun(o, runFields)
	q.run = run
	readClientFields(o)
	q.sessionID = optUUID(o, "session_id")
	q.sessionExternalID = optStr(o, "session_external_id", validate.MinLen(1), validate.MaxLen(255))
	complete := true
	if c := o.Get("is_complete").Nullable(); c.Present() && !c.IsNull() {
		complete, _ = c.Bool()
	}
	if c := o.Get("include_trace_ids").Nullable(); c.Present() && !c.IsNull() {
		c.Bool() // read for its type only: the ids are always answered
	}
	items, _ := o.Get("traces").Required().List(validate.MinLen(1), validate.MaxLen(maxTracesPerRequest))
	spans := 0
	for _, it := range items {
		tr := readTrace(it, now, complete, q.sessionID)
		spans += len(tr.Spans)
		q.traces = append(q.traces, tr)
	}
	if spans > maxSpansPerRequest {
		o.Get("traces").Fail(fmt.Sprintf("the request holds %d spans, more than %d: send a large trace in several requests (the trace, then its spans with POST spans)", spans, maxSpansPerRequest))
	}
	if errs.Len() == before && !oneRun {
		errs.Add(oneRunError(o, runFields))
	}
	return q
}

// readClientFields checks the request fields the logging client sends that change nothing
// here: logging_method, client_version, reliable (every write is reliable).
func readClientFields(o validate.Obj) {
	o.Get("logging_method").Nullable().Enum(loggingMethods...)
	o.Get("client_version").Nullable().String(validate.MaxLen(255))
	o.Get("reliable").Nullable().Bool()
}

// str, optStr, ... read optional fields of a record.
func str(o validate.Obj, name string) string {
	s, _ := o.Get(name).Nullable().String()
	return s
}

func optStr(o validate.Obj, name string, rules ...validate.Rule) *string {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	s, ok := v.String(rules...)
	if !ok {
		return nil
	}
	return &s
}

func optInt(o validate.Obj, name string, rules ...validate.Rule) *int64 {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	n, ok := v.Int(rules...)
	if !ok {
		return nil
	}
	return &n
}

func optFloat(o validate.Obj, name string, rules ...validate.Rule) *float64 {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	f, ok := v.Float(rules...)
	if !ok {
		return nil
	}
	return &f
}

func optTime(o validate.Obj, name string) *time.Time {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	t, ok := v.Datetime()
	if !ok {
		return nil
	}
	t = t.UTC()
	return &t
}

func optUUID(o validate.Obj, name string) *string {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	s, ok := v.UUID(0)
	if !ok {
		return nil
	}
	return &s
}

func idOrNew(o validate.Obj) string {
	if id := optUUID(o, "id"); id != nil {
		return *id
	}
	return uuid.NewString()
}

func readScorerError(v validate.Value) (store.ScorerError, bool) {
	o, ok := v.Object()
	if !ok {
		return store.ScorerError{}, false
	}
	var e store.ScorerError
	var ok1, ok2, ok3 bool
	e.Code, ok1 = o.Get("code").Required().Int()
	e.Message, ok2 = o.Get("message").Required().String()
	e.Severity, ok3 = o.Get("severity").Required().Enum(severities...)
	e.ErrorType, e.ErrorGroup = "uncataloged_error", "scorer"
	if t := o.Get("error_type"); t.Present() {
		e.ErrorType, _ = t.Enum(errorTypes...)
	}
	if g := optStr(o, "error_group"); g != nil {
		e.ErrorGroup = *g
	}
	for _, b := range []struct {
		name string
		p    *bool
	}{{"retriable", &e.Retriable}, {"blocking", &e.Blocking}} {
		if f := o.Get(b.name).Nullable(); f.Present() && !f.IsNull() {
			*b.p, _ = f.Bool()
		}
	}
	return e, ok1 && ok2 && ok3
}

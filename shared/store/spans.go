package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Span is one step of a trace, a record of its own: nested to any depth (ParentID is the
// trace's id for a top-level span), found by id, by its trace, and in its run's time order.
type Span struct {
	// Pending marks a placeholder: a span judged (by an evaluator outside the service)
	// before the span itself arrived, holding its judgments until the span takes its place.
	// It is the item's top-level attribute AttrPending, so that the stream's filter can tell
	// a placeholder's replacement by its span (judged then, as a new span) from a change.
	Pending         bool              `json:"-"`
	ID              string            `json:"id"`
	TraceID         string            `json:"trace_id"`
	ParentID        string            `json:"parent_id"`
	RunID           string            `json:"run_id"`
	ProjectID       string            `json:"project_id"`
	OrgID           string            `json:"org_id"`
	SessionID       *string           `json:"session_id,omitempty"`
	Depth           int64             `json:"depth"` // 1 for a span of the trace itself
	Type            string            `json:"type"`
	Name            string            `json:"name"`
	CreatedAt       time.Time         `json:"created_at"`
	UpdatedAt       *time.Time        `json:"updated_at,omitempty"`
	StepNumber      *int64            `json:"step_number,omitempty"`
	IsComplete      bool              `json:"is_complete"`
	HasChildren     bool              `json:"has_children"`
	Tags            []string          `json:"tags,omitempty"`
	StatusCode      *int64            `json:"status_code,omitempty"`
	ExternalID      *string           `json:"external_id,omitempty"`
	DatasetInput    *string           `json:"dataset_input,omitempty"`
	DatasetOutput   *string           `json:"dataset_output,omitempty"`
	DatasetMetadata map[string]string `json:"dataset_metadata,omitempty"`
	Model           *string           `json:"model,omitempty"`
	Provider        *string           `json:"provider,omitempty"`
	Temperature     *float64          `json:"temperature,omitempty"`
	FinishReason    *string           `json:"finish_reason,omitempty"`
	ToolCallID      *string           `json:"tool_call_id,omitempty"`
	AgentType       *string           `json:"agent_type,omitempty"`
	AgentName       *string           `json:"agent_name,omitempty"`
	// Control holds the control span's columns: control_id, check_stage, applies_to,
	// evaluator_name, selector_path.
	Control map[string]string `json:"control,omitempty"`
	Usage
	Metadata      map[string]string      `json:"metadata,omitempty"` // the client's user_metadata
	Metrics       map[string]MetricValue `json:"metrics,omitempty"`
	RecordContent `json:"-"`
}

// SpanKey is the key of a span in its trace's partition.
func SpanKey(traceID, id string) Key { return Key{PK: tracePartition(traceID), SK: "SPAN#" + id} }

func tracePartition(traceID string) string { return "TRACE#" + traceID }

// runSpansPartition is the GSI2 partition of a run's spans in time order.
func runSpansPartition(runID string) string { return "RUNSPANS#" + runID }

// SpanItem is the item of a span: its header in doc, its content in content.
func SpanItem(sp Span) (Item, error) {
	doc, err := json.Marshal(sp)
	if err != nil {
		return nil, fmt.Errorf("span %s: %w", sp.ID, err)
	}
	k := SpanKey(sp.TraceID, sp.ID)
	it := Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntitySpan, "org_id": sp.OrgID, "run_id": sp.RunID,
		"doc": string(doc), AttrGSI1PK: recordIndexKey(sp.ID), AttrGSI1SK: EntitySpan,
		AttrGSI2PK: runSpansPartition(sp.RunID), AttrGSI2SK: sp.CreatedAt.UTC().Format(recordTimeLayout) + "#" + sp.ID}
	if err := setContent(it, sp.RecordContent); err != nil {
		return nil, fmt.Errorf("span %s: %w", sp.ID, err)
	}
	if sp.Pending {
		it[AttrPending] = true
	}
	return it, nil
}

// AttrPending is the attribute of a placeholder span's item (Span.Pending).
const AttrPending = "pending"

// IsPendingSpan reports whether it is a placeholder span's item.
func IsPendingSpan(it Item) bool { p, _ := it[AttrPending].(bool); return p }

// DecodeSpan reads a span item: its header, and its content when withContent.
func DecodeSpan(it Item, into *Span, withContent bool) error {
	doc, _ := it["doc"].(string)
	*into = Span{}
	if err := json.Unmarshal([]byte(doc), into); err != nil {
		return fmt.Errorf("decode span %v: %w", it.Key(), err)
	}
	into.Pending = IsPendingSpan(it)
	if withContent {
		return decodeContent(it, &into.RecordContent)
	}
	return nil
}

// PutSpans writes spans unconditionally in batches: a span's item is a function of the
// request that carries it, so writing it again (a retried request) changes nothing.
// Callers write the spans of a trace before the transaction that stores and counts the
// trace, so that a trace is never read without its spans.
func PutSpans(ctx context.Context, t Table, spans []Span) error {
	items := make([]Item, 0, len(spans))
	for _, sp := range spans {
		it, err := SpanItem(sp)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if err := t.BatchWrite(ctx, items, nil); err != nil {
		return fmt.Errorf("put %d spans: %w", len(spans), err)
	}
	return nil
}

// TraceSpans reads every span of a trace (with content when withContent), in no particular
// order; callers build the tree from the parent ids.
func TraceSpans(ctx context.Context, t Table, traceID string, withContent bool) ([]Span, error) {
	return traceSpans(ctx, t, traceID, withContent, false)
}

// TraceSpansConsistent is TraceSpans with a strongly consistent read: a writer that counts
// a trace's spans sees every span written before.
func TraceSpansConsistent(ctx context.Context, t Table, traceID string, withContent bool) ([]Span, error) {
	return traceSpans(ctx, t, traceID, withContent, true)
}

// TraceSpansAsRead is TraceSpansConsistent with each span's doc as stored, by span id: what
// a write on the condition that the span is still as read (Equals("doc", doc)) compares.
func TraceSpansAsRead(ctx context.Context, t Table, traceID string, withContent bool) ([]Span, map[string]string, error) {
	items, err := traceSpanItems(ctx, t, traceID, true)
	if err != nil {
		return nil, nil, err
	}
	spans, err := decodeSpans(items, withContent)
	if err != nil {
		return nil, nil, err
	}
	docs := make(map[string]string, len(spans))
	for i, it := range items {
		docs[spans[i].ID], _ = it["doc"].(string)
	}
	return spans, docs, nil
}

func traceSpans(ctx context.Context, t Table, traceID string, withContent, consistent bool) ([]Span, error) {
	items, err := traceSpanItems(ctx, t, traceID, consistent)
	if err != nil {
		return nil, err
	}
	return decodeSpans(items, withContent)
}

func traceSpanItems(ctx context.Context, t Table, traceID string, consistent bool) ([]Item, error) {
	items, err := QueryAll(ctx, t, Query{PK: tracePartition(traceID), SKOp: SKPrefix, From: "SPAN#", Consistent: consistent})
	if err != nil {
		return nil, fmt.Errorf("spans of trace %s: %w", traceID, err)
	}
	return items, nil
}

func decodeSpans(items []Item, withContent bool) ([]Span, error) {
	out := make([]Span, len(items))
	for i, it := range items {
		if err := DecodeSpan(it, &out[i], withContent); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RecordItem finds the item of a trace, span or session by id in organization orgID (one
// query of GSI1, which is eventually consistent: a record written a moment ago may not be
// found yet); its entity says which. Ids are UUIDs: the same id in two runs is a client's
// doing, and the first of the organization's is taken. ErrNotFound when there is none.
func RecordItem(ctx context.Context, t Table, orgID, id string) (Item, error) {
	p, err := t.Query(ctx, Query{Index: IndexGSI1, PK: recordIndexKey(id), Limit: 10})
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", id, err)
	}
	for _, it := range p.Items {
		if it["org_id"] == orgID {
			return it, nil
		}
	}
	return nil, fmt.Errorf("record %s: %w", id, ErrNotFound)
}

package evaluate

import (
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// TestSpanInsertOfPlaceholders: a placeholder span (judged by an external evaluator before it
// arrived) is never judged, and the span that replaces it is judged as a new span.
func TestSpanInsertOfPlaceholders(t *testing.T) {
	span := func(pending bool) store.Item {
		it, err := store.SpanItem(store.Span{Pending: pending, ID: "s", TraceID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	for _, tc := range []struct {
		name     string
		old, new store.Item
		want     bool
	}{
		{"span created", nil, span(false), true},
		{"placeholder created", nil, span(true), false},
		{"placeholder judged again", span(true), span(true), false},
		{"placeholder replaced by its span", span(true), span(false), true},
		{"span changed", span(false), span(false), false},
		{"span deleted", span(false), nil, false},
	} {
		if got := isSpanInsert(stream.Record{Old: tc.old, New: tc.new}); got != tc.want {
			t.Errorf("%s: isSpanInsert = %v, want %v", tc.name, got, tc.want)
		}
	}
	var sp store.Span
	if err := store.DecodeSpan(span(true), &sp, false); err != nil || !sp.Pending {
		t.Errorf("a placeholder's item decodes with Pending %v (%v)", sp.Pending, err)
	}
}

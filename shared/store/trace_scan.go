package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// AttrView is a string attribute of an item as a table holds it: S is valid only during the
// call that shows it; OK is false when the item has no such string attribute.
type AttrView struct {
	S  string
	OK bool
}

// AttrRanger is a table that can show the string attributes of the items of a query's range
// without building them (the embedded store): a scan that needs two attributes of each item
// decodes nothing else, and copies only what it keeps. Every item in range that keep takes
// (nil: all) is shown (no pages, no Limit), in the query's order. keep runs inside the
// table's read transaction on views of its memory: a pure test, which must not use the table
// or keep a view; fn runs outside the table's transactions, so it may use the table.
type AttrRanger interface {
	RangeAttrs(ctx context.Context, q Query, names []string, keep func(vals []AttrView) bool, fn func(vals []AttrView) error) error
}

// Attr is one attribute of an item: a value of the vocabulary, the caller's to keep.
type Attr struct {
	Name  string
	Value any
}

// ItemRanger is a table that can show the items of a query's range as their attributes,
// without building a map of each (the embedded store). The slice is reused from item to
// item; the names and values in it are the caller's to keep. Every item in range is shown
// (no pages, no Limit), in the query's order.
type ItemRanger interface {
	RangeItems(ctx context.Context, q Query, fn func(attrs []Attr) error) error
}

// traceScanAttrs are what a trace scan reads of each item.
var traceScanAttrs = []string{"doc", "content", AttrPK, AttrSK}

// scanTracesRanged is ScanTraces on an AttrRanger: the content is tested as the table holds
// it, and the header (and content, when asked) copied and decoded only for traces that pass.
func scanTracesRanged(ctx context.Context, r AttrRanger, q Query, opts ScanOptions, fn func(*Trace) error) error {
	var (
		tr    Trace
		fnErr error // fn's own, returned as it is (ScanTraces does not wrap them)
		sc    *scratch
	)
	if opts.Transient {
		sc = &scratch{}
	}
	// The raw content test runs where the items are, so that the items it refuses (most,
	// for a selective filter) are never copied out of the table.
	var keep func(v []AttrView) bool
	if opts.Prefilter != nil {
		keep = func(v []AttrView) bool { return opts.Prefilter(v[1].S) }
	}
	err := r.RangeAttrs(ctx, q, traceScanAttrs, keep, func(v []AttrView) error {
		doc, content := v[0], v[1]
		key := func() Key { return Key{PK: strings.Clone(v[2].S), SK: strings.Clone(v[3].S)} }
		if err := decodeTraceDocIn(strings.Clone(doc.S), key, &tr, sc); err != nil {
			return err
		}
		if opts.Content {
			tr.RecordContent = RecordContent{}
			if content.OK && !decodeRecordContent(content.S, &tr.RecordContent) {
				tr.RecordContent = RecordContent{}
				if err := json.Unmarshal([]byte(content.S), &tr.RecordContent); err != nil {
					return fmt.Errorf("decode content of %v: %w", key(), err)
				}
			}
		}
		fnErr = fn(&tr)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}

package traces

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// Bounds of one transaction of a merge's span writes: the store's count, and half its
// bytes, as ingestion's (a span item's size is estimated, the margin takes the rest).
const (
	mergeTxItems = store.MaxTransactItems
	mergeTxBytes = store.MaxTransactBytes / 2
)

// otelPutSpans writes a merge's spans, each on the condition that it is as the merge read
// it: a span read (a placeholder the export's span replaces, or a stored span given its
// trace's session) still holds the doc read (docs, by span id), a span not read is still
// absent. A concurrent export that stored one of them since (the span itself, or a
// placeholder holding a judgment of it) fails the condition, and the merge starts again
// from a new read (records.ErrRevised) and merges with what it finds: written blindly, the
// span would replace that placeholder and lose its judgment.
//
// The puts go in transactions of up to mergeTxItems items and mergeTxBytes, in the order
// given (callers put parents before children, so a child is never stored under a parent
// that does not know it has children); a lone put is a conditional put, which costs half
// a transaction's write units. What a transaction stored before a later one failed is
// found stored by the next read, and not written again.
func (h *handlers) otelPutSpans(ctx context.Context, spans []store.Span, docs map[string]string) error {
	var ops []store.Op
	size := 0
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		var err error
		if len(ops) == 1 {
			err = h.Table.Put(ctx, ops[0].Item, ops[0].Conds...)
		} else {
			err = h.Table.Transact(ctx, ops)
		}
		ops, size = nil, 0
		switch {
		case errors.Is(err, store.ErrConditionFailed), errors.Is(err, store.ErrConflict):
			return records.ErrRevised
		case err != nil:
			return fmt.Errorf("otlp: put spans: %w", err)
		}
		return nil
	}
	for _, sp := range spans {
		it, err := store.SpanItem(sp)
		if err != nil {
			return fmt.Errorf("otlp: %w", err)
		}
		cond := store.NotExists()
		if doc, ok := docs[sp.ID]; ok {
			cond = store.Equals("doc", doc)
		}
		n := store.ItemSize(it)
		if len(ops) == mergeTxItems || (len(ops) > 0 && size+n > mergeTxBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		ops = append(ops, store.PutOp(it, cond))
		size += n
	}
	return flush()
}

package traces

import (
	"context"
	"time"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
)

// row is a record a query meets: its item and its decoded header, its content decoded only
// when a filter or the answer needs it.
type row struct {
	it          store.Item
	tr          *store.Trace
	sp          *store.Span
	se          *store.LogSession
	withContent bool
}

// decodeRow reads the header of a record item of entity.
func decodeRow(entity string, it store.Item) (*row, error) {
	r := &row{it: it}
	switch entity {
	case store.EntitySpan:
		r.sp = &store.Span{}
		return r, store.DecodeSpan(it, r.sp, false)
	case store.EntityLogSession:
		r.se = &store.LogSession{}
		r.withContent = true // a session has no content
		return r, store.DecodeLogSession(it, r.se)
	}
	r.tr = &store.Trace{}
	return r, store.DecodeTrace(it, r.tr)
}

func (r *row) id() string {
	switch {
	case r.sp != nil:
		return r.sp.ID
	case r.se != nil:
		return r.se.ID
	}
	return r.tr.ID
}

func (r *row) created() time.Time {
	switch {
	case r.sp != nil:
		return r.sp.CreatedAt
	case r.se != nil:
		return r.se.CreatedAt
	}
	return r.tr.CreatedAt
}

func (r *row) fields() fields {
	switch {
	case r.sp != nil:
		return spanFields{r.sp}
	case r.se != nil:
		return sessionFields{r.se}
	}
	return traceFields{r.tr}
}

// content returns the record's content, nil for a session.
func (r *row) content() *store.RecordContent {
	switch {
	case r.sp != nil:
		return &r.sp.RecordContent
	case r.tr != nil:
		return &r.tr.RecordContent
	}
	return nil
}

// loadContent decodes the record's content and resolves its large fields (once).
func (r *row) loadContent(ctx context.Context, ps payload.Store) error {
	if r.withContent {
		return nil
	}
	r.withContent = true
	var err error
	if r.sp != nil {
		err = store.DecodeSpan(r.it, r.sp, true)
	} else {
		err = store.DecodeTraceContent(r.it, r.tr)
	}
	if err != nil {
		return err
	}
	return payload.Resolve(ctx, ps, r.content())
}

// out is the record as a search answers it (without children).
func (r *row) out() *recordOut {
	switch {
	case r.sp != nil:
		return spanOut(r.sp)
	case r.se != nil:
		return sessionOut(r.se)
	}
	return traceOut(r.tr)
}

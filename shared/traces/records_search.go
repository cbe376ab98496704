package traces

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// POST traces/search, spans/search, sessions/search and their counts: the client's
// LogRecordsQueryRequest and LogRecordsQueryCountRequest.

// recordsPage is the client's LogRecordsQueryResponse.
type recordsPage struct {
	StartingToken     int               `json:"starting_token"`
	Limit             int               `json:"limit"`
	Paginated         bool              `json:"paginated"`
	NextStartingToken *int              `json:"next_starting_token"`
	LastRowID         *string           `json:"last_row_id"`
	Records           []json.RawMessage `json:"records"`
}

// countResponse is the client's LogRecordsQueryCountResponse.
type countResponse struct {
	TotalCount int64 `json:"total_count"`
}

// queried is a record query read, its run found and its columns checked.
type queried struct {
	q   recordQuery
	run store.Run
	cat *columns.Catalog
}

// readQueried decodes, validates and authorizes a record query of part.
func (h *handlers) readQueried(r *http.Request, part queryPart) (queried, error) {
	call, err := openRecordQuery(r, part)
	if err != nil {
		return queried{}, err
	}
	return h.authorizeQuery(r.Context(), call.Caller, call.In.ID, call.In.Req)
}

// openRecordQuery opens a handler of a record query of part: its caller, its project id
// and its query.
func openRecordQuery(r *http.Request, part queryPart) (base.Call[base.Keyed[recordQuery]], error) {
	return base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4,
		func(errs *validate.Errors, raw any, present bool) recordQuery {
			q, _, _ := readRecordQuery(errs, raw, present, part)
			return q
		}))
}

// usageColumns are the usage values a record query may also filter (number) and sort on,
// beside the catalog: the latency, tokens and cost every record carries.
var usageColumns = map[string]columns.Column{
	"latency_ms":   {ID: "latency_ms", DataType: columns.DataFloatingPoint, FilterType: columns.FilterNumber, Filterable: true, Sortable: true},
	"total_tokens": {ID: "total_tokens", DataType: columns.DataInteger, FilterType: columns.FilterNumber, Filterable: true, Sortable: true},
	"total_cost":   {ID: "total_cost", DataType: columns.DataFloatingPoint, FilterType: columns.FilterNumber, Filterable: true, Sortable: true},
}

// recordColumn finds a column of a record query: the run's catalog, then the usage columns.
func recordColumn(cat *columns.Catalog, id string) (columns.Column, bool) {
	if c, ok := cat.Lookup(id); ok {
		return c, true
	}
	c, ok := usageColumns[id]
	return c, ok
}

// recordFilterAccepted says whether f may name its column in a record query.
func recordFilterAccepted(cat *columns.Catalog, f *filter) bool {
	if columnAccepts(cat, f) {
		return true
	}
	c, ok := usageColumns[f.column]
	return ok && c.Accepts(columns.FilterType(f.kind))
}

// checkRecordColumns checks that every filter names a filterable column of its kind and
// the sort a sortable column, of the run's catalog or the usage columns.
func checkRecordColumns(cat *columns.Catalog, q recordQuery) error {
	errs := validate.New()
	for i, f := range q.filters {
		if !recordFilterAccepted(cat, f) {
			errs.Add(validate.ValueError([]any{"body", "filters", i, f.kind, "column_id"}, f.column,
				fmt.Sprintf("column %q is not a filterable column of filter_type %s", f.column, f.kind)))
		}
	}
	q.tree.leaves(func(f *filter) {
		if !recordFilterAccepted(cat, f) {
			errs.Add(validate.ValueError([]any{"body", "filter_tree"}, f.column,
				fmt.Sprintf("column %q is not a filterable column of filter_type %s", f.column, f.kind)))
		}
	})
	if q.sortCol != "" {
		if col, ok := recordColumn(cat, q.sortCol); !ok || !col.Sortable {
			errs.Add(validate.ValueError([]any{"body", "sort", "column_id"}, q.sortCol,
				fmt.Sprintf("column %q is not a sortable column of the run", q.sortCol)))
		}
	}
	return errs.Err()
}

func (h *handlers) searchTraces(w http.ResponseWriter, r *http.Request) error {
	return h.searchRecords(w, r, store.EntityTrace)
}

func (h *handlers) searchSpans(w http.ResponseWriter, r *http.Request) error {
	return h.searchRecords(w, r, store.EntitySpan)
}

func (h *handlers) searchSessions(w http.ResponseWriter, r *http.Request) error {
	return h.searchRecords(w, r, store.EntityLogSession)
}

func (h *handlers) countTraces(w http.ResponseWriter, r *http.Request) error {
	return h.countRecords(w, r, store.EntityTrace)
}

func (h *handlers) countSpans(w http.ResponseWriter, r *http.Request) error {
	return h.countRecords(w, r, store.EntitySpan)
}

func (h *handlers) countSessions(w http.ResponseWriter, r *http.Request) error {
	return h.countRecords(w, r, store.EntityLogSession)
}

// searchRecords answers POST <kind>/search for records of entity.
func (h *handlers) searchRecords(w http.ResponseWriter, r *http.Request, entity string) error {
	call, err := openRecordQuery(r, partPage)
	if err != nil {
		return err
	}
	out, err := h.searchPage(r.Context(), call.Caller, call.In.ID, call.In.Req, entity)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// searchPage is the page of records of entity that query q of project projectID selects.
func (h *handlers) searchPage(ctx context.Context, c auth.Caller, projectID string, q recordQuery, entity string) (recordsPage, error) {
	// The row a keyset continuation starts after is looked up (in the caller's organization)
	// while the query is authorized, so that a page at any depth costs two sequential round
	// trips; it is used only once the run is known and it is checked to be the run's.
	var position chan positionGot
	if q.after != "" && (q.sortCol == "" || q.sortCol == "created_at") {
		position = make(chan positionGot, 1)
		go func() {
			it, err := store.RecordItem(ctx, h.Table, c.OrgID, q.after)
			position <- positionGot{it, err}
		}()
	}
	qd, err := h.authorizeQuery(ctx, c, projectID, q)
	var after store.Item
	if position != nil {
		got := <-position
		if err == nil {
			if after, err = recordOfRun(qd.run, entity, got.it, got.err); err != nil {
				return recordsPage{}, err
			}
		}
	}
	if err != nil {
		return recordsPage{}, err
	}
	e := newEngine(h.Table, h.Payloads, h.RecordScanBound, entity, qd.run.ID, qd.q)
	p, err := e.search(ctx, qd.cat, after)
	if errors.Is(err, errRecordBound) {
		return recordsPage{}, errRecordsTooWide(qd.q.raw, h.RecordScanBound)
	}
	if err != nil {
		return recordsPage{}, err
	}
	return h.pageOut(ctx, qd.q, p)
}

type positionGot struct {
	it  store.Item
	err error
}

// recordOfRun checks the item of a record (as read, with its error) is a record of entity
// in run.
func recordOfRun(run store.Run, entity string, it store.Item, err error) (store.Item, error) {
	if errors.Is(err, store.ErrNotFound) || (err == nil && (it[store.AttrEntity] != entity || it["run_id"] != run.ID)) {
		return nil, errNotInQuery
	}
	return it, err
}

// pageOut answers a page: contents read, texts cut when asked, counts added when asked.
func (h *handlers) pageOut(ctx context.Context, q recordQuery, p page) (recordsPage, error) {
	out := recordsPage{StartingToken: q.offset, Limit: q.limit, Paginated: p.paginated}
	records, ids := make([]*recordOut, len(p.rows)), make([]string, len(p.rows))
	for i, r := range p.rows {
		if err := r.loadContent(ctx, h.Payloads); err != nil {
			return out, err
		}
		records[i], ids[i] = r.out(), r.id()
		if q.truncate {
			truncateRecord(records[i])
		}
	}
	if q.counts {
		if err := h.addSessionCounts(ctx, p.rows, records); err != nil {
			return out, err
		}
	}
	if n := len(p.rows); n > 0 {
		out.LastRowID = &ids[n-1]
	}
	if p.paginated {
		next := q.offset + len(p.rows)
		out.NextStartingToken = &next
	}
	return out, fitPage(&out, records, ids, h.AnswerLimit)
}

// addSessionCounts sets num_traces on the sessions of a page (one query each, at once).
func (h *handlers) addSessionCounts(ctx context.Context, rows []*row, outs []*recordOut) error {
	var wg sync.WaitGroup
	errs := make([]error, len(rows))
	for i, r := range rows {
		if r.se == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := store.CountSessionTraces(ctx, h.Table, r.se.ID)
			outs[i].NumTraces, errs[i] = &n, err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// countRecords answers POST <kind>/count. Without filters the run's summary answers at once.
func (h *handlers) countRecords(w http.ResponseWriter, r *http.Request, entity string) error {
	qd, err := h.readQueried(r, partFilters)
	if err != nil {
		return err
	}
	var n int64
	if qd.q.unfiltered() {
		sums, err := store.GetRunSummaries(r.Context(), h.Table, []string{qd.run.ID})
		if err != nil {
			return err
		}
		s := sums[qd.run.ID]
		n = map[string]int64{store.EntityTrace: s.NumTraces, store.EntitySpan: s.NumSpans, store.EntityLogSession: s.NumSessions}[entity]
	} else {
		n, err = newEngine(h.Table, h.Payloads, h.RecordScanBound, entity, qd.run.ID, qd.q).count(r.Context())
		if errors.Is(err, errRecordBound) {
			return errRecordsTooWide(qd.q.raw, h.RecordScanBound)
		}
		if err != nil {
			return err
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, countResponse{TotalCount: n})
	return nil
}

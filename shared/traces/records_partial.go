package traces

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// POST traces/partial_search, spans/partial_search and sessions/partial_search: the
// client's LogRecordsPartialQueryRequest, a search whose records carry only the columns it
// selects (the original's clients page through a run this way).

// partialQuery is a record query with the columns to answer.
type partialQuery struct {
	recordQuery
	columnIDs   []string
	allMetrics  bool
	allFeedback bool
}

// identityFields are answered whatever the selection: what names a record and places it.
var identityFields = []string{"type", "id", "session_id", "trace_id", "parent_id", "project_id", "run_id", "created_at"}

// feedbackFields are what include_all_feedback adds.
var feedbackFields = []string{"feedback_rating_info", "annotations", "annotation_aggregates"}

// readPartialQuery reads the body: a page query and select_columns (required).
func readPartialQuery(errs *validate.Errors, raw any, present bool) partialQuery {
	q, o, _ := readRecordQuery(errs, raw, present, partPage)
	pq := partialQuery{recordQuery: q}
	if _, isObject := raw.(map[string]any); !isObject {
		return pq // the body's own problem is reported already
	}
	sc, ok := o.Get("select_columns").Required().Object()
	if !ok {
		return pq
	}
	if items, ok := sc.Get("column_ids").List(); ok {
		for _, it := range items {
			if id, ok := it.String(validate.MinLen(1)); ok {
				pq.columnIDs = append(pq.columnIDs, id)
			}
		}
	}
	pq.allMetrics = optBool(sc, "include_all_metrics")
	pq.allFeedback = optBool(sc, "include_all_feedback")
	return pq
}

func (h *handlers) partialSearchTraces(w http.ResponseWriter, r *http.Request) error {
	return h.partialSearch(w, r, store.EntityTrace)
}

func (h *handlers) partialSearchSpans(w http.ResponseWriter, r *http.Request) error {
	return h.partialSearch(w, r, store.EntitySpan)
}

func (h *handlers) partialSearchSessions(w http.ResponseWriter, r *http.Request) error {
	return h.partialSearch(w, r, store.EntityLogSession)
}

// partialSearch answers the search as POST <kind>/search does, each record cut down to its
// identity and the selected columns: a column that is a field of the record keeps that
// field; metrics/<name> (and a usage value such as duration_ns) keeps that entry of metrics
// and metric_info; include_all_metrics keeps both whole; include_all_feedback keeps the
// feedback and annotation fields a record has.
func (h *handlers) partialSearch(w http.ResponseWriter, r *http.Request, entity string) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4, readPartialQuery))
	if err != nil {
		return err
	}
	pq := call.In.Req
	out, err := h.searchPage(r.Context(), call.Caller, call.In.ID, pq.recordQuery, entity)
	if err != nil {
		return err
	}
	for i, rec := range out.Records {
		if out.Records[i], err = pq.project(rec); err != nil {
			return fmt.Errorf("select the columns of a record: %w", err)
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// project keeps the record's identity and the selected columns.
func (pq partialQuery) project(rec json.RawMessage) (json.RawMessage, error) {
	var full map[string]json.RawMessage
	if err := json.Unmarshal(rec, &full); err != nil {
		return nil, err
	}
	var metrics, info map[string]json.RawMessage
	_ = json.Unmarshal(full["metrics"], &metrics)
	_ = json.Unmarshal(full["metric_info"], &info)
	out := map[string]json.RawMessage{}
	keep := func(k string) {
		if v, ok := full[k]; ok {
			out[k] = v
		}
	}
	for _, k := range identityFields {
		keep(k)
	}
	if pq.allFeedback {
		for _, k := range feedbackFields {
			keep(k)
		}
	}
	if pq.allMetrics {
		keep("metrics")
		keep("metric_info")
	}
	selMetrics, selInfo := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for _, id := range pq.columnIDs {
		if _, ok := full[id]; ok {
			keep(id)
			continue
		}
		name := strings.TrimPrefix(id, columns.MetricPrefix)
		if v, ok := metrics[name]; ok {
			selMetrics[name] = v
		}
		if v, ok := info[name]; ok {
			selInfo[name] = v
		}
	}
	if !pq.allMetrics {
		if err := putMap(out, "metrics", selMetrics); err != nil {
			return nil, err
		}
		if err := putMap(out, "metric_info", selInfo); err != nil {
			return nil, err
		}
	}
	return json.Marshal(out)
}

// putMap sets key to m when m has entries.
func putMap(out map[string]json.RawMessage, key string, m map[string]json.RawMessage) error {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	out[key] = b
	return err
}

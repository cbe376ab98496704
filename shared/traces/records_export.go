package traces

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// POST export_records (the client's LogRecordsExportRequest): the records of one root type
// that pass the filters, as JSON lines (each record as the searches answer it, or flat) or
// CSV, written row by row as they are read: memory stays one page of the store whatever the
// export's size. Through API Gateway a Lambda's answer is buffered and capped (6 MB), so
// there the export is held up to Deps.ExportLimit and refused with 413 beyond, before any
// byte is sent; the local host has no limit.

// rootEntities maps root_type to the records exported.
var rootEntities = map[string]string{"trace": store.EntityTrace, "span": store.EntitySpan, "session": store.EntityLogSession}

// exportRequest is a validated export body.
type exportRequest struct {
	recordQuery
	entity   string
	format   string // jsonl, jsonl_flat, csv
	columns  []string
	redact   bool
	fileName string
}

func readExport(errs *validate.Errors, raw any, present bool) exportRequest {
	q, o, ok := readRecordQuery(errs, raw, present, partExport)
	x := exportRequest{recordQuery: q, format: "jsonl", redact: true}
	if o.Raw() == nil {
		return x
	}
	root, _ := o.Get("root_type").Required().Enum("session", "trace", "span")
	x.entity = rootEntities[root]
	if v := o.Get("export_format"); v.Present() {
		x.format, _ = v.Enum("csv", "jsonl", "jsonl_flat")
	}
	if v := o.Get("column_ids").Nullable(); v.Present() && !v.IsNull() {
		items, _ := v.List(validate.MinLen(1), validate.MaxLen(500))
		for _, it := range items {
			if s, ok := it.String(validate.MinLen(1)); ok {
				x.columns = append(x.columns, s)
			}
		}
	}
	if v := o.Get("redact"); v.Present() {
		x.redact, _ = v.Bool()
	}
	if v := o.Get("file_name").Nullable(); v.Present() && !v.IsNull() {
		x.fileName, _ = v.String(validate.MinLen(1), validate.MaxLen(255))
	}
	optBool(o, "export_computed_metrics_only")
	optBool(o, "include_code_metric_metadata")
	_ = ok
	return x
}

// exportRecords is POST /v2/projects/{project_id}/export_records.
func (h *handlers) exportRecords(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4, readExport))
	if err != nil {
		return err
	}
	x := call.In.Req
	qd, err := h.authorizeQuery(r.Context(), call.Caller, call.In.ID, x.recordQuery)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var out io.Writer = w
	var held *bytes.Buffer
	if h.ExportLimit > 0 {
		held = &bytes.Buffer{}
		out = &cappedWriter{w: held, left: h.ExportLimit}
	}
	enc := newExportEncoder(out, x)
	e := newEngine(h.Table, h.Payloads, h.RecordScanBound, x.entity, qd.run.ID, x.recordQuery)
	started := false
	emit := func(rw *row) error {
		if !started && held == nil {
			setExportHeaders(w, x)
			started = true
		}
		if err := rw.loadContent(ctx, h.Payloads); err != nil {
			return err
		}
		return enc.write(rw.out())
	}
	if x.sortCol == "" || x.sortCol == "created_at" {
		err = e.scan(ctx, !(x.sortCol == "created_at" && x.asc), nil, emit)
	} else {
		x.limit, x.offset = int(h.RecordScanBound), 0
		e.q = x.recordQuery
		var p page
		p, err = e.search(ctx, qd.cat, nil)
		for _, rw := range p.rows {
			if err != nil {
				break
			}
			err = emit(rw)
		}
	}
	if err == nil {
		err = enc.flush()
	}
	switch {
	case errors.Is(err, errRecordBound) && !started:
		return errRecordsTooWide(x.raw, h.RecordScanBound)
	case errors.Is(err, errExportTooLarge):
		return &httpapi.StatusError{Status: http.StatusRequestEntityTooLarge, Detail: fmt.Sprintf(
			"the export is larger than %d bytes, the most an answer through API Gateway carries: "+
				"export it in parts with date filters on created_at", h.ExportLimit)}
	case err != nil && started:
		// Headers are sent: the truncated body is the only signal left; log it.
		h.Log.ErrorContext(ctx, "export interrupted", "error", err.Error())
		return nil
	case err != nil:
		return err
	}
	if held != nil {
		setExportHeaders(w, x)
		w.WriteHeader(http.StatusOK)
		_, err = w.Write(held.Bytes())
		return err
	}
	if !started {
		setExportHeaders(w, x)
		w.WriteHeader(http.StatusOK)
	}
	return nil
}

// authorizeQuery finds the run of a query read elsewhere and checks its columns.
func (h *handlers) authorizeQuery(ctx context.Context, c auth.Caller, projectID string, q recordQuery) (queried, error) {
	run, err := h.findRun(ctx, c, projectID, q.run)
	if err != nil {
		return queried{}, err
	}
	cat := columns.ForSettings(run.MetricSettings)
	if checkRecordColumns(cat, q) != nil {
		// The external evaluators' metrics (docs/OTEL.md) are columns of the run like its
		// scorers': the run's filled columns name them. Read only for a query that names a
		// column the settings do not, so that a common query costs no read more.
		filled, err := store.FilledColumns(ctx, h.Table, run.ID)
		if err != nil {
			return queried{}, err
		}
		run.Scorers = withExternal(run.Scorers, filled, nil)
		cat = columns.ForSettings(run.MetricSettings)
	}
	return queried{q: q, run: run, cat: cat}, checkRecordColumns(cat, q)
}

func setExportHeaders(w http.ResponseWriter, x exportRequest) {
	ext, ctype := "jsonl", "application/jsonl"
	if x.format == "csv" {
		ext, ctype = "csv", "text/csv; charset=utf-8"
	}
	name := x.fileName
	if name == "" {
		name = strings.TrimPrefix(x.entity, "log_") + "s." + ext
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
}

// errExportTooLarge stops an export held in memory that passed the limit.
var errExportTooLarge = errors.New("export too large")

// cappedWriter fails once more than left bytes are written.
type cappedWriter struct {
	w    io.Writer
	left int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if c.left -= int64(len(p)); c.left < 0 {
		return 0, errExportTooLarge
	}
	return c.w.Write(p)
}

// exportEncoder writes records in the export's format.
type exportEncoder struct {
	x      exportRequest
	w      io.Writer
	csv    *csv.Writer
	header []string
}

func newExportEncoder(w io.Writer, x exportRequest) *exportEncoder {
	e := &exportEncoder{x: x, w: w}
	if x.format == "csv" {
		e.csv = csv.NewWriter(w)
	}
	return e
}

func (e *exportEncoder) write(rec *recordOut) error {
	if e.x.redact {
		if !rec.RedactedInput.IsNull() {
			rec.Input = rec.RedactedInput
		}
		if !rec.RedactedOutput.IsNull() {
			rec.Output = rec.RedactedOutput
		}
	}
	if e.x.format == "jsonl" && e.x.columns == nil {
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		_, err = e.w.Write(append(b, '\n'))
		return err
	}
	flat, err := flatRecord(rec)
	if err != nil {
		return err
	}
	if e.x.columns != nil {
		kept := make(map[string]any, len(e.x.columns))
		for _, c := range e.x.columns {
			kept[c] = flat[c]
		}
		flat = kept
	}
	if e.csv == nil {
		b, err := json.Marshal(flat)
		if err != nil {
			return err
		}
		_, err = e.w.Write(append(b, '\n'))
		return err
	}
	if e.header == nil {
		e.header = e.x.columns
		if e.header == nil {
			for k := range flat {
				e.header = append(e.header, k)
			}
			slices.Sort(e.header)
		}
		if err := e.csv.Write(e.header); err != nil {
			return err
		}
	}
	cells := make([]string, len(e.header))
	for i, k := range e.header {
		cells[i] = cellText(flat[k])
	}
	if err := e.csv.Write(cells); err != nil {
		return err
	}
	e.csv.Flush()
	return e.csv.Error()
}

func (e *exportEncoder) flush() error {
	if e.csv != nil {
		e.csv.Flush()
		return e.csv.Error()
	}
	return nil
}

// flatRecord is a record as one level of columns: its fields, the usage metrics beside
// them, each scorer's value as metrics/<name>.
func flatRecord(rec *recordOut) (map[string]any, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "spans")
	delete(m, "traces")
	delete(m, "metric_info")
	if usage, ok := m["metrics"].(map[string]any); ok {
		delete(m, "metrics")
		for k, v := range usage {
			if _, taken := m[k]; !taken {
				m[k] = v
			}
		}
	}
	for name, info := range rec.MetricInfo {
		if mi, ok := info.(map[string]any); ok {
			m["metrics/"+name] = mi["value"]
		}
	}
	return m, nil
}

// cellText is a CSV cell: a text as itself, null as empty, anything else as JSON.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

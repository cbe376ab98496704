package traces

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	idgen "github.com/evalobs/evalapi/shared/ids"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// spanIDsOf collects the ids and parent ids of a trace read's span tree.
func spanIDsOf(spans any, into map[string]string) {
	list, _ := spans.([]any)
	for _, s := range list {
		m := s.(map[string]any)
		id, _ := m["id"].(string)
		parent, _ := m["parent_id"].(string)
		into[id] = parent
		spanIDsOf(m["spans"], into)
	}
}

// A trace begun before ids were UUID4 (its trace, spans and session stored under their
// version-5 ids) and continued by an export after it stays one trace under its former ids:
// neither split into a second trace nor left with spans whose parent names nothing. A trace
// begun after it has UUID4 ids.
func TestOTLPTraceContinuesAcrossTheIDChange(t *testing.T) {
	h := newOTLPHarness(t)
	h.legacyIDs = true // its answers hold the former ids, on purpose
	ctx := t.Context()
	js, err := os.ReadFile(filepath.Join(otlpData, "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := otlp.DecodeJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	res, spans := whole.Resources[0].Attrs, whole.Resources[0].Spans
	otelTraceID := spans[0].TraceID
	var ext string
	for i := range spans {
		if ext = sessionAttr(&spans[i]); ext != "" {
			break
		}
	}
	if ext == "" {
		t.Fatal("agent.json names no session")
	}
	run, err := store.GetRun(ctx, h.tbl, h.org.ID, ExampleProjectID, ExampleLogStreamID)
	if err != nil {
		t.Fatal(err)
	}

	// The former service's session of ext (an earlier trace's), and its write of the
	// children (all ids version 5).
	if _, err := store.PutLogSession(ctx, h.tbl, store.LogSession{ID: records.LegacyExternalSessionID(run.ID, ext), RunID: run.ID,
		ProjectID: run.ProjectID, OrgID: run.OrgID, ExternalID: &ext, CreatedAt: testNow}); err != nil {
		t.Fatal(err)
	}
	former := &handlers{Deps: Deps{Deps: base.Deps{Table: h.tbl, Authenticate: func(next httpapi.HandlerFunc) httpapi.HandlerFunc { return next }, Now: func() time.Time { return testNow }}}.withDefaults("otel")}
	legacy := otelIDs{IDs: otlp.IDs{Run: run.ID, Legacy: map[[16]byte]bool{otelTraceID: true}}, legacySessions: map[string]bool{ext: true}}
	groups, order := map[string]*otelTrace{}, []string(nil)
	otelGroup(legacy, run, res, []otlp.Span{spans[1], spans[4]}, groups, &order, testNow)
	if err := former.otelWrite(ctx, run, groups, order); err != nil {
		t.Fatal(err)
	}

	// Today's export of the rest, root included.
	body := jsonExport(t, res, []otlp.Span{spans[0], spans[2], spans[3]})
	if code, resp, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, body, exampleRun); code != http.StatusOK {
		t.Fatalf("export: %d %s", code, resp)
	}

	oldID := otlp.LegacyTraceUUID(run.ID, otelTraceID)
	tr := h.readTrace(oldID)
	if tr["is_complete"] != true || tr["num_spans"] != float64(len(spans)) {
		t.Errorf("the continued trace: complete %v, %v spans, want true and %d", tr["is_complete"], tr["num_spans"], len(spans))
	}
	if want := records.LegacyExternalSessionID(run.ID, ext); tr["session_id"] != want {
		t.Errorf("session_id = %v, want the former session %s", tr["session_id"], want)
	}
	got := map[string]string{}
	spanIDsOf(tr["spans"], got)
	if len(got) != len(spans) {
		t.Errorf("the trace holds %d spans, want %d: %v", len(got), len(spans), got)
	}
	for i := range spans {
		id := otlp.LegacySpanUUID(run.ID, otelTraceID, spans[i].SpanID)
		parent, ok := got[id]
		if !ok {
			t.Errorf("span %d is not under its former id %s", i, id)
			continue
		}
		if _, known := got[parent]; parent != oldID && !known {
			t.Errorf("span %s: parent %s names nothing in the trace", id, parent)
		}
	}
	if code, _ := h.do(&h.org.Admin, "GET", "/v2/projects/"+ExampleProjectID+"/traces/"+otlp.TraceUUID(run.ID, otelTraceID), ""); code != http.StatusNotFound {
		t.Errorf("the new id of the continued trace reads %d, want 404 (one trace)", code)
	}

	// A new trace of the same session, exported today: UUID4 trace and spans, the former session.
	fresh := make([]otlp.Span, len(spans))
	copy(fresh, spans)
	for i := range fresh {
		fresh[i].TraceID[0] ^= 0xff
	}
	if code, resp, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, jsonExport(t, res, fresh), exampleRun); code != http.StatusOK {
		t.Fatalf("export of a new trace: %d %s", code, resp)
	}
	newID := otlp.TraceUUID(run.ID, fresh[0].TraceID)
	if !idgen.IsUUID4(newID) {
		t.Fatalf("TraceUUID = %s, not a UUID4", newID)
	}
	tr = h.readTrace(newID)
	if want := records.LegacyExternalSessionID(run.ID, ext); tr["session_id"] != want {
		t.Errorf("new trace's session_id = %v, want the session the run holds %s", tr["session_id"], want)
	}
	got = map[string]string{}
	spanIDsOf(tr["spans"], got)
	for id, parent := range got {
		if !idgen.IsUUID4(id) || !idgen.IsUUID4(parent) {
			t.Errorf("new trace: span %s (parent %s) is not UUID4", id, parent)
		}
	}
}

package traces

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// otelIDs are the record ids of one run's export, resolved against what the run stores:
// the traces stored under their former version-5 ids keep them (otlp.IDs), and so do the
// sessions of session.id values the run holds under theirs.
type otelIDs struct {
	otlp.IDs
	legacySessions map[string]bool // external ids whose session has its version-5 id
}

// otelResource is one resource's valid spans, grouped once the run's ids are resolved.
type otelResource struct {
	attrs []otlp.KeyValue
	spans []otlp.Span
}

// otelResolveIDs reads, in one consistent batch, the run's claims of the former ids of the
// export's traces and of the sessions its spans name.
func (h *handlers) otelResolveIDs(ctx context.Context, run store.Run, resources []otelResource) (otelIDs, error) {
	out := otelIDs{IDs: otlp.IDs{Run: run.ID, Legacy: map[[16]byte]bool{}}, legacySessions: map[string]bool{}}
	traceOf := map[store.Key][16]byte{}
	sessionOf := map[store.Key]string{}
	var keys []store.Key
	for _, rs := range resources {
		for i := range rs.spans {
			k := store.RecordClaimKey(run.ID, otlp.LegacyTraceUUID(run.ID, rs.spans[i].TraceID))
			if _, ok := traceOf[k]; !ok {
				traceOf[k] = rs.spans[i].TraceID
				keys = append(keys, k)
			}
			if ext := sessionAttr(&rs.spans[i]); ext != "" {
				k := store.SessionKey(run.ID, records.LegacyExternalSessionID(run.ID, ext))
				if _, ok := sessionOf[k]; !ok {
					sessionOf[k] = ext
					keys = append(keys, k)
				}
			}
		}
	}
	for start := 0; start < len(keys); start += store.MaxBatchGet {
		found, err := h.Table.BatchGet(ctx, keys[start:min(start+store.MaxBatchGet, len(keys))], true)
		if err != nil {
			return otelIDs{}, fmt.Errorf("otlp: read former ids: %w", err)
		}
		for _, it := range found {
			if tr, ok := traceOf[it.Key()]; ok {
				out.Legacy[tr] = true
			}
			if ext, ok := sessionOf[it.Key()]; ok {
				out.legacySessions[ext] = true
			}
		}
	}
	return out, nil
}

// session is the session of run named ext, as a trace of the export creates it.
func (x otelIDs) session(run store.Run, ext string, now time.Time) store.LogSession {
	id := records.ExternalSessionID(run.ID, ext)
	if x.legacySessions[ext] {
		id = records.LegacyExternalSessionID(run.ID, ext)
	}
	return store.LogSession{ID: id, RunID: run.ID, ProjectID: run.ProjectID, OrgID: run.OrgID, ExternalID: &ext, CreatedAt: now}
}

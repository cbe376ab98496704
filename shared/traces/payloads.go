package traces

import (
	"context"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
)

// PayloadThreshold is the size above which a content field leaves the table (payload.Threshold).
const PayloadThreshold = payload.Threshold

// offloadTraces moves the large contents of traces and their spans to the payload store.
func (h *handlers) offloadTraces(ctx context.Context, run store.Run, traces []store.Trace) error {
	for i := range traces {
		tr := &traces[i]
		if err := payload.Offload(ctx, h.Payloads, payload.Prefix(run.OrgID, run.ID, tr.ID), &tr.RecordContent); err != nil {
			return err
		}
		if err := h.offloadSpans(ctx, run.OrgID, run.ID, tr.Spans); err != nil {
			return err
		}
	}
	return nil
}

func (h *handlers) offloadSpans(ctx context.Context, orgID, runID string, spans []store.Span) error {
	for j := range spans {
		sp := &spans[j]
		if err := payload.Offload(ctx, h.Payloads, payload.Prefix(orgID, runID, sp.ID), &sp.RecordContent); err != nil {
			return err
		}
	}
	return nil
}

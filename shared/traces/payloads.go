package traces

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
)

// Large contents: a content field longer than PayloadThreshold is kept in the payload store
// (S3 in the cloud, the data directory locally) and the record holds a pointer to it, so
// that no record meets the table's 400 KB item limit; reads resolve pointers transparently.
// A payload's key names its record and its content's digest, so writing it again (a retry)
// writes the same object.

// PayloadThreshold is the size above which a content field leaves the table.
const PayloadThreshold = 32 << 10

// pointer is the content stored in place of a large one.
type pointer struct {
	Key   string `json:"$evalapi_payload"`
	Bytes int    `json:"bytes"`
}

// offload moves the large fields of c to the payload store under the record's prefix.
func offload(ctx context.Context, ps payload.Store, prefix string, c *store.RecordContent) error {
	for name, f := range contentFields(c) {
		if len(*f) <= PayloadThreshold {
			continue
		}
		sum := sha256.Sum256(*f)
		key := prefix + "/" + name + "-" + hex.EncodeToString(sum[:16])
		if err := ps.Put(ctx, key, *f); err != nil {
			return fmt.Errorf("offload %s: %w", name, err)
		}
		b, _ := json.Marshal(pointer{Key: key, Bytes: len(*f)})
		*f = store.Content(b)
	}
	return nil
}

// resolve replaces the pointers of c by the contents they point to.
func resolve(ctx context.Context, ps payload.Store, c *store.RecordContent) error {
	for name, f := range contentFields(c) {
		p, ok := asPointer(*f)
		if !ok {
			continue
		}
		b, err := ps.Get(ctx, p.Key)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", name, err)
		}
		*f = store.Content(b)
	}
	return nil
}

// pointersOf lists the payload keys c points to (deletion).
func pointersOf(c store.RecordContent) []string {
	var out []string
	for _, f := range contentFields(&c) {
		if p, ok := asPointer(*f); ok {
			out = append(out, p.Key)
		}
	}
	return out
}

func asPointer(c store.Content) (pointer, bool) {
	if len(c) < 20 || c[0] != '{' || len(c) > 1024 {
		return pointer{}, false
	}
	var p pointer
	if json.Unmarshal(c, &p) != nil || p.Key == "" {
		return pointer{}, false
	}
	return p, true
}

func contentFields(c *store.RecordContent) map[string]*store.Content {
	return map[string]*store.Content{"input": &c.Input, "output": &c.Output, "redacted_input": &c.RedactedInput,
		"redacted_output": &c.RedactedOutput, "tools": &c.Tools, "events": &c.Events}
}

// payloadPrefix is the key prefix of a record's payloads.
func payloadPrefix(orgID, runID, recordID string) string {
	return orgID + "/" + runID + "/" + recordID
}

// offloadTraces moves the large contents of traces and their spans to the payload store.
func (h *handlers) offloadTraces(ctx context.Context, run store.Run, traces []store.Trace) error {
	for i := range traces {
		tr := &traces[i]
		if err := offload(ctx, h.Payloads, payloadPrefix(run.OrgID, run.ID, tr.ID), &tr.RecordContent); err != nil {
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
		if err := offload(ctx, h.Payloads, payloadPrefix(orgID, runID, sp.ID), &sp.RecordContent); err != nil {
			return err
		}
	}
	return nil
}

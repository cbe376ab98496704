package payload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/evalobs/evalapi/shared/store"
)

// Large contents: a content field longer than Threshold is kept in the payload store and
// the record holds a pointer to it, so that no record meets the table's 400 KB item limit;
// reads resolve pointers transparently. A payload's key names its record and its content's
// digest, so writing it again (a retry) writes the same object.

// Threshold is the size above which a content field leaves the table.
const Threshold = 32 << 10

// pointer is the content stored in place of a large one.
type pointer struct {
	Key   string `json:"$evalapi_payload"`
	Bytes int    `json:"bytes"`
}

// Prefix is the key prefix of a record's payloads.
func Prefix(orgID, runID, recordID string) string {
	return orgID + "/" + runID + "/" + recordID
}

// Offload moves the large fields of c to s under the record's prefix, leaving pointers.
func Offload(ctx context.Context, s Store, prefix string, c *store.RecordContent) error {
	for name, f := range fields(c) {
		if len(*f) <= Threshold {
			continue
		}
		sum := sha256.Sum256(*f)
		key := prefix + "/" + name + "-" + hex.EncodeToString(sum[:16])
		if err := s.Put(ctx, key, *f); err != nil {
			return fmt.Errorf("offload %s: %w", name, err)
		}
		b, _ := json.Marshal(pointer{Key: key, Bytes: len(*f)})
		*f = store.Content(b)
	}
	return nil
}

// Resolve replaces the pointers of c by the contents they point to.
func Resolve(ctx context.Context, s Store, c *store.RecordContent) error {
	for name, f := range fields(c) {
		p, ok := asPointer(*f)
		if !ok {
			continue
		}
		b, err := s.Get(ctx, p.Key)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", name, err)
		}
		*f = store.Content(b)
	}
	return nil
}

// Pointers lists the payload keys c points to (deletion).
func Pointers(c store.RecordContent) []string {
	var out []string
	for _, f := range fields(&c) {
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

func fields(c *store.RecordContent) map[string]*store.Content {
	return map[string]*store.Content{"input": &c.Input, "output": &c.Output, "redacted_input": &c.RedactedInput,
		"redacted_output": &c.RedactedOutput, "tools": &c.Tools, "events": &c.Events}
}

package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/ids"
)

// The UUID4 contract of ids: every id the service issues is a version-4 UUID (the
// specification's `uuid4`; the original's clients refuse any other version and drop the
// whole batch that holds one). IDViolations finds, in a JSON response, each field named
// `id`, ending in `_id`, or ending in `_ids` (a list of ids) whose value is not one.
//
// Not ids of ours, and so not held to it — the named exclusions:
//   - fields whose value the caller chose and the service keeps as given: external_id,
//     session_external_id (a caller's name for a session or record);
//   - OpenTelemetry ids in hex (otel_trace_id, otel_span_id) and a request's correlation id
//     (request_id);
//   - lora_task_id, an integer in the client's scorer schema, not an id of a record, and
//     tool_call_id, the model provider's id of a tool call;
//   - the content of user-owned maps and documents, whose keys are the caller's:
//     user_metadata, metadata, dataset_metadata, input, output, dataset_input,
//     dataset_output, redacted_input, redacted_output, values, row, tools, settings, params;
//   - the column catalog (columns), where a column's id is its name;
//   - the API description (GET /openapi.json), whose fields describe ids (ids_record.go).
//
// API-key tokens and secrets are named neither id nor *_id, so they need no exclusion.

// idExempt are the id-named fields whose values are not ids the service issues.
var idExempt = []string{"external_id", "session_external_id", "otel_trace_id", "otel_span_id", "request_id", "lora_task_id", "tool_call_id"}

// userContent are the fields whose content is the caller's: not searched for ids.
var userContent = []string{"user_metadata", "metadata", "dataset_metadata", "input", "output", "dataset_input",
	"dataset_output", "redacted_input", "redacted_output", "values", "row", "tools", "settings", "params", "columns"}

// IDViolation is one id-named field of a response whose value is not a UUID4.
type IDViolation struct {
	Path  string // the field's path in the document, as .records[0].session_id
	Value string // the value as JSON
}

func (v IDViolation) String() string { return v.Path + " = " + v.Value }

// IDViolations returns the id-named fields of the JSON document body that hold anything
// but a UUID4 (null is no id and passes); nothing for a body that is not JSON.
func IDViolations(body []byte) []IDViolation {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil
	}
	var out []IDViolation
	walkIDs(doc, "", &out)
	return out
}

func walkIDs(v any, path string, out *[]IDViolation) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := path + "." + k
			switch {
			case slices.Contains(userContent, k), slices.Contains(idExempt, k):
			case k == "id" || strings.HasSuffix(k, "_id"):
				checkID(x, p, out)
			case strings.HasSuffix(k, "_ids"):
				list, ok := x.([]any)
				if !ok {
					if x != nil { // null passes; anything else is no list of ids
						b, _ := json.Marshal(x)
						*out = append(*out, IDViolation{Path: p, Value: string(b)})
					}
					continue
				}
				for i, e := range list {
					checkID(e, fmt.Sprintf("%s[%d]", p, i), out)
				}
			default:
				walkIDs(x, p, out)
			}
		}
	case []any:
		for i, x := range v {
			walkIDs(x, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

func checkID(v any, path string, out *[]IDViolation) {
	if v == nil {
		return
	}
	if s, ok := v.(string); ok && ids.IsUUID4(s) {
		return
	}
	b, _ := json.Marshal(v)
	*out = append(*out, IDViolation{Path: path, Value: string(b)})
}

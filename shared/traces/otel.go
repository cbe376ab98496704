package traces

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// OTLP/HTTP trace ingestion (docs/OTEL.md): POST /otel/traces, /v2/otel/traces and the
// standard /v1/traces take an ExportTraceServiceRequest in protobuf or OTLP/JSON and answer
// an ExportTraceServiceResponse in the same encoding. Status codes follow the OTLP
// specification: 400 for a body that does not decode (not retried), 413 past the caps, 415
// for another content type, 503 with Retry-After when the table throttles (retried).

// Caps of one export: the body as sent (a Lambda's synchronous payload) and decompressed.
const (
	maxOTLPBody         = maxIngestBody
	maxOTLPDecompressed = 32 << 20
	maxOTLPSpans        = 10_000
)

const (
	ctProtobuf = "application/x-protobuf"
	ctJSON     = "application/json"
)

// otelTraces is POST /otel/traces (and /v2/otel/traces, /v1/traces).
func (h *handlers) otelTraces(w http.ResponseWriter, r *http.Request) error {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != ctProtobuf && ct != ctJSON {
		return &httpapi.StatusError{Status: http.StatusUnsupportedMediaType,
			Detail: "OTLP/HTTP takes application/x-protobuf or application/json"}
	}
	body, err := otelBody(r)
	if err != nil {
		return err
	}
	var export *otlp.Export
	if ct == ctProtobuf {
		export, err = otlp.DecodeProto(body)
	} else {
		export, err = otlp.DecodeJSON(body)
	}
	if err != nil {
		return &httpapi.StatusError{Status: http.StatusBadRequest, Detail: "The export does not decode: " + err.Error()}
	}
	if n := export.SpanCount(); n > maxOTLPSpans {
		return &httpapi.StatusError{Status: http.StatusRequestEntityTooLarge,
			Detail: fmt.Sprintf("The export holds %d spans, more than %d: export smaller batches", n, maxOTLPSpans)}
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	rejected, message, err := h.otelIngest(r, c, export)
	if err != nil {
		return err
	}
	otelAnswer(w, ct, rejected, message)
	return nil
}

// otelBody reads the body, inflating gzip, within the caps (413 past them).
func otelBody(r *http.Request) ([]byte, error) {
	raw, err := httpapi.ReadBody(r, maxOTLPBody)
	if err != nil {
		return nil, err
	}
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return raw, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, &httpapi.StatusError{Status: http.StatusBadRequest, Detail: "The body is not gzip"}
		}
		out, err := io.ReadAll(io.LimitReader(zr, maxOTLPDecompressed+1))
		if err != nil {
			return nil, &httpapi.StatusError{Status: http.StatusBadRequest, Detail: "The body is not gzip"}
		}
		if len(out) > maxOTLPDecompressed {
			return nil, &httpapi.StatusError{Status: http.StatusRequestEntityTooLarge,
				Detail: "The export is larger than " + strconv.Itoa(maxOTLPDecompressed) + " bytes decompressed"}
		}
		return out, nil
	default:
		return nil, &httpapi.StatusError{Status: http.StatusUnsupportedMediaType, Detail: "Content-Encoding " + enc + " is not supported (gzip is)"}
	}
}

// otelIngest places each resource's spans in its run and writes them. The spans of a
// resource that names no project, and spans with invalid ids, are refused and counted; a
// run that is named but cannot be used (unknown id, not creatable) fails the request.
func (h *handlers) otelIngest(r *http.Request, c auth.Caller, export *otlp.Export) (int64, string, error) {
	ctx := r.Context()
	header, fromHeader := headerTarget(r)
	type runState struct {
		run    store.Run
		err    error
		groups map[string]*otelTrace
		order  []string
		valid  []otelResource
	}
	runs := map[otelTarget]*runState{}
	var targets []otelTarget
	var rejected int64
	var message string
	refuse := func(n int, why string) {
		rejected += int64(n)
		if message == "" {
			message = why
		}
	}
	for _, rs := range export.Resources {
		t := header
		if !fromHeader {
			t = resourceTarget(rs.Attrs)
		}
		st := runs[t]
		if st == nil {
			st = &runState{groups: map[string]*otelTrace{}}
			_, st.run, st.err = h.otelRun(ctx, c, t)
			if st.err != nil && st.err != errNoProject {
				return 0, "", st.err
			}
			runs[t] = st
			targets = append(targets, t)
		}
		if st.err != nil {
			refuse(len(rs.Spans), errNoProject.Detail)
			continue
		}
		valid := rs.Spans[:0:0]
		for _, sp := range rs.Spans {
			if sp.TraceID == [16]byte{} || sp.SpanID == [8]byte{} {
				refuse(1, "spans with an all-zero trace or span id are invalid")
				continue
			}
			valid = append(valid, sp)
		}
		st.valid = append(st.valid, otelResource{attrs: rs.Attrs, spans: valid})
	}
	for _, t := range targets {
		st := runs[t]
		if st.err != nil {
			continue
		}
		ids, err := h.otelResolveIDs(ctx, st.run, st.valid)
		if err != nil {
			return 0, "", err
		}
		for _, rs := range st.valid {
			otelGroup(ids, st.run, rs.attrs, rs.spans, st.groups, &st.order, h.Now().UTC())
		}
		if len(st.order) == 0 {
			continue
		}
		if err := h.otelWrite(ctx, st.run, st.groups, st.order); err != nil {
			return 0, "", err
		}
	}
	return rejected, message, nil
}

// otelAnswer writes the ExportTraceServiceResponse in the request's encoding: an empty
// message when every span was accepted, else partial_success with the refused count.
func otelAnswer(w http.ResponseWriter, ct string, rejected int64, message string) {
	var body []byte
	if ct == ctProtobuf {
		if rejected > 0 {
			var ps []byte
			ps = protowire.AppendTag(ps, 1, protowire.VarintType)
			ps = protowire.AppendVarint(ps, uint64(rejected))
			ps = protowire.AppendTag(ps, 2, protowire.BytesType)
			ps = protowire.AppendString(ps, message)
			body = protowire.AppendTag(body, 1, protowire.BytesType)
			body = protowire.AppendBytes(body, ps)
		}
	} else if rejected > 0 {
		msg, _ := json.Marshal(message)
		body = fmt.Appendf(nil, `{"partialSuccess":{"rejectedSpans":"%d","errorMessage":%s}}`, rejected, msg)
	} else {
		body = []byte("{}")
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

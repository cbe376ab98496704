package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/evalobs/evalapi/shared/validate"
)

// MaxBody is the default cap on a request body.
const MaxBody = 1 << 20

// WriteJSON answers status with v as JSON, written the way FastAPI writes it: no HTML
// escaping, UTF-8 as is. It always writes the status, so the Lambda adapter never sees a
// response without one.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	buf := jsonBufs.Get().(*bytes.Buffer)
	defer putJSONBuf(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"detail":"Internal Server Error"}`)
	}
	body := bytes.TrimRight(buf.Bytes(), "\n")
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// jsonBufs are WriteJSON's buffers: a response is encoded into one and copied out by the
// ResponseWriter's Write (net/http, the Lambda adapter and the recorders all copy).
var jsonBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putJSONBuf(b *bytes.Buffer) {
	if b.Cap() > 1<<20 { // let a rare large answer's buffer go
		return
	}
	b.Reset()
	jsonBufs.Put(b)
}

// ReadBody reads the request body up to limit bytes (MaxBody when limit is 0); a larger
// body is a 413.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxBody
	}
	if r.ContentLength > limit {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge
		}
		return nil, &StatusError{Status: http.StatusBadRequest, Detail: "There was an error parsing the body"}
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// DecodeBody reads and parses a JSON body; a malformed one is the single json_invalid
// problem FastAPI reports. present is false for an empty body.
//
// As FastAPI does since 0.132 (strict_content_type), a body sent with a Content-Type that is
// not JSON (application/json or application/*+json) is not parsed: it is handed on as its
// raw text, which the body's model then refuses (model_attributes_type, list_type) with the
// text as input. A body with no Content-Type at all is read as JSON, as FastAPI did before.
func DecodeBody(r *http.Request, limit int64) (raw any, present bool, err error) {
	data, err := ReadBody(r, limit)
	if err != nil {
		return nil, false, err
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && len(data) > 0 && !isJSON(ct) {
		return string(data), true, nil
	}
	raw, present, verr := validate.DecodeBody(data)
	if verr != nil {
		return nil, false, verr
	}
	return raw, present, nil
}

// isJSON reports whether a Content-Type names JSON: application/json or application/*+json.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && (sub == "json" || strings.HasSuffix(sub, "+json"))
}

package datasets

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// A page of dataset content is built row by row, each row encoded as it comes, so that the
// page stops short of its limit when its body would pass maxPageBytes (Lambda answers at
// most 6 MB). Row authors are resolved per chunk of rows, with one batch read for the users
// a chunk adds.

const (
	maxPageBytes = 5 << 20
	// rowChunk rows are read before their users are resolved and they are encoded.
	rowChunk = 1000
	// warningCut is the warning_message of a page cut by size.
	warningCut = "This page holds fewer rows than the limit because a response is at most 5 MiB; continue from next_starting_token."
)

// contentResponse is the dataset content of §2.6.
type contentResponse struct {
	StartingToken     int               `json:"starting_token"`
	Limit             int               `json:"limit"`
	Paginated         bool              `json:"paginated"`
	NextStartingToken *int              `json:"next_starting_token"`
	ColumnNames       []string          `json:"column_names"`
	WarningMessage    *string           `json:"warning_message"`
	Rows              []json.RawMessage `json:"rows"`
}

type rowResponse struct {
	RowID      string      `json:"row_id"`
	Index      int64       `json:"index"`
	Values     []any       `json:"values"`
	ValuesDict valuesDict  `json:"values_dict"`
	Metadata   rowMetadata `json:"metadata"`
}

type rowMetadata struct {
	CreatedInVersion int64     `json:"created_in_version"`
	CreatedAt        time.Time `json:"created_at"`
	CreatedByUser    *userInfo `json:"created_by_user"`
	UpdatedInVersion int64     `json:"updated_in_version"`
	UpdatedAt        time.Time `json:"updated_at"`
	UpdatedByUser    *userInfo `json:"updated_by_user"`

	createdBy, updatedBy string // the users' ids (the page cache's authors)
}

// valuesDict maps column names to values in column order (encoding/json would sort a map's
// keys; the original service keeps the columns' order).
type valuesDict struct {
	names  []string
	values []any
}

func (d valuesDict) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range d.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := encode(name)
		if err != nil {
			return nil, err
		}
		v, err := encode(d.values[i])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encode writes v as JSON the way responses are written: no HTML escaping.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// rowPage collects the rows of one page.
type rowPage struct {
	d            store.Dataset
	start, limit int
	budget       int     // bytes left for rows
	buf          *[]byte // the rows encoded, comma-separated (pooled: release)
	n            int     // rows in buf
	cut          bool
	users        map[string]*userInfo // nil: no such user (any more)
	lastID       string               // user's last id looked up, and its user (nil: not looked up)
	lastUser     *userInfo

	// Scratch of the encoder (page_encode.go): the value spans of the row being written,
	// each user's JSON, the last times written.
	spans    [][2]int
	slots    []authorSlot // where each author's JSON is in buf
	userJSON map[*userInfo][]byte
	times    [2]encodedTime
	nextTime int
}

type authorSlot struct {
	from, to int
	id       string
}

type encodedTime struct {
	t    time.Time
	json []byte
}

func newRowPage(d store.Dataset, start, limit, maxBytes int) *rowPage {
	p := &rowPage{d: d, start: start, limit: limit, users: map[string]*userInfo{}, buf: getBuf()}
	// The envelope at its largest: a cut page's warning and next token.
	envelope := p.envelope()
	warning, next := warningCut, start
	envelope.WarningMessage, envelope.NextStartingToken = &warning, &next
	b := getBuf()
	*b = appendEnvelope(*b, envelope, nil)
	p.budget = maxBytes - len(*b)
	putBuf(b)
	return p
}

// add encodes rows into the page until one would not fit; full reports that the page is
// complete and the caller should read no further.
func (p *rowPage) add(ctx context.Context, t store.Table, rows []store.DatasetRow) (full bool, err error) {
	if p.cut || len(rows) == 0 {
		return p.cut, nil
	}
	if err := p.resolveUsers(ctx, t, rows); err != nil {
		return false, err
	}
	for _, row := range rows {
		// The row is encoded in place; one that does not fit is cut off again.
		b := *p.buf
		at := len(b)
		if p.n > 0 {
			b = append(b, ',')
		}
		b, err := p.appendRow(b, p.rowResponse(row))
		if err != nil {
			return false, err
		}
		size := len(b) - at
		if p.n == 0 {
			size++ // as if followed by a comma, as the bound counted it
		}
		if size > p.budget && p.n > 0 {
			*p.buf = b[:at]
			p.cut = true
			return true, nil
		}
		p.budget -= size
		*p.buf = b
		p.n++
	}
	return false, nil
}

func (p *rowPage) rowResponse(r store.DatasetRow) rowResponse {
	values := r.Values
	if len(values) != len(p.d.ColumnNames) {
		values = make([]any, len(p.d.ColumnNames))
		copy(values, r.Values)
	}
	return rowResponse{RowID: r.RowID, Index: r.Index, Values: values,
		ValuesDict: valuesDict{names: p.d.ColumnNames, values: values},
		Metadata: rowMetadata{
			CreatedInVersion: r.CreatedInVersion, CreatedAt: r.CreatedAt, CreatedByUser: p.user(r.CreatedBy),
			UpdatedInVersion: r.UpdatedInVersion, UpdatedAt: r.UpdatedAt, UpdatedByUser: p.user(r.UpdatedBy),
			createdBy: r.CreatedBy, updatedBy: r.UpdatedBy,
		}}
}

// user is the resolved user of id, the last one found kept at hand (a page's rows mostly
// share one author: two map reads a row were a tenth of a page's CPU).
func (p *rowPage) user(id string) *userInfo {
	if p.lastID == id && p.lastUser != nil {
		return p.lastUser
	}
	u := p.users[id]
	p.lastID, p.lastUser = id, u
	return u
}

// resolveUsers reads the users of rows the page has not met yet.
func (p *rowPage) resolveUsers(ctx context.Context, t store.Table, rows []store.DatasetRow) error {
	var ids []string
	last := "\x00" // no user id: the rows of a batch share their author, so most ids repeat the last
	for _, r := range rows {
		for _, id := range [2]string{r.CreatedBy, r.UpdatedBy} {
			if id != last {
				last = id
				ids = append(ids, id)
			}
		}
	}
	return p.resolve(ctx, t, ids)
}

// resolve reads the users of ids the page has not met yet (one batch read).
func (p *rowPage) resolve(ctx context.Context, t store.Table, ids []string) error {
	var missing []string
	for _, id := range ids {
		if _, known := p.users[id]; !known {
			p.users[id] = nil
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	users, err := store.OrgUsers(ctx, t, p.d.OrgID, missing)
	if err != nil {
		return err
	}
	for _, u := range users {
		p.users[u.ID] = userInfoOf(u)
	}
	return nil
}

// envelope is the page's body without its rows: next_starting_token follows the last row
// returned while the dataset has more.
func (p *rowPage) envelope() contentResponse {
	resp := contentResponse{StartingToken: p.start, Limit: p.limit, ColumnNames: p.d.ColumnNames, Rows: []json.RawMessage{}}
	if resp.ColumnNames == nil {
		resp.ColumnNames = []string{}
	}
	if end := p.start + p.n; int64(end) < p.d.RowCount {
		resp.NextStartingToken, resp.Paginated = &end, true
	}
	if p.cut {
		w := warningCut
		resp.WarningMessage = &w
	}
	return resp
}

// body writes the page's JSON (the envelope as encoding/json writes contentResponse, the rows
// as encoded) into out.
func (p *rowPage) body(out []byte) []byte { return appendEnvelope(out, p.envelope(), *p.buf) }

// appendEnvelope appends e as encoding/json writes it, with rows (encoded, comma-separated)
// for its rows.
func appendEnvelope(out []byte, e contentResponse, rows []byte) []byte {
	out = append(out, `{"starting_token":`...)
	out = strconv.AppendInt(out, int64(e.StartingToken), 10)
	out = append(out, `,"limit":`...)
	out = strconv.AppendInt(out, int64(e.Limit), 10)
	out = append(out, `,"paginated":`...)
	out = strconv.AppendBool(out, e.Paginated)
	out = append(out, `,"next_starting_token":`...)
	if e.NextStartingToken == nil {
		out = append(out, "null"...)
	} else {
		out = strconv.AppendInt(out, int64(*e.NextStartingToken), 10)
	}
	out = append(out, `,"column_names":[`...)
	for i, c := range e.ColumnNames {
		if i > 0 {
			out = append(out, ',')
		}
		out = store.AppendJSONString(out, c)
	}
	out = append(out, `],"warning_message":`...)
	if e.WarningMessage == nil {
		out = append(out, "null"...)
	} else {
		out = store.AppendJSONString(out, *e.WarningMessage)
	}
	out = append(out, `,"rows":[`...)
	out = append(out, rows...)
	return append(out, "]}"...)
}

// write answers the page; its buffers go back to the pool.
func (p *rowPage) write(w http.ResponseWriter) {
	out := getBuf()
	defer putBuf(out)
	*out = p.body(*out)
	p.release()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(*out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(*out)
}

// release returns the rows' buffer to the pool (the page is done).
func (p *rowPage) release() {
	if p.buf != nil {
		putBuf(p.buf)
		p.buf = nil
	}
}

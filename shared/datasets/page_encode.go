package datasets

import (
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// The rows of a content page are encoded once, by hand, into one buffer: the bytes measured
// against the page's size bound are the bytes of the response (no second encoding, no
// compaction of raw JSON by encoding/json). The output is byte for byte what encoding/json
// writes with SetEscapeHTML(false) (TestRowEncodingMatchesEncodingJSON).

// bufPool holds the page buffers (a page is up to 5 MiB; most are tens of KB).
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) > 8<<20 {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

// appendRow appends the row as rowResponse encodes it. Each value is encoded once: when
// r.ValuesDict holds r.Values (as rowResponse builds it), the bytes written for "values" are
// copied into "values_dict".
func (p *rowPage) appendRow(b []byte, r rowResponse) ([]byte, error) {
	b = append(b, `{"row_id":`...)
	b = store.AppendJSONString(b, r.RowID)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, r.Index, 10)
	b = append(b, `,"values":[`...)
	spans := p.spans[:0]
	var err error
	for i, v := range r.Values {
		if i > 0 {
			b = append(b, ',')
		}
		at := len(b)
		if b, err = appendValue(b, v); err != nil {
			return nil, err
		}
		spans = append(spans, [2]int{at, len(b)})
	}
	p.spans = spans
	dict := r.ValuesDict.values
	shared := len(dict) == len(r.Values) && len(dict) > 0 && &dict[0] == &r.Values[0]
	b = append(b, `],"values_dict":{`...)
	for i, name := range r.ValuesDict.names {
		if i > 0 {
			b = append(b, ',')
		}
		b = store.AppendJSONString(b, name)
		b = append(b, ':')
		if shared {
			b = append(b, b[spans[i][0]:spans[i][1]]...)
			continue
		}
		if b, err = appendValue(b, dict[i]); err != nil {
			return nil, err
		}
	}
	m := r.Metadata
	b = append(b, `},"metadata":{"created_in_version":`...)
	b = strconv.AppendInt(b, m.CreatedInVersion, 10)
	b = append(b, `,"created_at":`...)
	if b, err = p.appendTime(b, m.CreatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"created_by_user":`...)
	b = p.appendUser(b, m.createdBy, m.CreatedByUser)
	b = append(b, `,"updated_in_version":`...)
	b = strconv.AppendInt(b, m.UpdatedInVersion, 10)
	b = append(b, `,"updated_at":`...)
	if b, err = p.appendTime(b, m.UpdatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"updated_by_user":`...)
	b = p.appendUser(b, m.updatedBy, m.UpdatedByUser)
	return append(b, `}}`...), nil
}

// appendUser appends u as userInfo encodes it, and notes where the author id's JSON is (the
// page cache keeps the rows without it).
func (p *rowPage) appendUser(b []byte, id string, u *userInfo) []byte {
	at := len(b)
	b = append(b, p.userBytes(u)...)
	p.slots = append(p.slots, authorSlot{from: at, to: len(b), id: id})
	return b
}

// userBytes is u as userInfo encodes it; each user of the page is encoded once.
func (p *rowPage) userBytes(u *userInfo) []byte {
	if u == nil {
		return null
	}
	if e, ok := p.userJSON[u]; ok {
		return e
	}
	b := append([]byte(nil), `{"id":`...)
	b = store.AppendJSONString(b, u.ID)
	b = append(b, `,"email":`...)
	b = store.AppendJSONString(b, u.Email)
	b = append(b, `,"first_name":`...)
	b = store.AppendJSONString(b, u.FirstName)
	b = append(b, `,"last_name":`...)
	b = store.AppendJSONString(b, u.LastName)
	b = append(b, '}')
	if p.userJSON == nil {
		p.userJSON = map[*userInfo][]byte{}
	}
	p.userJSON[u] = b
	return b
}

var null = []byte("null")

// appendTime appends t as encoding/json does. The rows of a page mostly share their times
// (a batch of rows is stamped once): the last two are kept encoded. Equal Time values
// (same instant, same location) encode to the same bytes.
func (p *rowPage) appendTime(b []byte, t time.Time) ([]byte, error) {
	for i := range p.times {
		if c := &p.times[i]; c.json != nil && c.t == t {
			return append(b, c.json...), nil
		}
	}
	at := len(b)
	b, err := appendTime(b, t)
	if err != nil {
		return nil, err
	}
	c := &p.times[p.nextTime]
	c.t, c.json = t, append(c.json[:0], b[at:]...)
	p.nextTime = (p.nextTime + 1) % len(p.times)
	return b, nil
}

// appendValue appends a dataset value (a string, a number, an object of them, null);
// anything else goes through encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return store.AppendJSONString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		return appendFloat(b, x)
	case bool:
		return strconv.AppendBool(b, x), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		var err error
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = store.AppendJSONString(b, k)
			b = append(b, ':')
			if b, err = appendValue(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	e, err := encode(v)
	if err != nil {
		return nil, err
	}
	return append(b, e...), nil
}

// appendFloat writes f as encoding/json does (ES6 number formatting).
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := encode(f) // encoding/json's error
		return nil, err
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

func appendTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y >= 10000 {
		e, err := encode(t) // encoding/json's error
		return append(b, e...), err
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

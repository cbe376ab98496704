package datasets

import (
	"context"
	"strconv"

	"github.com/evalobs/evalapi/shared/bounded"
	"github.com/evalobs/evalapi/shared/store"
)

// A page's rows are a function of the segments the page spans (never rewritten: an edit
// writes new segments), where it starts in them, and the columns' names and slots; only the
// rows' authors (users, whose names and emails change) are not. PageCache keeps the rows of
// pages served, encoded, with their authors cut out: a page read again is its cached bytes
// with the authors' current JSON put back, after the same reads as ever (grant, META,
// users), so it answers exactly what encoding it afresh would, for a fraction of the CPU
// (encoding was over half of a 100-row page's). A full cache starts over, as the segment
// cache does; a nil *PageCache caches nothing.
type PageCache struct {
	c *bounded.Cache[*pageTemplate]
}

// DefaultPageCacheBytes bounds a function instance's page cache.
const DefaultPageCacheBytes = 16 << 20

// maxCachedPage is the largest page kept: a handful of pages at the 5 MiB bound would
// push out every common one.
const maxCachedPage = 1 << 20

// NewPageCache returns an empty cache of at most maxBytes of encoded rows.
func NewPageCache(maxBytes int) *PageCache {
	return &PageCache{c: bounded.New[*pageTemplate](maxBytes)}
}

// pageTemplate is a page's rows as encoded, without the authors' JSON: the JSON of user
// users[authors[i]] goes at rows[at[i]].
type pageTemplate struct {
	rows    []byte
	at      []int
	authors []int
	users   []string // user ids
	n       int      // rows
}

// pageKey names what a page of st from start (limit rows) is made of: the columns, and the
// manifest entries it spans with the index of the first one's first row. Each field is
// written with its length, so that no column name can pass for another key's fields.
func pageKey(st store.ContentState, start, limit int) string {
	b := make([]byte, 0, 256)
	str := func(s string) {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	num := func(n int64) {
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ';')
	}
	str(st.DatasetID)
	num(int64(len(st.Columns)))
	for _, c := range st.Columns {
		str(c.Name)
		num(c.Slot)
	}
	num(int64(start))
	num(int64(limit))
	at, end := int64(0), int64(start)+int64(limit)
	for _, e := range st.Manifest {
		if at+e.N > int64(start) && at < end {
			num(at)
			str(e.Slot)
			str(e.Seg)
			num(e.N)
		}
		at += e.N
		if at >= end {
			break
		}
	}
	return string(b)
}

func (c *PageCache) get(key string) *pageTemplate {
	if c == nil {
		return nil
	}
	t, _ := c.c.Get(key)
	return t
}

func (c *PageCache) put(key string, t *pageTemplate) {
	if c == nil {
		return
	}
	size := len(t.rows) + 16*len(t.at) + len(key)
	for _, id := range t.users {
		size += len(id)
	}
	c.c.Put(key, t, size)
}

// template is the page's rows without their authors, for the cache; nil when the page is
// not one to keep (cut by size, or large).
func (p *rowPage) template() *pageTemplate {
	b := *p.buf
	if p.cut || len(b) > maxCachedPage {
		return nil
	}
	t := &pageTemplate{n: p.n, at: make([]int, len(p.slots)), authors: make([]int, len(p.slots))}
	rows := make([]byte, 0, len(b))
	from := 0
	index := map[string]int{}
	for i, s := range p.slots {
		rows = append(rows, b[from:s.from]...)
		u, ok := index[s.id]
		if !ok {
			u = len(t.users)
			index[s.id] = u
			t.users = append(t.users, s.id)
		}
		t.at[i], t.authors[i], from = len(rows), u, s.to
	}
	t.rows = append(rows, b[from:]...)
	return t
}

// fill makes the page the template's rows with their authors' JSON, resolving the users
// first; false (the page untouched but for its users) when, with the authors as they are
// now, the rows would pass the page's size bound, so that the page must be encoded afresh.
func (p *rowPage) fill(ctx context.Context, tbl store.Table, t *pageTemplate) (bool, error) {
	if err := p.resolve(ctx, tbl, t.users); err != nil {
		return false, err
	}
	users := make([][]byte, len(t.users))
	for i, id := range t.users {
		users[i] = p.userBytes(p.users[id])
	}
	size := len(t.rows) + 1 // the bound counts a comma after the first row, as add does
	for _, u := range t.authors {
		size += len(users[u])
	}
	if size > p.budget && t.n > 1 { // a first row is kept whatever its size, as add does
		return false, nil
	}
	b := (*p.buf)[:0]
	from := 0
	for i, at := range t.at {
		b = append(b, t.rows[from:at]...)
		b = append(b, users[t.authors[i]]...)
		from = at
	}
	*p.buf = append(b, t.rows[from:]...)
	p.n, p.budget = t.n, p.budget-size
	return true, nil
}

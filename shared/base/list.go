package base

import "github.com/evalobs/evalapi/shared/collection"

// List is what a list operation asks: a page (the query's starting_token and limit), and
// the filters and sort of an optional JSON body.
type List struct {
	Start, Limit int
	Filters      []collection.Filter
	Sort         collection.Sort
}

// ReadList reads a List: the page, then, when a body was sent, its filters (of the specs
// filters) and sort (of sorts, else sort).
func ReadList(filters []collection.FilterSpec, sorts []collection.SortSpec, sort collection.Sort) func(*Input) List {
	return func(in *Input) List {
		l := List{Sort: sort}
		l.Start, l.Limit = in.Page()
		if in.Present && in.Raw != nil {
			if o, ok := in.Body().Object(); ok {
				l.Filters = collection.ReadFilters(o.Get("filters"), filters)
				l.Sort = collection.ReadSort(o.Get("sort"), sorts, sort)
			}
		}
		return l
	}
}

package traces

import (
	"github.com/evalobs/evalapi/shared/validate"
)

// A record search's filter_tree (the client's FilterExpression): a leaf {"filter": F}, or
// {"and": [...]}, {"or": [...]}, {"not": node}. It is ANDed with the flat filters list.

// Bounds of a filter tree, so that a query's evaluation cost stays proportional to its rows.
const (
	maxTreeDepth  = 16
	maxTreeLeaves = 100
)

// filterNode is one node of a filter tree: exactly one of its fields is set.
type filterNode struct {
	leaf *filter
	and  []*filterNode
	or   []*filterNode
	not  *filterNode
}

// matches evaluates the node on a record.
func (n *filterNode) matches(r fields) bool {
	switch {
	case n.leaf != nil:
		return n.leaf.matches(r)
	case n.not != nil:
		return !n.not.matches(r)
	case n.or != nil:
		for _, c := range n.or {
			if c.matches(r) {
				return true
			}
		}
		return false
	}
	for _, c := range n.and {
		if !c.matches(r) {
			return false
		}
	}
	return true
}

// leaves calls fn with every filter of the tree.
func (n *filterNode) leaves(fn func(*filter)) {
	switch {
	case n == nil:
	case n.leaf != nil:
		fn(n.leaf)
	case n.not != nil:
		n.not.leaves(fn)
	default:
		for _, c := range append(n.and, n.or...) {
			c.leaves(fn)
		}
	}
}

// nodeKeys are the keys of a filter node, one of which it holds.
var nodeKeys = []string{"filter", "and", "or", "not"}

// readFilterTree reads a filter_tree value; leaves counts the filters read so far.
func readFilterTree(v validate.Value, depth int, leaves *int) (*filterNode, bool) {
	o, ok := v.Object()
	if !ok {
		return nil, false
	}
	if depth > maxTreeDepth {
		v.Add(validate.ValueError(v.Loc(), v.Raw(), "the filter tree is nested deeper than 16 levels"))
		return nil, false
	}
	var key string
	for _, k := range nodeKeys {
		if o.Has(k) {
			if key != "" {
				v.Add(validate.ValueError(v.Loc(), v.Raw(), "a filter node holds exactly one of filter, and, or and not"))
				return nil, false
			}
			key = k
		}
	}
	n := &filterNode{}
	switch key {
	case "":
		v.Add(validate.ValueError(v.Loc(), v.Raw(), "a filter node holds exactly one of filter, and, or and not"))
		return nil, false
	case "filter":
		if *leaves++; *leaves > maxTreeLeaves {
			v.Add(validate.ValueError(v.Loc(), v.Raw(), "the filter tree holds more than 100 filters"))
			return nil, false
		}
		f, ok := readFilter(o.Get("filter").Required())
		n.leaf = f
		return n, ok
	case "not":
		c, ok := readFilterTree(o.Get("not").Required(), depth+1, leaves)
		n.not = c
		return n, ok
	}
	items, ok := o.Get(key).Required().List(validate.MinLen(1))
	if !ok {
		return nil, false
	}
	all := true
	kids := make([]*filterNode, 0, len(items))
	for _, it := range items {
		c, ok := readFilterTree(it, depth+1, leaves)
		all = all && ok
		kids = append(kids, c)
	}
	if key == "and" {
		n.and = kids
	} else {
		n.or = kids
	}
	return n, all
}

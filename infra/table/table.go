// Package table is the one definition of the service's DynamoDB table: its keys, indexes,
// TTL attribute and stream. The SAM template, the local host and the tests all take the
// table's shape from here; a test fails when template.yaml disagrees.
package table

import (
	"github.com/evalobs/evalapi/shared/store"
)

// Index is one global secondary index (projection ALL, string keys).
type Index struct {
	Name         string
	PartitionKey string
	SortKey      string
}

// Definition is the table's shape.
type Definition struct {
	PartitionKey string
	SortKey      string
	Indexes      []Index
	TTLAttribute string
	StreamView   string // DynamoDB StreamViewType
}

// Table is the service's table.
var Table = Definition{
	PartitionKey: store.AttrPK,
	SortKey:      store.AttrSK,
	Indexes: []Index{
		{Name: store.IndexGSI1, PartitionKey: store.AttrGSI1PK, SortKey: store.AttrGSI1SK},
		{Name: store.IndexGSI2, PartitionKey: store.AttrGSI2PK, SortKey: store.AttrGSI2SK},
	},
	TTLAttribute: store.AttrExpiresAt,
	StreamView:   "NEW_AND_OLD_IMAGES",
}

// KeyAttributes lists every attribute that is a key of the table or of an index.
func (d Definition) KeyAttributes() []string {
	out := []string{d.PartitionKey, d.SortKey}
	for _, ix := range d.Indexes {
		out = append(out, ix.PartitionKey, ix.SortKey)
	}
	return out
}

// IndexByName returns the index of that name.
func (d Definition) IndexByName(name string) (Index, bool) {
	for _, ix := range d.Indexes {
		if ix.Name == name {
			return ix, true
		}
	}
	return Index{}, false
}

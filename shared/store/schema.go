package store

// The one definition of the service's DynamoDB table: its keys, indexes, TTL attribute and
// stream. It lives with the runtime (the adapters create and check the table from it); the
// SAM template, the local host and the tests take the table's shape from here, and a test
// fails when template.yaml disagrees.

// IndexDef is one global secondary index (projection ALL, string keys).
type IndexDef struct {
	Name         string
	PartitionKey string
	SortKey      string
}

// Schema is the table's shape.
type Schema struct {
	PartitionKey string
	SortKey      string
	Indexes      []IndexDef
	TTLAttribute string
	StreamView   string // DynamoDB StreamViewType
}

// TableSchema is the service's table.
var TableSchema = Schema{
	PartitionKey: AttrPK,
	SortKey:      AttrSK,
	Indexes: []IndexDef{
		{Name: IndexGSI1, PartitionKey: AttrGSI1PK, SortKey: AttrGSI1SK},
		{Name: IndexGSI2, PartitionKey: AttrGSI2PK, SortKey: AttrGSI2SK},
	},
	TTLAttribute: AttrExpiresAt,
	StreamView:   "NEW_AND_OLD_IMAGES",
}

// KeyAttributes lists every attribute that is a key of the table or of an index.
func (d Schema) KeyAttributes() []string {
	out := []string{d.PartitionKey, d.SortKey}
	for _, ix := range d.Indexes {
		out = append(out, ix.PartitionKey, ix.SortKey)
	}
	return out
}

// IndexByName returns the index of that name.
func (d Schema) IndexByName(name string) (IndexDef, bool) {
	for _, ix := range d.Indexes {
		if ix.Name == name {
			return ix, true
		}
	}
	return IndexDef{}, false
}

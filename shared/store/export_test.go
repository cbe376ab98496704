package store

// For the external tests (stored_test.go): the record types and random items of the codec's
// equivalence tests.
var (
	CodecRecordTypes = codecRecordTypes
	RandomItem       = randomItem
)

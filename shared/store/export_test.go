package store

// For the external tests (stored_test.go): the record types and random items of the codec's
// equivalence tests.
var (
	CodecRecordTypes = codecRecordTypes
	RandomItem       = randomItem
)

// For the large-dataset tests (datasets_rope_test.go): the bounds of a segment and of an
// inline manifest, so that the tests cross them with as few rows as they can.
const (
	SegmentBytes       = segmentBytes
	SegmentRowOverhead = segmentRowOverhead
	InlineManifest     = inlineManifest
)

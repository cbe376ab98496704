package embedded

// SetRangeChunkVisits sets the visits a range's transaction makes at most, until the
// returned function restores it.
func SetRangeChunkVisits(n int) (restore func()) {
	old := rangeChunkVisits
	rangeChunkVisits = n
	return func() { rangeChunkVisits = old }
}

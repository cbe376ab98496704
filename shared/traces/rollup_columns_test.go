package traces

import (
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// A deleted run's purge (store.PurgeRun) removes the roll-up partition of every group
// column ingestion writes: a column added here must be added to store.RollupGroupColumns.
func TestRollupColumnsArePurged(t *testing.T) {
	for _, c := range append([]string{store.RollupAll}, records.RollupColumns...) {
		if !slices.Contains(store.RollupGroupColumns, c) {
			t.Errorf("roll-ups by %q are not in store.RollupGroupColumns, so a deleted run's purge would leave them", c)
		}
	}
}

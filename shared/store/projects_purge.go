package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// What deleted projects and runs leave behind, removed by the stream consumer (shared/purge)
// when the table's stream reports the deletion. Like PurgeDataset, each refuses while the
// record it purges for exists, and running it again is harmless.

// DeletedProjectID recognizes the last image of a deleted project's META.
func DeletedProjectID(old Item) (string, bool) {
	k := old.Key()
	id, ok := strings.CutPrefix(k.PK, "PROJECT#")
	if !ok || k.SK != meta || old[AttrEntity] != EntityProject || id == "" {
		return "", false
	}
	return id, true
}

// DeletedRunID recognizes the last image of a deleted log stream or experiment and returns
// its project and run ids.
func DeletedRunID(old Item) (projectID, runID string, ok bool) {
	k := old.Key()
	projectID, ok = strings.CutPrefix(k.PK, "PROJECT#")
	if !ok {
		return "", "", false
	}
	switch old[AttrEntity] {
	case EntityLogStream:
		runID, ok = strings.CutPrefix(k.SK, "LOGSTREAM#")
	case EntityExperiment:
		runID, ok = strings.CutPrefix(k.SK, "EXPERIMENT#")
	default:
		return "", "", false
	}
	return projectID, runID, ok && runID != "" && projectID != ""
}

// PurgeProject removes every item left in a deleted project's partition (log streams,
// experiments, their name claims, signals configurations) and returns how many it removed.
// The removal of each run is itself a stream record, whose purge removes the run's traces.
func PurgeProject(ctx context.Context, t Table, id string) (int, error) {
	if _, err := t.Get(ctx, projectKey(id), true); !errors.Is(err, ErrNotFound) {
		if err == nil {
			return 0, fmt.Errorf("purge project %s: %w: the project exists", id, ErrInvalid)
		}
		return 0, fmt.Errorf("purge project %s: %w", id, err)
	}
	return purgePartition(ctx, t, projectKey(id).PK)
}

// RollupGroupColumns are the group columns ingestion keeps roll-ups by (shared/traces
// holds its list to this one), so that a run's purge finds each of its roll-up partitions.
var RollupGroupColumns = []string{RollupAll, "model", "provider", "name", "type", "status_code", "tags"}

// PurgeRun removes every item of a deleted run: its partition (RUN#<id>: traces, the run
// summary, the column summary) and its roll-up partitions of both levels, and returns how
// many it removed.
func PurgeRun(ctx context.Context, t Table, projectID, runID string) (int, error) {
	for _, k := range []Key{logStreamKey(projectID, runID), ExperimentKey(projectID, runID)} {
		if _, err := t.Get(ctx, k, true); !errors.Is(err, ErrNotFound) {
			if err == nil {
				return 0, fmt.Errorf("purge run %s: %w: the run exists", runID, ErrInvalid)
			}
			return 0, fmt.Errorf("purge run %s: %w", runID, err)
		}
	}
	n, err := purgePartition(ctx, t, "RUN#"+runID)
	for _, level := range []RollupLevel{RollupMinute, RollupHour} {
		for _, col := range RollupGroupColumns {
			if err != nil {
				return n, err
			}
			var m int
			m, err = purgePartition(ctx, t, RollupPartition(runID, level, col))
			n += m
		}
	}
	return n, err
}

// purgePartition deletes every item of partition pk, a page at a time.
func purgePartition(ctx context.Context, t Table, pk string) (int, error) {
	q := Query{PK: pk, Limit: purgePage, Consistent: true}
	n := 0
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return n, fmt.Errorf("purge %s: %w", pk, err)
		}
		keys := make([]Key, len(p.Items))
		for i, it := range p.Items {
			keys[i] = it.Key()
		}
		if err := datasetDeleteAll(ctx, t, keys); err != nil {
			return n, fmt.Errorf("purge %s: %w", pk, err)
		}
		n += len(keys)
		if p.Next == nil {
			return n, nil
		}
		q.Start = p.Next
	}
}

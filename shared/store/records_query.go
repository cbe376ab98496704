package store

import (
	"context"
	"fmt"
	"time"
)

// RecordsQuery is the query of a run's records of one entity (EntityTrace, EntitySpan or
// EntityLogSession) created in [from, to), oldest first or (desc) newest first: traces and
// sessions are a sort-key range of the run's partition, spans one of the run's GSI2
// partition (every depth). When after is the item of a record of the same query, the query
// resumes past it: a keyset continuation that reads nothing before the record. A
// descending query may still answer after itself first; callers skip it (AfterSelf).
func RecordsQuery(entity, runID string, from, to time.Time, desc bool, after Item) Query {
	lo, hi := from.UTC().Format(recordTimeLayout), to.UTC().Format(recordTimeLayout)
	var q Query
	switch entity {
	case EntitySpan:
		q = Query{Index: IndexGSI2, PK: runSpansPartition(runID), SKOp: SKBetween, From: lo, To: hi}
	case EntityLogSession:
		q = Query{PK: "RUN#" + runID, SKOp: SKBetween, From: "SESS#" + lo, To: "SESS#" + hi}
	default:
		q = Query{PK: "RUN#" + runID, SKOp: SKBetween, From: "TRACE#" + lo, To: "TRACE#" + hi}
	}
	q.Descending = desc
	if pos := RecordPosition(entity, after); pos != "" {
		if desc {
			q.To = min(q.To, pos)
		} else {
			// The smallest sort key past pos: the record itself is left out.
			q.From = max(q.From, pos+"\x00")
		}
	}
	return q
}

// RecordPosition is the sort key of a record's item in its RecordsQuery ("" for nil).
func RecordPosition(entity string, it Item) string {
	if it == nil {
		return ""
	}
	attr := AttrSK
	if entity == EntitySpan {
		attr = AttrGSI2SK
	}
	s, _ := it[attr].(string)
	return s
}

// CountSessionTraces counts the traces of a session (one query of GSI2, page by page).
func CountSessionTraces(ctx context.Context, t Table, sessionID string) (int64, error) {
	q := Query{Index: IndexGSI2, PK: sessionTracesPartition(sessionID)}
	var n int64
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return 0, fmt.Errorf("count traces of session %s: %w", sessionID, err)
		}
		n += int64(len(p.Items))
		if p.Next == nil {
			return n, nil
		}
		q.Start = p.Next
	}
}

// SessionTracesQuery is the query of a session's traces, oldest first (GSI2).
func SessionTracesQuery(sessionID string) Query {
	return Query{Index: IndexGSI2, PK: sessionTracesPartition(sessionID)}
}

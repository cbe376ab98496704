package store

// Actions of the transaction that stores a chunk of traces together with everything they
// add (shared/traces, Ingest): a trace is stored if and only if it is counted.

// RecordClaimKey is the claim of a record id (a trace's or a session's) in its run: a record
// is stored once per id, whatever time a retried request gives it.
func RecordClaimKey(runID, id string) Key { return Key{PK: "RECID#" + runID + "#" + id, SK: meta} }

// TracePutOps create a trace and the claim of its id; the transaction fails
// (ConditionalCheckFailed on one of these actions) when the trace is stored already.
func TracePutOps(tr Trace) ([]Op, error) {
	it, err := TraceItem(tr)
	if err != nil {
		return nil, err
	}
	return []Op{PutOp(it, NotExists()), PutOp(TraceClaim(tr.RunID, tr.ID, it.Key().SK), NotExists())}, nil
}

// TraceClaim is the claim item of a trace id: it names the trace's sort key, so the trace
// is read by key (strongly consistently) from its id.
func TraceClaim(runID, id, sk string) Item {
	k := RecordClaimKey(runID, id)
	return Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: "record_claim", "run_id": runID, "record_sk": sk}
}

// SessionClaimOp records the session in the run; the transaction fails on this action when
// the session was recorded before (it is then not new to the run).
func SessionClaimOp(runID, sessionID string) Op {
	k := SessionKey(runID, sessionID)
	return PutOp(Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: "run_session", "run_id": runID}, NotExists())
}

// ColumnsFilledUpdate is MarkColumnsFilled as an update (idempotent, no condition).
func ColumnsFilledUpdate(runID string, columnIDs []string) Update {
	set := map[string]any{AttrEntity: EntityColumnSummary, "run_id": runID}
	for _, id := range columnIDs {
		set[filledPrefix+id] = true
	}
	return Update{Key: columnSummaryKey(runID), Set: set}
}

// UpdateSize is about the bytes an update adds to a transaction request.
func UpdateSize(u Update) int {
	n := len(u.Key.PK) + len(u.Key.SK) + ItemSize(Item(u.Set))
	for name := range u.Add {
		n += len(name) + 21 // an int64 as a decimal string
	}
	for _, c := range u.Conds {
		n += len(c.Attr) + 21
	}
	return n
}

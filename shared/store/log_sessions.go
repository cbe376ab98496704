package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// LogSession is a session of a run: a conversation or user session that groups traces
// (the logging client's sessions; not a login session, see sessions.go).
type LogSession struct {
	ID                string            `json:"id"`
	RunID             string            `json:"run_id"`
	ProjectID         string            `json:"project_id"`
	OrgID             string            `json:"org_id"`
	Name              *string           `json:"name,omitempty"`
	ExternalID        *string           `json:"external_id,omitempty"`
	PreviousSessionID *string           `json:"previous_session_id,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         *time.Time        `json:"updated_at,omitempty"`
}

// LogSessionKey is the key of a session in its run's partition.
func LogSessionKey(runID string, createdAt time.Time, id string) Key {
	return Key{PK: "RUN#" + runID, SK: "SESS#" + createdAt.UTC().Format(recordTimeLayout) + "#" + id}
}

// LogSessionRange is the query of the sessions of a run created in [from, to).
func LogSessionRange(runID string, from, to time.Time) Query {
	return Query{PK: "RUN#" + runID, SKOp: SKBetween,
		From: "SESS#" + from.UTC().Format(recordTimeLayout), To: "SESS#" + to.UTC().Format(recordTimeLayout)}
}

func sessionExternalPartition(runID, externalID string) string {
	return "SESSEXT#" + runID + "#" + externalID
}

// LogSessionItem is the item of a session.
func LogSessionItem(s LogSession) (Item, error) {
	doc, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.ID, err)
	}
	k := LogSessionKey(s.RunID, s.CreatedAt, s.ID)
	it := Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityLogSession, "org_id": s.OrgID, "run_id": s.RunID,
		"doc": string(doc), AttrGSI1PK: recordIndexKey(s.ID), AttrGSI1SK: EntityLogSession}
	if s.ExternalID != nil {
		it[AttrGSI2PK], it[AttrGSI2SK] = sessionExternalPartition(s.RunID, *s.ExternalID), s.ID
	}
	return it, nil
}

// DecodeLogSession reads a session item.
func DecodeLogSession(it Item, into *LogSession) error {
	doc, _ := it["doc"].(string)
	*into = LogSession{}
	if err := json.Unmarshal([]byte(doc), into); err != nil {
		return fmt.Errorf("decode session %v: %w", it.Key(), err)
	}
	return nil
}

// LogSessionOps create a session: the run's claim of the session (what the run summary's
// session count counts), its record and the claim of its id. The transaction fails on one of
// them when the run has the session already (created by the client, or by traces that
// named it first).
func LogSessionOps(s LogSession) ([]Op, error) {
	it, err := LogSessionItem(s)
	if err != nil {
		return nil, err
	}
	ck, rk := RecordClaimKey(s.RunID, s.ID), SessionKey(s.RunID, s.ID)
	return []Op{
		PutOp(Item{AttrPK: rk.PK, AttrSK: rk.SK, AttrEntity: "run_session", "run_id": s.RunID}, NotExists()),
		PutOp(it, NotExists()),
		PutOp(Item{AttrPK: ck.PK, AttrSK: ck.SK, AttrEntity: "record_claim", "run_id": s.RunID, "record_sk": it.Key().SK}, NotExists()),
	}, nil
}

// PutLogSession stores a session and counts it in the run summary, unless the run has it;
// false when it did (a retried create: the session is there either way).
func PutLogSession(ctx context.Context, t Table, s LogSession) (bool, error) {
	ops, err := LogSessionOps(s)
	if err != nil {
		return false, err
	}
	ops = append(ops, UpdateOp(RunSummaryUpdate(s.RunID, RunSummary{RunID: s.RunID, NumSessions: 1}, s.CreatedAt)))
	err = t.Transact(ctx, ops)
	if errors.Is(err, ErrConditionFailed) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("put session %s: %w", s.ID, err)
	}
	return true, nil
}

// LogSessionByExternalID finds the session of a run with that external id (GSI2, eventually
// consistent); ErrNotFound when there is none.
func LogSessionByExternalID(ctx context.Context, t Table, runID, externalID string) (LogSession, error) {
	p, err := t.Query(ctx, Query{Index: IndexGSI2, PK: sessionExternalPartition(runID, externalID), Limit: 1})
	if err != nil {
		return LogSession{}, fmt.Errorf("session by external id: %w", err)
	}
	if len(p.Items) == 0 {
		return LogSession{}, fmt.Errorf("session by external id: %w", ErrNotFound)
	}
	var s LogSession
	return s, DecodeLogSession(p.Items[0], &s)
}

// DeleteLogSession deletes the session of item it and takes it off the run's count, in one
// transaction on the condition that the item is still there: a repeated delete counts once.
// Its claim (the id taken in the run) stays, so that a retried log of the session does not
// bring it back.
func DeleteLogSession(ctx context.Context, t Table, it Item, now time.Time) error {
	runID, _ := it["run_id"].(string)
	err := t.Transact(ctx, []Op{DeleteOp(it.Key(), Exists()),
		UpdateOp(RunSummaryUpdate(runID, RunSummary{RunID: runID, NumSessions: -1}, now))})
	if errors.Is(err, ErrConditionFailed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete session %v: %w", it.Key(), err)
	}
	return nil
}

package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Extremes repairs. A revision of a trace (shared/records) moves the counts and sums of its
// roll-ups in one transaction, but a min or max a removed value held can only be recomputed
// from the bucket's traces after it, and a failure in between would leave the extremes
// wider than the data. So the transaction also creates a repair marker naming the buckets
// (and the run summary's new extremes) the revision may have left inexact; whoever
// completes the repair deletes it: the revision itself right after its transaction, or the
// table's stream consumer, which sees the marker's creation.
//
//	record          PK            SK           notes
//	extremes repair RUN#<run id>  REPAIR#<id>  one per revision (id random); doc: the buckets, by
//	                                           level, minute, group column and value, with
//	                                           their metrics, and the summary's extremes
//
// The marker lives in its run's partition so that purging the run removes it too.

// EntityExtremesRepair names the repair markers.
const EntityExtremesRepair = "extremes_repair"

// ExtremesRepairKey is the key of repair id of a run.
func ExtremesRepairKey(runID, id string) Key {
	return Key{PK: "RUN#" + runID, SK: "REPAIR#" + id}
}

// ExtremesRepair is what one marker asks for: the min and max of Metrics in each of Buckets
// recomputed from the bucket's traces, and Summary's extremes set on the run summary where
// they improve it.
type ExtremesRepair struct {
	RunID     string
	ID        string
	OrgID     string
	Buckets   []RepairBucket
	Summary   []Extreme
	CreatedAt time.Time
}

// RepairBucket is one roll-up item whose extremes of Metrics are to be recomputed.
type RepairBucket struct {
	Level   RollupLevel `json:"level,omitempty"`
	Minute  time.Time   `json:"minute"`
	Group   string      `json:"group"`
	Value   string      `json:"value"`
	Metrics []string    `json:"metrics"`
}

// repairDoc is the marker's doc attribute.
type repairDoc struct {
	Buckets []RepairBucket  `json:"buckets,omitempty"`
	Summary []repairExtreme `json:"summary,omitempty"`
}

type repairExtreme struct {
	Attr  string `json:"attr"`
	Value string `json:"value"` // exact decimal text
	Min   bool   `json:"min,omitempty"`
}

// ExtremesRepairItem is the marker's item.
func ExtremesRepairItem(r ExtremesRepair) (Item, error) {
	d := repairDoc{Buckets: r.Buckets}
	for _, e := range r.Summary {
		d.Summary = append(d.Summary, repairExtreme{Attr: e.Attr, Value: e.Value.String(), Min: e.Min})
	}
	doc, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("extremes repair of run %s: %w", r.RunID, err)
	}
	k := ExtremesRepairKey(r.RunID, r.ID)
	return Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityExtremesRepair, "org_id": r.OrgID, "run_id": r.RunID,
		"repair_id": r.ID, "created_at": r.CreatedAt.UTC().Format(time.RFC3339Nano), "doc": string(doc)}, nil
}

// IsExtremesRepair reports whether it is a repair marker's item (an image of the stream).
func IsExtremesRepair(it Item) bool { return it[AttrEntity] == EntityExtremesRepair }

// ParseExtremesRepair reads a marker's item.
func ParseExtremesRepair(it Item) (ExtremesRepair, error) {
	r := ExtremesRepair{}
	r.RunID, _ = it["run_id"].(string)
	r.ID, _ = it["repair_id"].(string)
	r.OrgID, _ = it["org_id"].(string)
	if s, _ := it["created_at"].(string); s != "" {
		r.CreatedAt, _ = time.Parse(time.RFC3339Nano, s)
	}
	doc, _ := it["doc"].(string)
	var d repairDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil || r.RunID == "" {
		return r, fmt.Errorf("extremes repair %v: unreadable (%v)", it.Key(), err)
	}
	r.Buckets = d.Buckets
	for _, e := range d.Summary {
		v, err := fixed.Parse(e.Value)
		if err != nil {
			return r, fmt.Errorf("extremes repair %v: summary %s: %w", it.Key(), e.Attr, err)
		}
		r.Summary = append(r.Summary, Extreme{Attr: e.Attr, Value: v, Min: e.Min})
	}
	return r, nil
}

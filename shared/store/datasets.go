package store

import (
	"errors"
	"fmt"
	"time"
)

// Datasets, their rows and their collaborators. Everything of a dataset lives in the
// dataset's partition, so that deleting its META is the whole visible deletion and one
// Query of the partition finds everything the purge worker must remove.
//
//	record              PK             SK                               notes
//	dataset             DATASET#<id>   META                             org_id scopes every read; version and row_count are the committed content
//	row                 DATASET#<id>   ROW#<index, 10 digits>           shown only when index < row_count
//	row id              DATASET#<id>   ROWID#<row id>                   the row's index, for updates by row_id
//	user collaborator   DATASET#<id>   USER#<user id>                   role; the creator is the owner
//	group collaborator  DATASET#<id>   GROUP#<group id>                 role; looked up by group id for permissions
//	group listing entry DATASET#<id>   GROUPSHARE#<stamp>#<group id>    the same collaborator in sharing order (operation 7)
//
// Versions. The content version starts at 1 when a dataset is created; every append and
// every row update makes the next one. A writer of many rows first takes a short lease on
// META (a conditional write of lease_token), writes its rows under the new version number
// in batches, and then commits: one conditional update of META moves version and row_count.
// Readers show only rows with index < row_count, so rows of a write that failed or is still
// under way are never seen, and the next writer simply overwrites them. A dataset whose
// first version is not committed yet (version 0) does not exist for readers. Row updates
// are at most MaxDatasetRowEdits rows and commit in one transaction with META.

// Entity names of the dataset records.
const (
	EntityDataset             = "dataset"
	EntityDatasetRow          = "dataset_row"
	EntityDatasetRowID        = "dataset_row_id"
	EntityDatasetCollaborator = "dataset_collaborator"
)

// DatasetRole is a collaborator's role on a dataset.
type DatasetRole string

// Dataset roles, strongest first.
const (
	DatasetOwner     DatasetRole = "owner"
	DatasetEditor    DatasetRole = "editor"
	DatasetAnnotator DatasetRole = "annotator"
	DatasetViewer    DatasetRole = "viewer"
)

// DatasetRoles lists the role values in the specification's order. Read only.
var DatasetRoles = []string{string(DatasetOwner), string(DatasetEditor), string(DatasetAnnotator), string(DatasetViewer)}

// Rank orders roles: owner 4, editor 3, annotator 2, viewer 1, anything else 0.
func (r DatasetRole) Rank() int {
	switch r {
	case DatasetOwner:
		return 4
	case DatasetEditor:
		return 3
	case DatasetAnnotator:
		return 2
	case DatasetViewer:
		return 1
	}
	return 0
}

// Limits of the dataset records.
const (
	// MaxDatasetRowEdits is how many rows one update changes: they commit in one
	// transaction together with the dataset.
	MaxDatasetRowEdits = MaxTransactItems - 1
	// MaxDatasetUserShares and MaxDatasetGroupShares are how many collaborators one request
	// adds: one transaction, which also checks that the dataset still exists. A group takes
	// two items (its lookup and its listing entry).
	MaxDatasetUserShares  = MaxTransactItems - 1
	MaxDatasetGroupShares = (MaxTransactItems - 1) / 2
	// MaxDatasetRowBytes bounds the values of one row, leaving room under DynamoDB's item
	// limit for the row's other attributes.
	MaxDatasetRowBytes = MaxItemBytes - 2*1024
	// DatasetLeaseTTL is how long a writer of many rows holds a dataset. It stops writing a
	// quarter of it before the end, so no write of an expired lease can land after another
	// writer took over; a writer that died blocks other writers for at most this long.
	DatasetLeaseTTL = time.Minute
)

// Errors of the dataset repository (wrapped).
var (
	// ErrDatasetBusy: another writer holds the dataset's lease; retry shortly.
	ErrDatasetBusy = errors.New("store: dataset is being modified")
	// ErrDatasetVersion: the dataset's content version is not the one the caller expected.
	ErrDatasetVersion = errors.New("store: dataset version changed")
)

// Dataset is a dataset of an organization: its columns and its committed content version.
type Dataset struct {
	ID          string    `json:"id"`
	OrgID       string    `json:"org_id"`
	ProjectID   string    `json:"project_id,omitempty"`
	Name        string    `json:"name"`
	ColumnNames []string  `json:"column_names"`
	Version     int64     `json:"version"`   // the committed content version; 0 while being created
	RowCount    int64     `json:"row_count"` // rows 0 .. row_count-1 are the content
	CreatedBy   string    `json:"created_by"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedBy   string    `json:"updated_by"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// DatasetRow is one row of a dataset's content: its values in column order and the versions
// and users that created and last changed it.
type DatasetRow struct {
	RowID            string
	Index            int64
	Values           []any // string, int64, float64, map[string]any or nil per column
	CreatedInVersion int64
	CreatedAt        time.Time
	CreatedBy        string
	UpdatedInVersion int64
	UpdatedAt        time.Time
	UpdatedBy        string
}

// NewDatasetRow is a row to add: its id and its values in column order.
type NewDatasetRow struct {
	RowID  string
	Values []any
}

// DatasetRowEdit changes some values of one row: Values maps a column's position to the
// column's new value.
type DatasetRowEdit struct {
	RowID  string
	Values map[int]any
}

// DatasetCollaborator is a user's (UserID) or a group's (GroupID) role on a dataset.
type DatasetCollaborator struct {
	ID        string      `json:"id"`
	DatasetID string      `json:"dataset_id"`
	OrgID     string      `json:"org_id"`
	UserID    string      `json:"user_id,omitempty"`
	GroupID   string      `json:"group_id,omitempty"`
	Role      DatasetRole `json:"role"`
	CreatedBy string      `json:"created_by"`
	CreatedAt time.Time   `json:"created_at"`
}

// DatasetGrant is a dataset as one user sees it: the dataset and the strongest role the user
// holds on it directly or through a group ("" for none).
type DatasetGrant struct {
	Dataset Dataset
	Role    DatasetRole
}

// DatasetRowsNotFoundError names the rows of an update that the dataset does not have.
type DatasetRowsNotFoundError struct {
	RowIDs []string
}

func (e *DatasetRowsNotFoundError) Error() string {
	return fmt.Sprintf("store: dataset rows not found: %v", e.RowIDs)
}

func (e *DatasetRowsNotFoundError) Is(target error) bool { return target == ErrNotFound }

// DatasetShareExistsError says which collaborator of a share already had a role.
type DatasetShareExistsError struct {
	Index int // position in the collaborators given to ShareDataset
}

func (e *DatasetShareExistsError) Error() string {
	return fmt.Sprintf("store: dataset collaborator %d: %v", e.Index, ErrAlreadyExists)
}

func (e *DatasetShareExistsError) Is(target error) bool { return target == ErrAlreadyExists }

// Attributes of the dataset item that repositories update or condition on.
const (
	attrDatasetVersion    = "version"
	attrDatasetRowCount   = "row_count"
	attrDatasetOrg        = "org_id"
	attrDatasetUpdatedBy  = "updated_by"
	attrDatasetLeaseToken = "lease_token"
	attrDatasetLeaseUntil = "lease_until"
)

// datasetRowIndexWidth zero-pads row indexes, so that string order is index order up to
// ten billion rows.
const datasetRowIndexWidth = 10

func datasetPartition(id string) string { return "DATASET#" + id }

// DatasetKey is the key of a dataset's META item.
func DatasetKey(id string) Key { return Key{PK: datasetPartition(id), SK: meta} }

func datasetRowKey(id string, index int64) Key {
	return Key{PK: datasetPartition(id), SK: datasetRowSK(index)}
}
func datasetRowSK(index int64) string { return "ROW#" + Pad(index, datasetRowIndexWidth) }
func datasetRowIDKey(id, rowID string) Key {
	return Key{PK: datasetPartition(id), SK: "ROWID#" + rowID}
}
func datasetUserKey(id, userID string) Key {
	return Key{PK: datasetPartition(id), SK: "USER#" + userID}
}
func datasetGroupKey(id, groupID string) Key {
	return Key{PK: datasetPartition(id), SK: "GROUP#" + groupID}
}

// datasetGroupListKey orders a dataset's groups by sharing time, then group id.
func datasetGroupListKey(c DatasetCollaborator) Key {
	return Key{PK: datasetPartition(c.DatasetID), SK: datasetGroupListPrefix + stamp(c.CreatedAt) + "#" + c.GroupID}
}

const datasetGroupListPrefix = "GROUPSHARE#"

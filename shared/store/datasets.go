package store

import (
	"errors"
	"fmt"
	"time"
)

// Datasets, their versioned content and their collaborators. Everything of a dataset lives
// in the dataset's partition, so that deleting its META is the whole visible deletion and one
// Query of the partition finds everything the purge worker must remove.
//
//	record              PK             SK                               notes
//	dataset             DATASET#<id>   META                             org_id scopes every read; the current version, its columns and (when short) its manifest
//	version             DATASET#<id>   VER#<version, 10 digits>         one per version: columns, counts, what changed, name
//	manifest            DATASET#<id>   MAN#<version, 10 digits>         the version's segments in order, with their row counts
//	segment             DATASET#<id>   SEG#<segment id>                 up to 250 rows (256 KB), never rewritten
//	row locator         DATASET#<id>   LOC#<row id>                     the slot of the current version that holds the row
//	user collaborator   DATASET#<id>   USER#<user id>                   role; the creator is the owner
//	group collaborator  DATASET#<id>   GROUP#<group id>                 role; looked up by group id for permissions
//	group listing entry DATASET#<id>   GROUPSHARE#<stamp>#<group id>    the same collaborator in sharing order (operation 7)
//
// The META item is also in GSI2 under ORG#<org id>, so that an organization's datasets are
// one query (datasets_list.go).
//
// Versions (datasets_rope.go). A version's content is a rope: its manifest lists segments in
// order, each an immutable item of rows. A version is never changed, and versions share the
// segments they have in common, so every version stays readable (by index, for a rollback)
// at the cost of what changed: an edit of one row writes the one segment that holds it, a
// new manifest and the version record, and commits with one conditional write of META (the
// version moves from n to n+1 only if it still is n; of two writers exactly one commits, the
// other reads again and redoes its edit). Segments are written before the commit and stay
// invisible (and are purged with the dataset) if it fails. A row's index is its position in
// the version. Rows keep their values by column slot: a column is a name and a slot, so
// renaming or removing a column changes the version's columns and no row. A manifest entry
// names a slot (a stable place in the rope) and the segment that fills it in this version;
// a row's locator names its slot, so that an edit by row id reads the one segment it needs.
// Locators are hints: a row not in the segment its locator names is looked for in every
// segment (and its locator repaired with the next write).

// Entity names of the dataset records.
const (
	EntityDataset             = "dataset"
	EntityDatasetVersion      = "dataset_version"
	EntityDatasetManifest     = "dataset_manifest"
	EntityDatasetSegment      = "dataset_segment"
	EntityDatasetLocator      = "dataset_locator"
	EntityDatasetCollaborator = "dataset_collaborator"
	// EntityDatasetRow is the stream image of a row of the content layout before versions.
	EntityDatasetRow = "dataset_row"
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
	// MaxDatasetRowEdits is how many edits one write of content takes.
	MaxDatasetRowEdits = 1000
	// MaxDatasetRows bounds a dataset's rows: its manifest must fit one item.
	MaxDatasetRows = 1_000_000
	// MaxDatasetUserShares and MaxDatasetGroupShares are how many collaborators one request
	// adds: one transaction, which also checks that the dataset still exists. A group takes
	// two items (its lookup and its listing entry).
	MaxDatasetUserShares  = MaxTransactItems - 1
	MaxDatasetGroupShares = (MaxTransactItems - 1) / 2
	// MaxDatasetRowBytes bounds the values of one row, leaving room under DynamoDB's item
	// limit for the row's other attributes in its segment.
	MaxDatasetRowBytes = MaxItemBytes - 4*1024
)

// Errors of the dataset repository (wrapped).
var (
	// ErrDatasetBusy: other writers kept committing first; retry shortly.
	ErrDatasetBusy = errors.New("store: dataset is being modified")
	// ErrDatasetVersion: the dataset's content version is not the one the caller expected.
	ErrDatasetVersion = errors.New("store: dataset version changed")
)

// Dataset is a dataset of an organization: its current content version, with that
// version's columns and (when short) manifest.
type Dataset struct {
	ID          string          `json:"id"`
	OrgID       string          `json:"org_id"`
	ProjectID   string          `json:"project_id,omitempty"`
	Name        string          `json:"name"`
	ColumnNames []string        `json:"column_names"` // the names of Columns, in order
	Columns     []DatasetColumn `json:"columns"`
	NextSlot    int64           `json:"next_slot"` // the slot a new column takes
	Version     int64           `json:"version"`   // the current version; 0 while being created
	RowCount    int64           `json:"row_count"` // rows of the current version
	Draft       bool            `json:"draft"`
	Hidden      bool            `json:"hidden"`
	// Manifest is the current version's, when it has at most inlineManifest segments;
	// otherwise ManifestStored says it is only in MAN#<version>.
	Manifest       []SegmentRef `json:"manifest"`
	ManifestStored bool         `json:"manifest_stored"`
	CreatedBy      string       `json:"created_by"`
	CreatedAt      time.Time    `json:"created_at"`
	UpdatedBy      string       `json:"updated_by"`
	UpdatedAt      time.Time    `json:"updated_at"`
}

// DatasetColumn is a column of a version: its name, and the slot its values have in a row.
type DatasetColumn struct {
	Name string `json:"name"`
	Slot int64  `json:"slot"`
}

// SegmentRef is one entry of a manifest: the slot, the segment that fills it in the
// version, and the segment's number of rows.
type SegmentRef struct {
	Slot string `json:"s"`
	Seg  string `json:"g"`
	N    int64  `json:"n"`
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

// DatasetRowEdit changes some values of one row: Values maps a column's position (in the
// dataset's current columns) to the column's new value.
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

// DatasetEditError says why edit number Edit of a write cannot apply: Field names the part
// of the edit at fault ("values", "column_name", "new_column_name", "row_ids", "row_id"),
// Key the value's key in it (a column name of values), "" when the field itself.
type DatasetEditError struct {
	Edit       int
	Field, Key string
	Msg        string
}

func (e *DatasetEditError) Error() string {
	return fmt.Sprintf("store: dataset edit %d: %s %s: %s", e.Edit, e.Field, e.Key, e.Msg)
}

func (e *DatasetEditError) Is(target error) bool { return target == ErrInvalid }

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
	attrDatasetVersion = "version"
	attrDatasetOrg     = "org_id"
)

// datasetIndexWidth zero-pads version numbers, so that string order is numeric order.
const datasetIndexWidth = 10

func datasetPartition(id string) string { return "DATASET#" + id }

// DatasetKey is the key of a dataset's META item.
func DatasetKey(id string) Key { return Key{PK: datasetPartition(id), SK: meta} }

func datasetVersionKey(id string, v int64) Key {
	return Key{PK: datasetPartition(id), SK: "VER#" + Pad(v, datasetIndexWidth)}
}
func datasetManifestKey(id string, v int64) Key {
	return Key{PK: datasetPartition(id), SK: "MAN#" + Pad(v, datasetIndexWidth)}
}
func datasetSegmentKey(id, seg string) Key { return Key{PK: datasetPartition(id), SK: "SEG#" + seg} }
func datasetLocatorKey(id, rowID string) Key {
	return Key{PK: datasetPartition(id), SK: "LOC#" + rowID}
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

package datasets

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// userInfo is the user summary of the specification (§2.6).
type userInfo struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

func userInfoOf(u store.User) *userInfo {
	return &userInfo{ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName}
}

// permission is one action's verdict for the caller.
type permission struct {
	Action  string  `json:"action"`
	Allowed bool    `json:"allowed"`
	Message *string `json:"message"`
}

func permissionsOf(role store.DatasetRole) []permission {
	out := make([]permission, len(actions))
	for i, a := range actions {
		out[i] = permission{Action: a.name, Allowed: allowed(role, a.name)}
	}
	return out
}

// datasetResponse is a dataset in the original's DatasetDB shape, with project_id and
// hidden besides. project_count is the number of projects the dataset was created for (0
// or 1).
type datasetResponse struct {
	ID                  string       `json:"id"`
	Permissions         []permission `json:"permissions"`
	Name                string       `json:"name"`
	CreatedAt           time.Time    `json:"created_at"`
	UpdatedAt           time.Time    `json:"updated_at"`
	ProjectCount        int64        `json:"project_count"`
	NumRows             int64        `json:"num_rows"`
	ColumnNames         []string     `json:"column_names"`
	CreatedByUser       *userInfo    `json:"created_by_user"`
	CurrentVersionIndex int64        `json:"current_version_index"`
	Draft               bool         `json:"draft"`
	ProjectID           *string      `json:"project_id"`
	Hidden              bool         `json:"hidden"`
}

func datasetOut(d store.Dataset, role store.DatasetRole, creator *userInfo) datasetResponse {
	resp := datasetResponse{ID: d.ID, Permissions: permissionsOf(role), Name: d.Name, CreatedAt: d.CreatedAt,
		UpdatedAt: d.UpdatedAt, NumRows: d.RowCount, ColumnNames: d.ColumnNames, CreatedByUser: creator,
		CurrentVersionIndex: d.Version, Draft: d.Draft, Hidden: d.Hidden}
	if resp.ColumnNames == nil {
		resp.ColumnNames = []string{}
	}
	if d.ProjectID != "" {
		resp.ProjectID, resp.ProjectCount = &d.ProjectID, 1
	}
	return resp
}

// creatorOf is the user summary of dataset d's creator: the caller's own when it is the
// caller, else read (nil when the user is gone).
func (h *handlers) creatorOf(ctx context.Context, c auth.Caller, d store.Dataset) (*userInfo, error) {
	if d.CreatedBy == c.UserID {
		return &userInfo{ID: c.UserID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName}, nil
	}
	u, err := store.OrgUser(ctx, h.Table, c.OrgID, d.CreatedBy)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return userInfoOf(u), nil
}

// writeDataset answers with the dataset and its ETag.
func (h *handlers) writeDataset(ctx context.Context, w http.ResponseWriter, c auth.Caller, d store.Dataset, role store.DatasetRole) error {
	creator, err := h.creatorOf(ctx, c, d)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag(d.Version))
	httpapi.WriteJSON(w, http.StatusOK, datasetOut(d, role, creator))
	return nil
}

// The ETag of a dataset's content is its version: every write of rows moves it.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

var errStale = httpapi.PreconditionFailed("The dataset has changed since the ETag given in If-Match")

// ifMatch checks the request's If-Match against the dataset's current version and returns
// the version the write must apply to (0: any, when the header is absent or "*"). A weak
// tag never matches, as RFC 9110 compares If-Match strongly; an unquoted version is taken
// as the tag it names.
func ifMatch(r *http.Request, current int64) (int64, error) {
	header := strings.TrimSpace(strings.Join(r.Header.Values("If-Match"), ","))
	if header == "" {
		return 0, nil
	}
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			return 0, nil
		}
		if tag == etag(current) || tag == strconv.FormatInt(current, 10) {
			return current, nil
		}
	}
	return 0, errStale
}

// collaborator is a user collaborator of a dataset (the shape of §2.3's response item).
type collaborator struct {
	ID          string            `json:"id"`
	Role        store.DatasetRole `json:"role"`
	CreatedAt   time.Time         `json:"created_at"`
	UserID      string            `json:"user_id"`
	FirstName   string            `json:"first_name"`
	LastName    string            `json:"last_name"`
	Email       string            `json:"email"`
	Permissions []permission      `json:"permissions"`
}

// groupCollaborator is a group collaborator of a dataset (§2.4).
type groupCollaborator struct {
	ID          string            `json:"id"`
	Role        store.DatasetRole `json:"role"`
	CreatedAt   time.Time         `json:"created_at"`
	GroupID     string            `json:"group_id"`
	GroupName   string            `json:"group_name"`
	Permissions []permission      `json:"permissions"`
}

// collaboratorPermissions are the caller's permissions on a collaborator record: the
// dataset's sharers may change and remove it.
func collaboratorPermissions(role store.DatasetRole) []permission {
	share := allowed(role, "share")
	return []permission{{Action: "update", Allowed: share}, {Action: "delete", Allowed: share}}
}

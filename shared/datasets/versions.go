package datasets

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The versions of a dataset's content: listed (GET .../versions and the original's POST
// .../versions/query), named (PATCH .../versions/{version_index}), and read
// (GET .../versions/{version_index}/content, a page as operation 6 answers it).

// versionResponse is the original's DatasetVersionDB.
type versionResponse struct {
	VersionIndex   int64     `json:"version_index"`
	Name           *string   `json:"name"`
	CreatedAt      time.Time `json:"created_at"`
	CreatedByUser  *userInfo `json:"created_by_user"`
	NumRows        int64     `json:"num_rows"`
	ColumnNames    []string  `json:"column_names"`
	RowsAdded      int64     `json:"rows_added"`
	RowsRemoved    int64     `json:"rows_removed"`
	RowsEdited     int64     `json:"rows_edited"`
	ColumnsAdded   int64     `json:"columns_added"`
	ColumnsRemoved int64     `json:"columns_removed"`
	ColumnsRenamed int64     `json:"columns_renamed"`
}

func versionOut(v store.DatasetVersion, users map[string]*userInfo) versionResponse {
	out := versionResponse{VersionIndex: v.Index, Name: v.Name, CreatedAt: v.CreatedAt, CreatedByUser: users[v.CreatedBy],
		NumRows: v.NumRows, ColumnNames: v.ColumnNames}
	out.RowsAdded, out.RowsRemoved, out.RowsEdited, out.ColumnsAdded, out.ColumnsRemoved, out.ColumnsRenamed = v.Stats()
	if out.ColumnNames == nil {
		out.ColumnNames = []string{}
	}
	return out
}

// versionSorts are the original's DatasetVersionIndexSort.
var versionSorts = []collection.SortSpec{{Name: "version_index", SortType: "column"}}

// listVersions is GET /v2/datasets/{dataset_id}/versions: newest first, a page at a time.
func (h *handlers) listVersions(w http.ResponseWriter, r *http.Request) error {
	errs := validate.New()
	id, _ := errs.Path("dataset_id", r.PathValue("dataset_id")).UUID(4)
	start, limit := errs.Page(r.URL.Query())
	if err := errs.Err(); err != nil {
		return err
	}
	return h.answerVersions(w, r, id, collection.Sort{Name: "version_index"}, start, limit)
}

// queryVersions is POST /v2/datasets/{dataset_id}/versions/query: {"sort": {"name":
// "version_index", "ascending": ...}} (newest first when absent).
func (h *handlers) queryVersions(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	id, _ := errs.Path("dataset_id", r.PathValue("dataset_id")).UUID(4)
	start, limit := errs.Page(r.URL.Query())
	sort := collection.Sort{Name: "version_index"}
	if present && raw != nil {
		if o, ok := errs.Body(raw, present).Object(); ok {
			sort = collection.ReadSort(o.Get("sort"), versionSorts, sort)
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	return h.answerVersions(w, r, id, sort, start, limit)
}

func (h *handlers) answerVersions(w http.ResponseWriter, r *http.Request, id string, sort collection.Sort, start, limit int) error {
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	if _, err := h.grant(r.Context(), c, id); err != nil {
		return err
	}
	versions, err := store.ListDatasetVersions(r.Context(), h.Table, id)
	if err != nil {
		return err
	}
	versions = collection.Apply(versions, nil, sort, func(v store.DatasetVersion) collection.Record {
		return func(string) any { return float64(v.Index) }
	})
	page, next := collection.Page(versions, start, limit)
	var ids []string
	for _, v := range page {
		ids = append(ids, v.CreatedBy)
	}
	users, err := h.usersOf(r, c, ids)
	if err != nil {
		return err
	}
	out := make([]versionResponse, len(page))
	for i, v := range page {
		out[i] = versionOut(v, users)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": start, "limit": limit,
		"paginated": next != nil, "next_starting_token": next, "versions": out})
	return nil
}

// usersOf reads the summaries of users of the caller's organization, by id (a user since
// deleted is left out).
func (h *handlers) usersOf(r *http.Request, c auth.Caller, ids []string) (map[string]*userInfo, error) {
	slices.Sort(ids)
	users, err := store.OrgUsers(r.Context(), h.Table, c.OrgID, slices.Compact(ids))
	if err != nil {
		return nil, err
	}
	out := make(map[string]*userInfo, len(users))
	for _, u := range users {
		out[u.ID] = userInfoOf(u)
	}
	return out, nil
}

// readVersionPath reads the path of one version.
func readVersionPath(errs *validate.Errors, r *http.Request) (string, int64) {
	id, _ := errs.Path("dataset_id", r.PathValue("dataset_id")).UUID(4)
	v, _ := errs.Path("version_index", r.PathValue("version_index")).Int(validate.Ge(1))
	return id, v
}

// versionContent is GET /v2/datasets/{dataset_id}/versions/{version_index}/content: a page
// of that version's rows, as operation 6 answers the current version's.
func (h *handlers) versionContent(w http.ResponseWriter, r *http.Request) error {
	errs := validate.New()
	id, v := readVersionPath(errs, r)
	start, limit := errs.Page(r.URL.Query())
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	g, err := h.grant(r.Context(), c, id)
	if err != nil {
		return err
	}
	_, st, err := store.GetDatasetVersion(r.Context(), h.Table, g.Dataset, v)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Dataset version")
	}
	if err != nil {
		return err
	}
	return h.servePage(w, r, g.Dataset, st, start, limit)
}

// nameVersion is PATCH /v2/datasets/{dataset_id}/versions/{version_index}: {"name": ...}
// (null removes the name); an editor's right.
func (h *handlers) nameVersion(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	id, v := readVersionPath(errs, r)
	var name *string
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		if s, ok := o.Get("name").Nullable().String(validate.MinLen(1), validate.MaxLen(maxNameLen)); ok {
			name = &s
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	c, g, _, err := h.editable(r, id)
	if err != nil {
		return err
	}
	rec, err := store.NameDatasetVersion(r.Context(), h.Table, g.Dataset, v, name)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Dataset version")
	}
	if err != nil {
		return err
	}
	users, err := h.usersOf(r, c, []string{rec.CreatedBy})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, versionOut(rec, users))
	return nil
}

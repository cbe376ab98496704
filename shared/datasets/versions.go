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
	call, err := base.Open(r, base.Opening{}, readDatasetPage)
	if err != nil {
		return err
	}
	return h.answerVersions(w, r, call.Caller, call.In, collection.Sort{Name: "version_index"})
}

// queryVersions is POST /v2/datasets/{dataset_id}/versions/query: {"sort": {"name":
// "version_index", "ascending": ...}} (newest first when absent).
func (h *handlers) queryVersions(w http.ResponseWriter, r *http.Request) error {
	type query struct {
		page datasetPage
		sort collection.Sort
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (q query) {
		q.page, q.sort = readDatasetPage(in), collection.Sort{Name: "version_index"}
		if in.Present && in.Raw != nil {
			if o, ok := in.Body().Object(); ok {
				q.sort = collection.ReadSort(o.Get("sort"), versionSorts, q.sort)
			}
		}
		return q
	})
	if err != nil {
		return err
	}
	return h.answerVersions(w, r, call.Caller, call.In.page, call.In.sort)
}

func (h *handlers) answerVersions(w http.ResponseWriter, r *http.Request, c auth.Caller, p datasetPage, sort collection.Sort) error {
	id, start, limit := p.id, p.start, p.limit
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
func readVersionPath(in *base.Input) (p datasetPage) {
	p.id, _ = in.Path("dataset_id").UUID(4)
	p.version, _ = in.Path("version_index").Int(validate.Ge(1))
	return p
}

// versionContent is GET /v2/datasets/{dataset_id}/versions/{version_index}/content: a page
// of that version's rows, as operation 6 answers the current version's.
func (h *handlers) versionContent(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) datasetPage {
		p := readVersionPath(in)
		p.start, p.limit = in.Page()
		return p
	})
	if err != nil {
		return err
	}
	p := call.In
	g, err := h.grant(r.Context(), call.Caller, p.id)
	if err != nil {
		return err
	}
	_, st, err := store.GetDatasetVersion(r.Context(), h.Table, g.Dataset, p.version)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Dataset version")
	}
	if err != nil {
		return err
	}
	return h.servePage(w, r, g.Dataset, st, p.start, p.limit)
}

// nameVersion is PATCH /v2/datasets/{dataset_id}/versions/{version_index}: {"name": ...}
// (null removes the name); an editor's right.
func (h *handlers) nameVersion(w http.ResponseWriter, r *http.Request) error {
	type naming struct {
		version datasetPage
		name    *string
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x naming) {
		x.version = readVersionPath(in)
		if o, ok := in.Body().Required().Object(); ok {
			if s, ok := o.Get("name").Nullable().String(validate.MinLen(1), validate.MaxLen(maxNameLen)); ok {
				x.name = &s
			}
		}
		return x
	})
	if err != nil {
		return err
	}
	c, v := call.Caller, call.In.version
	g, _, err := h.editable(r, c, v.id)
	if err != nil {
		return err
	}
	rec, err := store.NameDatasetVersion(r.Context(), h.Table, g.Dataset, v.version, call.In.name)
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

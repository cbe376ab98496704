package datasets_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

// GET /datasets/{id}/projects: the projects with an experiment on the dataset, most
// recently used first, paged; the others are not listed.
func TestDatasetProjects(t *testing.T) {
	h := newHarness(t)
	u := h.org.User
	d := h.create(u, "qa", []string{"q"}, []any{[]any{"a"}})
	other := h.create(u, "other", []string{"q"}, []any{[]any{"a"}})
	ctx := t.Context()
	project := func(name string, at time.Time) store.Project {
		p := store.Project{ID: uuid.NewString(), OrgID: h.org.ID, Name: name, Type: "gen_ai", CreatedBy: u.UserID, CreatedAt: at, UpdatedAt: at}
		if err := store.CreateProject(ctx, h.db, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	experiment := func(p store.Project, dataset string, at time.Time) {
		e := store.Experiment{ID: uuid.NewString(), ProjectID: p.ID, OrgID: h.org.ID, Name: uuid.NewString(), CreatedBy: u.UserID,
			CreatedAt: at, UpdatedAt: at, Dataset: &store.ExperimentDataset{DatasetID: dataset}}
		if err := store.CreateExperiment(ctx, h.db, e); err != nil {
			t.Fatal(err)
		}
	}
	older, newer, unused := project("older", t0), project("newer", t0), project("unused", t0)
	experiment(older, d.ID, t0.Add(time.Hour))
	experiment(newer, d.ID, t0.Add(2*time.Hour))
	experiment(older, d.ID, t0.Add(30*time.Minute))
	experiment(unused, other.ID, t0.Add(3*time.Hour))

	path := "/v2/datasets/" + d.ID + "/projects"
	type listed struct {
		Paginated bool `json:"paginated"`
		Next      *int `json:"next_starting_token"`
		Projects  []struct {
			ID            string `json:"id"`
			Name          string `json:"name"`
			CreatedByUser *struct {
				ID string `json:"id"`
			} `json:"created_by_user"`
		} `json:"projects"`
	}
	var all listed
	h.must(&u, "GET", path, nil, &all)
	var names []string
	for _, p := range all.Projects {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"newer", "older"}) || all.Paginated || all.Projects[0].CreatedByUser == nil ||
		all.Projects[0].CreatedByUser.ID != u.UserID {
		t.Errorf("projects of the dataset: %+v", all)
	}
	var page listed
	h.must(&u, "GET", "/datasets/"+d.ID+"/projects?starting_token=1&limit=1", nil, &page)
	if len(page.Projects) != 1 || page.Projects[0].ID != older.ID || page.Paginated {
		t.Errorf("second page: %+v", page)
	}
	stranger := h.auth.Org(t).User
	for _, tc := range []struct {
		who    *authtest.User
		path   string
		status int
	}{
		{nil, path, http.StatusUnauthorized},
		{&h.org.ReadOnly, path, http.StatusForbidden}, // not shared with them
		{&stranger, path, http.StatusNotFound},
		{&u, "/v2/datasets/" + uuid.NewString() + "/projects", http.StatusNotFound},
		{&u, "/v2/datasets/nope/projects", http.StatusUnprocessableEntity},
		{&u, path + "?limit=0", http.StatusUnprocessableEntity},
	} {
		if r := h.request(tc.who, "GET", tc.path, nil); r.code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.path, r.code, r.body, tc.status)
		}
	}
}

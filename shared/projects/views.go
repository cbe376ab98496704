package projects

import (
	"context"
	"errors"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/store"
)

// The shapes of projects and log streams as the original's clients parse them: ProjectDB
// (with its creator and runs), ProjectDBThin, ProjectCreateResponse, LogStreamResponse.

// userInfo is a user in brief (UserInfo).
type userInfo struct {
	ID        string  `json:"id"`
	Email     string  `json:"email"`
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
}

// userDB is a user in full (UserDB), as a run's creator.
type userDB struct {
	ID               string    `json:"id"`
	Permissions      []any     `json:"permissions"`
	Email            string    `json:"email"`
	FirstName        *string   `json:"first_name"`
	LastName         *string   `json:"last_name"`
	AuthMethod       string    `json:"auth_method"`
	Role             string    `json:"role"`
	EmailIsVerified  *bool     `json:"email_is_verified"`
	OrganizationID   string    `json:"organization_id"`
	OrganizationName string    `json:"organization_name"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
}

// runDB is a run of a project (RunDB and RunDBThin, which have the same fields).
type runDB struct {
	Name                 string         `json:"name"`
	ProjectID            string         `json:"project_id"`
	CreatedBy            string         `json:"created_by"`
	NumSamples           int64          `json:"num_samples"`
	Winner               bool           `json:"winner"`
	DatasetHash          *string        `json:"dataset_hash"`
	DatasetVersionID     *string        `json:"dataset_version_id"`
	ID                   string         `json:"id"`
	CreatedAt            time.Time      `json:"created_at"`
	UpdatedAt            time.Time      `json:"updated_at"`
	TaskType             *int64         `json:"task_type"`
	LastUpdatedBy        string         `json:"last_updated_by"`
	RunTags              []store.RunTag `json:"run_tags"`
	ExampleContentID     *string        `json:"example_content_id"`
	Creator              userDB         `json:"creator"`
	LoggedSplits         []string       `json:"logged_splits"`
	LoggedInferenceNames []string       `json:"logged_inference_names"`
}

// projectThin is ProjectDBThin; projectDB adds the creator, description and labels.
type projectThin struct {
	ID          string    `json:"id"`
	Permissions []any     `json:"permissions"`
	Name        string    `json:"name"`
	CreatedBy   string    `json:"created_by"`
	Type        string    `json:"type"`
	Runs        []runDB   `json:"runs"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Bookmark    bool      `json:"bookmark"`
}

type projectDB struct {
	projectThin
	CreatedByUser userInfo `json:"created_by_user"`
	Description   *string  `json:"description"`
	Labels        []string `json:"labels"`
}

// projectCreated is ProjectCreateResponse.
type projectCreated struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedBy string    `json:"created_by"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func projectOut(p store.Project) projectCreated {
	return projectCreated{ID: p.ID, Name: p.Name, CreatedBy: p.CreatedBy, Type: p.Type, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// logStreamResponse is LogStreamResponse; the counts are filled when asked for.
type logStreamResponse struct {
	ID                     string    `json:"id"`
	ProjectID              string    `json:"project_id"`
	Name                   string    `json:"name"`
	CreatedBy              string    `json:"created_by"`
	CreatedByUser          *userInfo `json:"created_by_user"`
	CreatedAt              time.Time `json:"created_at"`
	UpdatedAt              time.Time `json:"updated_at"`
	NumSpans               *int64    `json:"num_spans"`
	NumTraces              *int64    `json:"num_traces"`
	HasUserCreatedSessions bool      `json:"has_user_created_sessions"`
}

// people are the users (and their organization) that a response names.
type people struct {
	org   store.Org
	users map[string]store.User
}

// loadPeople reads the users ids name in the caller's organization, and with org the
// organization itself, at once.
func (h *handlers) loadPeople(ctx context.Context, orgID string, ids []string, org bool) (people, error) {
	p := people{users: map[string]store.User{}}
	var users []store.User
	err := base.Concurrently(ctx,
		func(ctx context.Context) (err error) {
			users, err = store.OrgUsers(ctx, h.Table, orgID, ids)
			return err
		},
		func(ctx context.Context) error {
			if !org {
				return nil
			}
			o, err := store.GetOrg(ctx, h.Table, orgID)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			p.org = o
			return err
		})
	for _, u := range users {
		p.users[u.ID] = u
	}
	return p, err
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// info is user id in brief; a user since deleted shows its id alone.
func (p people) info(id string) userInfo {
	u := p.users[id]
	return userInfo{ID: id, Email: u.Email, FirstName: optional(u.FirstName), LastName: optional(u.LastName)}
}

// creator is user id in full.
func (p people) creator(id string) userDB {
	u := p.users[id]
	out := userDB{ID: id, Permissions: []any{}, Email: u.Email, FirstName: optional(u.FirstName), LastName: optional(u.LastName),
		AuthMethod: "email", Role: u.Role, OrganizationID: p.org.ID, OrganizationName: p.org.Name,
		CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
	if out.Role == "" {
		out.Role = "read_only"
	}
	return out
}

// runsOut shows a project's runs; summaries give each its number of traces.
func (p people) runsOut(runs []store.RunInfo, summaries map[string]store.RunSummary) []runDB {
	out := make([]runDB, 0, len(runs))
	for _, r := range runs {
		rd := runDB{Name: r.Name, ProjectID: r.ProjectID, CreatedBy: r.CreatedBy, NumSamples: summaries[r.ID].NumTraces,
			ID: r.ID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, LastUpdatedBy: r.CreatedBy,
			RunTags: store.RunTags(r.ProjectID, r.ID, r.CreatedBy, r.CreatedAt, r.UpdatedAt, r.Tags),
			Creator: p.creator(r.CreatedBy), LoggedSplits: []string{}, LoggedInferenceNames: []string{}}
		if r.Kind == store.RunExperiment {
			tt := r.TaskType
			rd.TaskType = &tt
		}
		out = append(out, rd)
	}
	return out
}

func (p people) thin(pr store.Project, runs []runDB) projectThin {
	if runs == nil {
		runs = []runDB{}
	}
	return projectThin{ID: pr.ID, Permissions: []any{}, Name: pr.Name, CreatedBy: pr.CreatedBy, Type: pr.Type,
		Runs: runs, CreatedAt: pr.CreatedAt, UpdatedAt: pr.UpdatedAt}
}

func (p people) project(pr store.Project, runs []runDB) projectDB {
	return projectDB{projectThin: p.thin(pr, runs), CreatedByUser: p.info(pr.CreatedBy), Labels: []string{}}
}

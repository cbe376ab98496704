package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Listing, looking up and deleting projects and log streams.
//
// An organization's projects are found through their name claims (ORG#<org id> |
// NAME#PROJECT#<hash>), which name the project they reserve a name for: one query of the
// organization's partition, then one batch read of the projects. A project's runs are the
// LOGSTREAM# and EXPERIMENT# items of its partition: one query of the partition reads the
// project and its runs together.
//
// Deleting a project removes its META item and its name claim in one transaction; what it
// held (log streams, experiments, their names and signals configurations, and through
// their removal the runs' traces and summaries) is purged by the stream consumer when the
// table's stream reports the removal (PurgeProject, PurgeRun), as for datasets.

// Project types (the original's ProjectType); new projects are gen_ai unless told.
var ProjectTypes = []string{"prompt_evaluation", "llm_monitor", "protect", "gen_ai"}

// DefaultProjectType is the type of a project created without one, and of projects stored
// before types were.
const DefaultProjectType = "gen_ai"

// RunInfo is a run of a project as a project's read lists it.
type RunInfo struct {
	ID        string            `json:"id"`
	ProjectID string            `json:"project_id"`
	Name      string            `json:"name"`
	Kind      string            `json:"-"`         // RunLogStream or RunExperiment
	TaskType  int64             `json:"task_type"` // 0 for a log stream
	CreatedBy string            `json:"created_by"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
	Tags      map[string]string `json:"tags"`
}

func projectPrefixClaims(orgID string) Query {
	return Query{PK: "ORG#" + orgID, SKOp: SKPrefix, From: "NAME#PROJECT#", Consistent: true}
}

// ListProjects reads every project of the organization with its runs (by project id), in
// no particular order: one query of the organization's project names, then one query of
// each project's partition (a few at a time), which holds the project and its runs.
func ListProjects(ctx context.Context, t Table, orgID string) ([]Project, map[string][]RunInfo, error) {
	claims, err := QueryAll(ctx, t, projectPrefixClaims(orgID))
	if err != nil {
		return nil, nil, fmt.Errorf("list projects: %w", err)
	}
	ids := make([]string, 0, len(claims))
	for _, c := range claims {
		if id, ok := strings.CutPrefix(str(c["owner_pk"]), "PROJECT#"); ok {
			ids = append(ids, id)
		}
	}
	return projectsRuns(ctx, t, orgID, ids)
}

// ProjectByName reads the organization's project called name with its runs; ErrNotFound
// when none is.
func ProjectByName(ctx context.Context, t Table, orgID, name string) (Project, []RunInfo, error) {
	claim, err := t.Get(ctx, nameClaim("ORG#"+orgID, "PROJECT", name, Key{}).Key(), true)
	if err != nil {
		return Project{}, nil, fmt.Errorf("project named %q: %w", name, err)
	}
	id, _ := strings.CutPrefix(str(claim["owner_pk"]), "PROJECT#")
	return ProjectRuns(ctx, t, orgID, id)
}

// ProjectRuns reads a project of the organization and its runs (log streams and
// experiments, oldest first) with one strongly consistent query of its partition.
func ProjectRuns(ctx context.Context, t Table, orgID, id string) (Project, []RunInfo, error) {
	items, err := QueryAll(ctx, t, Query{PK: projectKey(id).PK, Consistent: true})
	if err != nil {
		return Project{}, nil, fmt.Errorf("read project %s: %w", id, err)
	}
	var p *Project
	var runs []RunInfo
	for _, it := range items {
		sk := it.Key().SK
		switch {
		case sk == meta:
			pr, err := projectFrom(it)
			if err != nil {
				return Project{}, nil, err
			}
			p = &pr
		case strings.HasPrefix(sk, "LOGSTREAM#"), strings.HasPrefix(sk, "EXPERIMENT#"):
			var r RunInfo
			if err := Unmarshal(it, &r); err != nil {
				return Project{}, nil, err
			}
			r.Kind = RunLogStream
			if strings.HasPrefix(sk, "EXPERIMENT#") {
				r.Kind = RunExperiment
			}
			runs = append(runs, r)
		}
	}
	if p == nil || p.OrgID != orgID {
		return Project{}, nil, fmt.Errorf("read project %s: %w", id, ErrNotFound)
	}
	sortRuns(runs)
	return *p, runs, nil
}

func sortRuns(runs []RunInfo) {
	for i := 1; i < len(runs); i++ { // few runs: insertion sort keeps it simple and stable
		for j := i; j > 0 && runs[j].CreatedAt.Before(runs[j-1].CreatedAt); j-- {
			runs[j], runs[j-1] = runs[j-1], runs[j]
		}
	}
}

// projectsRuns is ProjectRuns for many projects at once (parallel queries, a few at a
// time). Projects deleted meanwhile are left out.
func projectsRuns(ctx context.Context, t Table, orgID string, ids []string) ([]Project, map[string][]RunInfo, error) {
	ps := make([]*Project, len(ids))
	runs := make(map[string][]RunInfo, len(ids))
	var mu sync.Mutex
	err := datasetParallel(ctx, len(ids), 8, func(ctx context.Context, i int) error {
		p, r, err := ProjectRuns(ctx, t, orgID, ids[i])
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		mu.Lock()
		ps[i], runs[p.ID] = &p, r
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	out := make([]Project, 0, len(ids))
	for _, p := range ps {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, runs, nil
}

// DeleteProject deletes project p (as read) and its name claim in one transaction;
// ErrNotFound when it is gone. The stream consumer purges what it held (PurgeProject).
func DeleteProject(ctx context.Context, t Table, p Project) error {
	k := projectKey(p.ID)
	claim := nameClaim("ORG#"+p.OrgID, "PROJECT", p.Name, k).Key()
	err := t.Transact(ctx, []Op{DeleteOp(k, Equals("org_id", p.OrgID)), DeleteOp(claim)})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delete project %s: %w", p.ID, err)
	}
	return nil
}

// ListLogStreams reads every log stream of a project of the organization, oldest first.
func ListLogStreams(ctx context.Context, t Table, orgID, projectID string) ([]LogStream, error) {
	items, err := queryAllStored(ctx, t, Query{PK: projectKey(projectID).PK, SKOp: SKPrefix, From: "LOGSTREAM#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("list log streams of project %s: %w", projectID, err)
	}
	out := make([]LogStream, 0, len(items))
	for _, it := range items {
		var ls LogStream
		if err := it.Decode(&ls); err != nil {
			return nil, err
		}
		if ls.OrgID == orgID {
			out = append(out, ls)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].CreatedAt.Before(out[j-1].CreatedAt); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

// RenameLogStream gives a log stream a new name, moving its name claim in the same
// transaction: ErrNameTaken when the project has a log stream of that name, ErrNotFound
// when the log stream is gone. It returns the log stream as renamed.
func RenameLogStream(ctx context.Context, t Table, ls LogStream, name string, now time.Time) (LogStream, error) {
	if name == ls.Name {
		return ls, nil
	}
	k := logStreamKey(ls.ProjectID, ls.ID)
	ops := []Op{
		UpdateOp(Update{Key: k, Set: map[string]any{"name": name, AttrUpdatedAt: timeAttr(now)},
			Conds: []Cond{Equals("name", ls.Name)}}),
		DeleteOp(nameClaim(k.PK, "LOGSTREAM", ls.Name, k).Key()),
		PutOp(nameClaim(k.PK, "LOGSTREAM", name, k), NotExists()),
	}
	err := t.Transact(ctx, ops)
	var tx *TxCanceledError
	if errors.As(err, &tx) {
		switch tx.Failed() {
		case 0:
			return LogStream{}, fmt.Errorf("rename log stream %s: %w", ls.ID, ErrNotFound)
		case 2:
			return LogStream{}, fmt.Errorf("rename log stream %s: %w", ls.ID, ErrNameTaken)
		}
	}
	if err != nil {
		return LogStream{}, fmt.Errorf("rename log stream %s: %w", ls.ID, err)
	}
	ls.Name, ls.UpdatedAt = name, now
	return ls, nil
}

// DeleteLogStream deletes a log stream and its name claim in one transaction; ErrNotFound
// when it is gone. The stream consumer purges its traces (PurgeRun).
func DeleteLogStream(ctx context.Context, t Table, ls LogStream) error {
	k := logStreamKey(ls.ProjectID, ls.ID)
	err := t.Transact(ctx, []Op{DeleteOp(k, Equals("org_id", ls.OrgID)), DeleteOp(nameClaim(k.PK, "LOGSTREAM", ls.Name, k).Key())})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delete log stream %s: %w", ls.ID, err)
	}
	return nil
}

func projectFrom(it Item) (Project, error) {
	var p Project
	if err := Unmarshal(it, &p); err != nil {
		return Project{}, err
	}
	if p.Type == "" {
		p.Type = DefaultProjectType
	}
	return p, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

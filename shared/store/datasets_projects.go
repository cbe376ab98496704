package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// projectReadsAtOnce bounds the concurrent reads of DatasetProjects.
const projectReadsAtOnce = 8

// DatasetProject is a project that uses a dataset, with when it last did.
type DatasetProject struct {
	Project
	LastUsedAt time.Time // the newest experiment on the dataset; the project's creation when none
}

// DatasetProjects lists the organization's projects that use dataset d: the project d was
// created in, if any, and every project with an experiment on d, most recently used first
// (ties by project id). No index maps a dataset to its experiments, so it reads the
// organization's projects and their experiments: one query each (a few at once), bounded by
// the organization's size, as the project list is.
func DatasetProjects(ctx context.Context, t Table, d Dataset) ([]DatasetProject, error) {
	projects, _, err := ListProjects(ctx, t, d.OrgID)
	if err != nil {
		return nil, fmt.Errorf("projects of dataset %s: %w", d.ID, err)
	}
	// The projects' experiments are read a few projects at a time, at once.
	exps := make([][]Experiment, len(projects))
	errs := make([]error, len(projects))
	var wg sync.WaitGroup
	sem := make(chan struct{}, projectReadsAtOnce)
	for i, p := range projects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			exps[i], errs[i] = ListExperiments(ctx, t, d.OrgID, p.ID)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("projects of dataset %s: %w", d.ID, err)
	}
	var out []DatasetProject
	for i, p := range projects {
		used, last := p.ID == d.ProjectID, p.CreatedAt
		for _, e := range exps[i] {
			if e.Dataset != nil && e.Dataset.DatasetID == d.ID {
				if !used || e.CreatedAt.After(last) {
					last = e.CreatedAt
				}
				used = true
			}
		}
		if used {
			out = append(out, DatasetProject{Project: p, LastUsedAt: last})
		}
	}
	slices.SortFunc(out, func(a, b DatasetProject) int {
		if c := b.LastUsedAt.Compare(a.LastUsedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

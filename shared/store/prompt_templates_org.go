package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The organization's view of its prompt templates, for the global template routes: a
// template found by its id alone, all of them at once, renamed, deleted.

// FindPromptTemplate reads template id of the organization wherever it lives (a project's or
// the organization's): its home record names the place. ErrNotFound when there is none,
// or it belongs to another organization.
func FindPromptTemplate(ctx context.Context, t Table, orgID, id string) (PromptTemplate, error) {
	it, err := t.Get(ctx, promptTemplateHomeKey(id), true)
	if err != nil {
		return PromptTemplate{}, fmt.Errorf("find prompt template %s: %w", id, err)
	}
	var home struct {
		ProjectID string `json:"project_id"`
		OrgID     string `json:"org_id"`
	}
	if err := Unmarshal(it, &home); err != nil {
		return PromptTemplate{}, fmt.Errorf("find prompt template %s: %w", id, err)
	}
	if home.OrgID != orgID {
		return PromptTemplate{}, fmt.Errorf("find prompt template %s: %w", id, ErrNotFound)
	}
	return GetPromptTemplate(ctx, t, orgID, home.ProjectID, id)
}

// IndexPromptTemplate gives p, a template stored before the global routes, its home record
// and its GSI1 attributes in one transaction, so that the global routes find it; a template
// that has them (or is gone, or is being indexed by another call) is left as it is.
func IndexPromptTemplate(ctx context.Context, t Table, p PromptTemplate) (PromptTemplate, error) {
	if p.Indexed {
		return p, nil
	}
	k, hk := promptTemplateKey(p.OrgID, p.ProjectID, p.ID), promptTemplateHomeKey(p.ID)
	err := t.Transact(ctx, []Op{
		UpdateOp(Update{Key: k, Conds: []Cond{Exists()},
			Set: map[string]any{AttrGSI1PK: orgTemplatesPK(p.OrgID), AttrGSI1SK: k.SK, "indexed": true}}),
		PutOp(Item{AttrPK: hk.PK, AttrSK: hk.SK, AttrEntity: EntityPromptTemplateHome, "project_id": p.ProjectID, "org_id": p.OrgID}, NotExists()),
	})
	var tx *TxCanceledError
	switch {
	case errors.As(err, &tx), errors.Is(err, ErrConflict), errors.Is(err, ErrConditionFailed):
		return p, nil // gone, or indexed already: nothing to do
	case err != nil:
		return p, fmt.Errorf("index prompt template %s: %w", p.ID, err)
	}
	p.Indexed = true
	return p, nil
}

// OrgPromptTemplates reads every template of the organization, of its projects and of none,
// in no particular order (the caller sorts). It reads an index: a template created a moment
// ago may be missing.
func OrgPromptTemplates(ctx context.Context, t Table, orgID string) ([]PromptTemplate, error) {
	items, err := queryAllStored(ctx, t, Query{Index: IndexGSI1, PK: orgTemplatesPK(orgID), SKOp: SKPrefix, From: "TEMPLATE#"})
	if err != nil {
		return nil, fmt.Errorf("prompt templates of organization %s: %w", orgID, err)
	}
	out := make([]PromptTemplate, 0, len(items))
	for _, it := range items {
		var p PromptTemplate
		if err := it.Decode(&p); err != nil {
			return nil, err
		}
		if p.OrgID == orgID {
			out = append(out, p)
		}
	}
	return out, nil
}

// RenamePromptTemplate gives p (as last read) a new name, moving its name claim in the same
// transaction. ErrNameTaken when another template of its place has the name, ErrNotFound
// when p is gone.
func RenamePromptTemplate(ctx context.Context, t Table, p PromptTemplate, name string, now time.Time) (PromptTemplate, error) {
	if name == p.Name {
		return p, nil
	}
	k := promptTemplateKey(p.OrgID, p.ProjectID, p.ID)
	old := nameClaim(k.PK, "TEMPLATE", p.Name, k).Key()
	err := t.Transact(ctx, []Op{
		UpdateOp(Update{Key: k, Conds: []Cond{Equals("name", p.Name)},
			Set: map[string]any{"name": name, "updated_at": now.UTC().Format(time.RFC3339Nano)}}),
		PutOp(nameClaim(k.PK, "TEMPLATE", name, k), NotExists()),
		DeleteOp(old),
	})
	var tx *TxCanceledError
	if errors.As(err, &tx) {
		switch tx.Failed() {
		case 0:
			return p, fmt.Errorf("rename prompt template %s: %w", p.ID, ErrNotFound)
		case 1:
			return p, fmt.Errorf("rename prompt template %s: %w", p.ID, ErrNameTaken)
		}
	}
	if err != nil {
		return p, fmt.Errorf("rename prompt template %s: %w", p.ID, err)
	}
	p.Name, p.UpdatedAt = name, now
	return p, nil
}

// DeletePromptTemplate deletes p with its name claim and home record in one transaction
// (ErrNotFound when it is gone already): from then on no route finds it. Its versions and
// collaborators are removed by the stream consumer when the table's stream reports the
// template record's removal (PurgePromptTemplate), so that the request's cost does not grow
// with them and no failure can leave them behind for good.
//
// The record is deleted on the condition that its name is still p's: a rename since p was
// read moved the name claim, and deleting the claim of the old name would leave the new
// one taken for good. The template is then read again and the delete tried with its name.
func DeletePromptTemplate(ctx context.Context, t Table, p PromptTemplate) error {
	for range deleteTemplateAttempts {
		k := promptTemplateKey(p.OrgID, p.ProjectID, p.ID)
		err := t.Transact(ctx, []Op{
			DeleteOp(k, Equals("name", p.Name)),
			DeleteOp(nameClaim(k.PK, "TEMPLATE", p.Name, k).Key()),
			DeleteOp(promptTemplateHomeKey(p.ID)),
		})
		var tx *TxCanceledError
		if errors.As(err, &tx) && tx.Failed() == 0 {
			// Gone, or renamed: read it again.
			if p, err = GetPromptTemplate(ctx, t, p.OrgID, p.ProjectID, p.ID); err != nil {
				return fmt.Errorf("delete prompt template: %w", err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("delete prompt template %s: %w", p.ID, err)
		}
		return nil
	}
	return fmt.Errorf("delete prompt template %s: renamed meanwhile: %w", p.ID, ErrConflict)
}

// deleteTemplateAttempts bounds the deletes of a template renamed between each read and its
// delete.
const deleteTemplateAttempts = 3

package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// The collaborators of a prompt template: users and groups, each with one of the roles
// datasets use (owner, editor, annotator, viewer), in the template's partition.

// Kinds of template collaborator.
const (
	CollaboratorUser  = "USER"
	CollaboratorGroup = "GROUP"
)

// EntityTemplateCollaborator is the entity of a collaborator record.
const EntityTemplateCollaborator = "prompt_template_collaborator"

// TemplateCollaborator is a user's or a group's role on a template.
type TemplateCollaborator struct {
	ID          string    `json:"id"`
	TemplateID  string    `json:"template_id"`
	Kind        string    `json:"kind"`         // CollaboratorUser or CollaboratorGroup
	PrincipalID string    `json:"principal_id"` // the user's or the group's id
	Role        string    `json:"role"`
	CreatedAt   time.Time `json:"created_at"`
}

func templateCollaboratorKey(templateID, kind, principalID string) Key {
	return Key{PK: "PTEMPLATE#" + templateID, SK: kind + "#" + principalID}
}

// AddTemplateCollaborators stores cs (at most 100) all or none; a collaborator the template
// has already is a *CollaboratorExistsError naming its index in cs.
func AddTemplateCollaborators(ctx context.Context, t Table, cs []TemplateCollaborator) error {
	ops := make([]Op, len(cs))
	for i, c := range cs {
		it, err := Marshal(c)
		if err != nil {
			return err
		}
		k := templateCollaboratorKey(c.TemplateID, c.Kind, c.PrincipalID)
		ops[i] = PutOp(it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityTemplateCollaborator), NotExists())
	}
	err := t.Transact(ctx, ops)
	var tx *TxCanceledError
	if errors.As(err, &tx) && tx.Failed() >= 0 {
		return &CollaboratorExistsError{Index: tx.Failed()}
	}
	if err != nil {
		return fmt.Errorf("add template collaborators: %w", err)
	}
	return nil
}

// CollaboratorExistsError is a collaborator added twice.
type CollaboratorExistsError struct{ Index int }

func (e *CollaboratorExistsError) Error() string {
	return fmt.Sprintf("store: collaborator %d is one already", e.Index)
}

// TemplateCollaborators reads the collaborators of one kind, in the order they were added
// (then by id).
func TemplateCollaborators(ctx context.Context, t Table, templateID, kind string) ([]TemplateCollaborator, error) {
	items, err := queryAllStored(ctx, t, Query{PK: "PTEMPLATE#" + templateID, SKOp: SKPrefix, From: kind + "#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("collaborators of prompt template %s: %w", templateID, err)
	}
	out := make([]TemplateCollaborator, 0, len(items))
	for _, it := range items {
		var c TemplateCollaborator
		if err := it.Decode(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// SetTemplateCollaboratorRole changes the role of a collaborator and returns it;
// ErrNotFound when the template has no such collaborator.
func SetTemplateCollaboratorRole(ctx context.Context, t Table, templateID, kind, principalID, role string) (TemplateCollaborator, error) {
	it, err := t.Update(ctx, Update{Key: templateCollaboratorKey(templateID, kind, principalID), Conds: []Cond{Exists()},
		Set: map[string]any{"role": role}})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return TemplateCollaborator{}, fmt.Errorf("collaborator %s of prompt template %s: %w", principalID, templateID, err)
	}
	var c TemplateCollaborator
	return c, Unmarshal(it, &c)
}

// RemoveTemplateCollaborator removes a collaborator; ErrNotFound when there is none.
func RemoveTemplateCollaborator(ctx context.Context, t Table, templateID, kind, principalID string) error {
	err := t.Delete(ctx, templateCollaboratorKey(templateID, kind, principalID), Exists())
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("remove collaborator %s of prompt template %s: %w", principalID, templateID, err)
	}
	return nil
}

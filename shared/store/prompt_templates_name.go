package store

import (
	"context"
	"fmt"
	"strings"
)

// Prompt templates found by name: the name claims of a template's scope (its project, or
// the organization's templates of no project) name their template.

// PromptTemplateIDByName reads the id of the template called name of the project (of no
// project when projectID is "") and organization: one strongly consistent read of its name
// claim, so that the caller can read the template and its versions at once. ErrNotFound when
// there is none. The caller reads the template with GetPromptTemplate, which checks its
// organization.
func PromptTemplateIDByName(ctx context.Context, t Table, orgID, projectID, name string) (string, error) {
	scope := promptTemplateKey(orgID, projectID, "").PK
	claim, err := t.Get(ctx, nameClaim(scope, "TEMPLATE", name, Key{}).Key(), true)
	if err != nil {
		return "", fmt.Errorf("prompt template named %q: %w", name, err)
	}
	id, ok := strings.CutPrefix(str(claim["owner_sk"]), "TEMPLATE#")
	if !ok || id == "" {
		return "", fmt.Errorf("prompt template named %q: claim owns %q: %w", name, str(claim["owner_sk"]), ErrNotFound)
	}
	return id, nil
}

// PromptTemplateNames reads the names taken in the scope of a template of the project (of
// no project when projectID is ""): one strongly consistent query of its name claims.
func PromptTemplateNames(ctx context.Context, t Table, orgID, projectID string) (map[string]bool, error) {
	scope := promptTemplateKey(orgID, projectID, "").PK
	items, err := QueryAll(ctx, t, Query{PK: scope, SKOp: SKPrefix, From: "NAME#TEMPLATE#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("prompt template names: %w", err)
	}
	taken := make(map[string]bool, len(items))
	for _, it := range items {
		taken[str(it["name"])] = true
	}
	return taken, nil
}

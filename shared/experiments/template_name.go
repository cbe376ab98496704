package experiments

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// A new template's name: a string, or the original's Name object {value,
// append_suffix_if_duplicate}. With the suffix asked for, a taken name becomes the first free
// of "name (1)", "name (2)", … in the template's scope (its project, or the organization's
// templates of no project), as datasets do; without it a taken name is a 422.

// readTemplateName reads the name of a new template and whether a taken one gets a suffix.
func readTemplateName(nv validate.Value) (name string, suffix bool) {
	if _, isObject := nv.Raw().(map[string]any); isObject {
		if o, ok := nv.Object(); ok {
			name, _ = o.Get("value").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
			suffix, _ = o.Get("append_suffix_if_duplicate").Bool()
		}
		return name, suffix
	}
	name, _ = nv.String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	return name, false
}

// suffixAttempts bounds the creates of a suffixed template whose free name another writer
// took between the read of the names and the create.
const suffixAttempts = 4

// createSuffixed stores p (named as asked, or with the first free suffix) with its version
// v. The names are read first, so a name taken many times costs one query, not one
// transaction per suffix; a race for the chosen name reads them again.
func (h *handlers) createSuffixed(ctx context.Context, p store.PromptTemplate, v store.PromptTemplateVersion) (store.PromptTemplate, store.PromptTemplateVersion, error) {
	base := p.Name
	for range suffixAttempts {
		taken, err := store.PromptTemplateNames(ctx, h.Table, p.OrgID, p.ProjectID)
		if err != nil {
			return p, v, err
		}
		p.Name = freeName(base, taken)
		if len(p.Name) > maxNameLen {
			return p, v, validate.Single(validate.ValueError([]any{"body", "name", "value"}, base,
				fmt.Sprintf("the name with its suffix, '%s', is longer than %d characters", p.Name, maxNameLen)))
		}
		gotP, gotV, err := store.CreatePromptTemplate(ctx, h.Table, p, v)
		if !errors.Is(err, store.ErrNameTaken) {
			return gotP, gotV, err
		}
	}
	// Every chosen name was taken meanwhile by other creates: a retry finds the names settled.
	return p, v, httpapi.Unavailable("Prompt templates of this name are being created by other requests; retry")
}

// freeName is name when it is not taken, else the first "name (n)" that is not, n from 1.
func freeName(name string, taken map[string]bool) string {
	candidate := name
	for i := 1; taken[candidate]; i++ {
		candidate = fmt.Sprintf("%s (%d)", name, i)
	}
	return candidate
}

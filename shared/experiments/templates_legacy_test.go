package experiments

import (
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
)

// TestTemplatesStoredBeforeTheGlobalRoutes: a template as the project routes stored it before
// the global routes (no home record, no GSI1 attributes) is not found by id alone until the
// project routes read it; from then on every global route finds it.
func TestTemplatesStoredBeforeTheGlobalRoutes(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarness(t, tbl)
		u := &h.org.User
		pid := h.project(h.org)
		id := uuid.NewString()
		p := store.PromptTemplate{ID: id, ProjectID: pid, OrgID: h.org.ID, Name: "old", VersionCount: 1,
			CreatedBy: u.UserID, CreatedAt: testNow, UpdatedAt: testNow}
		v := store.PromptTemplateVersion{ID: uuid.NewString(), TemplateID: id, Template: "old {{x}}", CreatedBy: u.UserID, CreatedAt: testNow}
		put := func(rec any, pk, sk, entity string) {
			it, err := store.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			if err := tbl.Put(t.Context(), it.With(store.AttrPK, pk, store.AttrSK, sk, store.AttrEntity, entity)); err != nil {
				t.Fatal(err)
			}
		}
		put(p, "PROJECT#"+pid, "TEMPLATE#"+id, store.EntityPromptTemplate)
		put(v, "PTEMPLATE#"+id, "VERSION#000000", store.EntityPromptTemplateVersion)

		if code, _ := h.do(u, "GET", "/v2/templates/"+id, ""); code != 404 {
			t.Fatalf("an unindexed template found by id alone: %d", code)
		}
		if got := h.must(u, "GET", "/v2/projects/"+pid+"/templates/"+id, ""); got["name"] != "old" {
			t.Fatalf("the project route: %v", got)
		}
		if got := h.must(u, "GET", "/v2/templates/"+id, ""); got["name"] != "old" || got["template"] != "old {{x}}" {
			t.Errorf("after the project route read it: %v", got)
		}
		q := h.must(u, "POST", "/v2/templates/query", `{"filters":[{"name":"name","operator":"eq","value":"old"}]}`)
		if ts := q["templates"].([]any); len(ts) != 1 || ts[0].(map[string]any)["id"] != id {
			t.Errorf("query after the project route read it: %v", q)
		}
		h.must(u, "DELETE", "/v2/templates/"+id, "")
		if code, _ := h.do(u, "GET", "/v2/projects/"+pid+"/templates/"+id, ""); code != 404 {
			t.Errorf("the project route after a global delete: %d", code)
		}
	})
}

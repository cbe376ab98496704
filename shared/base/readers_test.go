package base_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/validate"
)

func readName(errs *validate.Errors, raw any, present bool) (name string) {
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		name, _ = o.Get("name").Required().String()
	}
	return name
}

// answer answers what read made of the request, opened with o.
func answer[In any](o base.Opening, read func(*base.Input) In, out func(In) any) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		call, err := base.Open(r, o, read)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, out(call.In))
		return nil
	}
}

func TestReaders(t *testing.T) {
	caller := &auth.Caller{OrgID: "o1", UserID: "u1", Role: auth.RoleUser}
	v1 := known[:14] + "1" + known[15:] // a version 1 UUID
	byID := answer(base.Opening{Body: true}, base.ByID("thing_id", 4, readName), func(k base.Keyed[string]) any { return []string{k.ID, k.Req} })
	pathID := answer(base.Opening{}, base.PathID("thing_id", 0), func(id string) any { return id })
	body := answer(base.Opening{Body: true}, base.ReadBody(readName), func(s string) any { return s })
	specs := []collection.SortSpec{{Name: "name", SortType: "column"}}
	list := func(o base.Opening) func(http.ResponseWriter, *http.Request) error {
		return answer(o, base.ReadList(nil, specs, collection.Sort{Name: "created_at"}), func(l base.List) any {
			return []any{l.Start, l.Limit, l.Sort.Name, l.Sort.Ascending, len(l.Filters)}
		})
	}
	for _, tc := range []struct {
		name   string
		h      func(http.ResponseWriter, *http.Request) error
		target string
		body   string
		status int
		want   string
	}{
		{"ByID: the id (canonical) and the body", byID, "/things/" + strings.ToUpper(known), `{"name":"a"}`, 200, `["` + known + `","a"]`},
		{"ByID: path before body", byID, "/things/" + v1, `{}`, 422,
			`{"detail":[{"type":"uuid_version","loc":["path","thing_id"],"msg":"UUID version 4 expected","input":"` + v1 + `","ctx":{"expected_version":4}},` +
				`{"type":"missing","loc":["body","name"],"msg":"Field required","input":{}}]}`},
		{"PathID: any version", pathID, "/things/" + v1, ``, 200, `"` + v1 + `"`},
		{"ReadBody", body, "/things/x", `{"name":"b"}`, 200, `"b"`},
		{"ReadList: defaults", list(base.Opening{Body: true}), "/things/x", ``, 200, `[0,100,"created_at",false,0]`},
		{"ReadList: page and sort", list(base.Opening{Body: true}), "/things/x?starting_token=5&limit=2", `{"sort":{"name":"name","ascending":true}}`, 200, `[5,2,"name",true,0]`},
		{"ReadList: query before body", list(base.Opening{Body: true}), "/things/x?limit=0", `{"sort":1}`, 422,
			`{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 1","input":"0","ctx":{"ge":1}},{"type":"model_attributes_type"`},
		{"ReadList: no body read without Opening.Body", list(base.Opening{}), "/things/x", `{"sort":1}`, 200, `[0,100,"created_at",false,0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(tc.h, caller, tc.target, tc.body)
			got := strings.TrimSpace(rec.Body.String())
			if rec.Code != tc.status || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("%d %s\nwant %d %s", rec.Code, got, tc.status, tc.want)
			}
		})
	}
}

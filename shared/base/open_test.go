package base_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/validate"
)

const known = "5f0c6a8e-3b2d-4c1a-9e7f-0a1b2c3d4e5f"

type thingIn struct {
	id    string
	limit int
	name  string
}

func readThing(in *base.Input) (t thingIn) {
	t.id, _ = in.Path("thing_id").UUID(4)
	_, t.limit = in.Page()
	if o, ok := in.Body().Required().Object(); ok {
		t.name, _ = o.Get("name").Required().String(validate.MinLen(1))
	}
	return t
}

// thing is a handler as the groups write them: the opening, then the access step
// (404 for an unknown thing), then the write check after it.
func thing(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Limit: 64}, readThing)
	if err != nil {
		return err
	}
	if call.In.id != known {
		return httpapi.NotFound("Thing")
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"name": call.In.name, "limit": call.In.limit, "org": call.Caller.OrgID})
	return nil
}

// create is a handler whose write check comes right after validation (Opening.Write).
func create(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, func(in *base.Input) string {
		s, _ := in.Body().Required().String()
		return s
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, call.In)
	return nil
}

// admin is a handler only organization admins may call (Opening.Admin).
func admin(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Admin: true}, func(in *base.Input) string {
		s, _ := in.Body().Required().String()
		return s
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, call.In)
	return nil
}

func serve(h func(http.ResponseWriter, *http.Request) error, caller *auth.Caller, target, body string) *httptest.ResponseRecorder {
	mux := http.NewServeMux()
	mux.HandleFunc("/things/{thing_id}", func(w http.ResponseWriter, r *http.Request) {
		if caller != nil {
			r = r.WithContext(auth.WithCaller(r.Context(), *caller))
		}
		if err := h(w, r); err != nil {
			httpapi.WriteError(w, r, slog.New(slog.DiscardHandler), err)
		}
	})
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, target, rd)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	return rec
}

func TestOpenOrder(t *testing.T) {
	writer := &auth.Caller{OrgID: "o1", UserID: "u1", Role: auth.RoleUser}
	reader := &auth.Caller{OrgID: "o1", UserID: "u2", Role: auth.RoleReadOnly}
	const unknown = "6f0c6a8e-3b2d-4c1a-9e7f-0a1b2c3d4e5f"
	allBad := `{"detail":[` +
		`{"type":"uuid_parsing","loc":["path","thing_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`x`" + ` at 1","input":"x","ctx":{"error":"invalid character: found ` + "`x`" + ` at 1"}},` +
		`{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 1","input":"0","ctx":{"ge":1}},` +
		`{"type":"string_too_short","loc":["body","name"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]}`
	for _, tc := range []struct {
		name   string
		h      func(http.ResponseWriter, *http.Request) error
		caller *auth.Caller
		target string
		body   string
		status int
		want   string // the body, or a prefix of it ending in "…"
	}{
		{"no caller before anything", thing, nil, "/things/x?limit=0", `{"name":""}`, 401, `{"detail":"Not authenticated"}`},
		{"no caller before a malformed body", thing, nil, "/things/x", `{`, 401, `{"detail":"Not authenticated"}`},
		{"path, query and body problems in one 422, in that order", thing, reader, "/things/x?limit=0", `{"name":""}`, 422, allBad},
		{"422 before 404", thing, writer, "/things/" + unknown + "?limit=0", `{"name":"a"}`, 422, `{"detail":[{"type":"greater_than_equal","loc":["query","limit"]…`},
		{"422 before 403", thing, reader, "/things/" + known, `{}`, 422, `{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{}}]}`},
		{"missing body", thing, writer, "/things/" + known, ``, 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"malformed JSON alone, before the path", thing, writer, "/things/x", `{`, 422, `{"detail":[{"type":"json_invalid","loc":["body",1]…`},
		{"too large a body", thing, writer, "/things/" + known, `{"name":"` + strings.Repeat("a", 64) + `"}`, 413, `{"detail":"Request body too large"}`},
		{"404 before 403", thing, reader, "/things/" + unknown, `{"name":"a"}`, 404, `{"detail":"Thing not found"}`},
		{"403 last", thing, reader, "/things/" + known, `{"name":"a"}`, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"the handler runs", thing, writer, "/things/" + known + "?limit=5", `{"name":"a"}`, 200, `{"limit":5,"name":"a","org":"o1"}`},
		{"Write: 422 before 403", create, reader, "/things/x", `1`, 422, `{"detail":[{"type":"string_type","loc":["body"]…`},
		{"Write: 403 after validation", create, reader, "/things/x", `"a"`, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"Write: a writer passes", create, writer, "/things/x", `"a"`, 200, `"a"`},
		{"Admin: 422 before 403", admin, writer, "/things/x", ``, 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"Admin: 403 after validation", admin, writer, "/things/x", `"a"`, 403, `{"detail":"Only organization admins can perform this action"}`},
		{"Admin: an admin passes", admin, &auth.Caller{OrgID: "o1", Role: auth.RoleAdmin}, "/things/x", `"a"`, 200, `"a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(tc.h, tc.caller, tc.target, tc.body)
			got := strings.TrimSpace(rec.Body.String())
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, got)
			}
			if prefix, ok := strings.CutSuffix(tc.want, "…"); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Fatalf("body %s\nwant prefix %s", got, prefix)
				}
			} else if got != tc.want {
				t.Fatalf("body %s\nwant %s", got, tc.want)
			}
		})
	}
}

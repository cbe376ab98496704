package apptest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
)

func TestAdminAuthenticates(t *testing.T) {
	d := apptest.Deps(t)
	admin := apptest.Admin(t, d)
	rt := app.NewRouter(d, groups.Identity)
	v := apitest.Validator(t)
	for _, h := range []string{"Service-API-Key", "Vendor-AO-API-Key"} {
		req := httptest.NewRequest(http.MethodGet, "/v2/current_user", nil)
		req.Header.Set(h, admin.APIKey.RevealString())
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("%s: %d %s", h, rec.Code, rec.Body)
		}
		v.CheckRecorder(t, req, rec)
	}
	req := httptest.NewRequest(http.MethodGet, "/v2/current_user", nil)
	req.SetBasicAuth(admin.Email, admin.Password.RevealString())
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("basic: %d %s", rec.Code, rec.Body)
	}
	v.CheckRecorder(t, req, rec)
}

package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
)

var identityT0 = time.Date(2026, 7, 8, 9, 10, 11, 120000000, time.UTC)

func newIdentityUser(orgID, email string) store.User {
	return store.User{ID: uuid.NewString(), OrgID: orgID, Email: email, FirstName: "F", LastName: "L",
		Role: "user", State: store.UserActive, CreatedAt: identityT0, UpdatedAt: identityT0}
}

func TestUsers(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		orgA, orgB := uuid.NewString(), uuid.NewString()
		email := "Ada-" + uuid.NewString()[:8] + "@Example.com"
		u := newIdentityUser(orgA, email)
		if err := store.CreateUser(ctx, tbl, u, "$argon2id$hash"); err != nil {
			t.Fatal(err)
		}

		dup := newIdentityUser(orgB, strings.ToUpper(email))
		if err := store.CreateUser(ctx, tbl, dup, ""); !errors.Is(err, store.ErrAlreadyExists) {
			t.Fatalf("duplicate e-mail: %v, want ErrAlreadyExists", err)
		}
		if _, _, err := store.GetUser(ctx, tbl, dup.ID, true); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the refused user was written: %v", err)
		}

		got, a, err := store.UserByEmail(ctx, tbl, " "+strings.ToLower(email))
		if err != nil || got.ID != u.ID || got.Email != strings.ToLower(email) || a.PasswordHash != "$argon2id$hash" {
			t.Fatalf("by e-mail: %+v %+v %v", got, a, err)
		}
		if got, err := store.OrgUserByEmail(ctx, tbl, orgA, email); err != nil || got.ID != u.ID {
			t.Fatalf("org user by e-mail: %+v %v", got, err)
		}
		if _, err := store.OrgUserByEmail(ctx, tbl, orgB, email); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("user found by e-mail from another org: %v", err)
		}
		if _, _, err := store.UserByEmail(ctx, tbl, "nobody@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown e-mail: %v", err)
		}
		if _, err := store.OrgUser(ctx, tbl, orgB, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("user read from another org: %v", err)
		}
		users, err := store.OrgUsers(ctx, tbl, orgA, []string{u.ID, u.ID, uuid.NewString()})
		if err != nil || len(users) != 1 || users[0].ID != u.ID {
			t.Fatalf("org users: %+v %v", users, err)
		}
		other := newIdentityUser(orgA, "aaa-"+uuid.NewString()[:8]+"@example.com")
		if err := store.CreateUser(ctx, tbl, other, ""); err != nil {
			t.Fatal(err)
		}
		eventuallyIdentity(t, "users of an org", func() (bool, error) {
			us, err := store.ListOrgUsers(ctx, tbl, orgA)
			return len(us) == 2 && us[0].ID == other.ID && us[1].ID == u.ID, err
		})
		if b, _ := json.Marshal(got); strings.Contains(string(b), "argon2") {
			t.Fatalf("a User encodes its credential: %s", b)
		}
	})
}

// TestSessions holds a session's refresh-token swap to one winner, and its validity to what
// it was derived from: its API key, the user's password and state, the user's existence.
func TestSessions(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		u := newIdentityUser(uuid.NewString(), uuid.NewString()+"@example.com")
		if err := store.CreateUser(ctx, tbl, u, "$argon2id$hash"); err != nil {
			t.Fatal(err)
		}
		key := store.APIKey{ID: uuid.NewString(), OrgID: u.OrgID, UserID: u.ID, Description: "k", CreatedAt: identityT0, UpdatedAt: identityT0}
		if err := store.CreateAPIKey(ctx, tbl, key, "digest"); err != nil {
			t.Fatal(err)
		}
		pw := store.Session{ID: uuid.NewString(), UserID: u.ID, OrgID: u.OrgID, Source: store.SourcePassword, CreatedAt: identityT0}
		ks := store.Session{ID: uuid.NewString(), UserID: u.ID, OrgID: u.OrgID, Source: store.SourceAPIKey, APIKeyID: key.ID, CreatedAt: identityT0}
		exp := identityT0.Add(time.Hour)
		for _, s := range []store.Session{pw, ks} {
			if err := store.CreateSession(ctx, tbl, s, "j1-"+s.ID, exp); err != nil {
				t.Fatal(err)
			}
		}
		if err := store.CreateSession(ctx, tbl, pw, "again", exp); !errors.Is(err, store.ErrConditionFailed) {
			t.Fatalf("the same session twice: %v", err)
		}
		state := func(s store.Session) store.SessionState {
			t.Helper()
			st, err := store.ReadSessionState(ctx, tbl, u.ID, s.ID, s.APIKeyID, true)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		valid := func(name string, s store.Session, want bool) {
			t.Helper()
			if ok, why := state(s).Valid(identityT0.Add(time.Minute)); ok != want {
				t.Fatalf("%s: session %s valid = %v (%s), want %v", name, s.Source, ok, why, want)
			}
		}
		valid("new", pw, true)
		valid("new", ks, true)
		if st := state(pw); st.RefreshJTI != "j1-"+pw.ID || st.Key != nil || st.User == nil || st.User.ID != u.ID {
			t.Fatalf("state: %+v", st)
		}

		if err := store.SwapSessionJTI(ctx, tbl, u.ID, pw.ID, "j1-"+pw.ID, "j2", exp); err != nil {
			t.Fatal(err)
		}
		if err := store.SwapSessionJTI(ctx, tbl, u.ID, pw.ID, "j1-"+pw.ID, "j3", exp); !errors.Is(err, store.ErrConditionFailed) {
			t.Fatalf("swap of a spent token: %v", err)
		}
		if st := state(pw); st.RefreshJTI != "j2" {
			t.Fatalf("live token %q, want j2", st.RefreshJTI)
		}

		if _, err := store.RevokeAPIKey(ctx, tbl, u.ID, key.ID, identityT0); err != nil {
			t.Fatal(err)
		}
		valid("key revoked", ks, false)
		valid("key revoked", pw, true)

		if err := store.SetPassword(ctx, tbl, u.ID, "$argon2id$new", identityT0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		valid("password changed", pw, false)
		later := pw
		later.ID, later.CreatedAt = uuid.NewString(), identityT0.Add(2*time.Second)
		if err := store.CreateSession(ctx, tbl, later, "j", exp); err != nil {
			t.Fatal(err)
		}
		valid("started after the change", later, true)

		off := store.UserDeactivated
		if _, err := store.UpdateUser(ctx, tbl, u.OrgID, u.ID, store.UserChange{State: &off}, identityT0); err != nil {
			t.Fatal(err)
		}
		valid("user deactivated", later, false)
		if _, err := store.UpdateUser(ctx, tbl, uuid.NewString(), u.ID, store.UserChange{State: &off}, identityT0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update from another organization: %v", err)
		}

		ids, err := store.DeleteUserSessions(ctx, tbl, u.ID)
		if err != nil || len(ids) != 3 {
			t.Fatalf("delete sessions: %v %v", ids, err)
		}
		if st := state(later); st.Session != nil {
			t.Fatalf("a session survived logout everywhere: %+v", st.Session)
		}
		if err := store.DeleteUser(ctx, tbl, u.OrgID, u.ID); err != nil {
			t.Fatal(err)
		}
		if st := state(later); st.User != nil {
			t.Fatal("the user survived its deletion")
		}
		if _, _, err := store.UserByEmail(ctx, tbl, u.Email); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the e-mail claim survived the user: %v", err)
		}
		if err := store.DeleteUser(ctx, tbl, u.OrgID, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleting twice: %v", err)
		}
	})
}

func TestAPIKeyRecords(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		org, user := uuid.NewString(), uuid.NewString()
		exp := identityT0.Add(time.Hour)
		older := store.APIKey{ID: uuid.NewString(), OrgID: org, UserID: user, Description: "b", CreatedAt: identityT0, UpdatedAt: identityT0}
		newer := store.APIKey{ID: uuid.NewString(), OrgID: org, UserID: user, Description: "a", CreatedAt: identityT0.Add(time.Second),
			UpdatedAt: identityT0, ExpiresAt: &exp}
		for _, k := range []store.APIKey{newer, older} {
			if err := store.CreateAPIKey(ctx, tbl, k, "digest-"+k.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := store.CreateAPIKey(ctx, tbl, older, "x"); !errors.Is(err, store.ErrAlreadyExists) {
			t.Fatalf("same id twice: %v", err)
		}
		it, err := tbl.Get(ctx, store.APIKeyKey(newer.ID), true)
		if err != nil || it[store.AttrExpiresAt] != nil || it["key_expires_at"] == nil {
			t.Fatalf("the expiry must not be the TTL attribute: %v %v", it, err)
		}
		k, digest, err := store.APIKeyAuth(ctx, tbl, newer.ID)
		if err != nil || digest != "digest-"+newer.ID || !k.ExpiresAt.Equal(exp) || !k.Usable(identityT0) || k.Usable(exp) {
			t.Fatalf("auth read: %+v %q %v", k, digest, err)
		}
		eventuallyIdentity(t, "list keys", func() (bool, error) {
			keys, err := store.UserAPIKeys(ctx, tbl, user)
			return len(keys) == 2 && keys[0].ID == older.ID && keys[1].ID == newer.ID, err
		})

		if _, err := store.RevokeAPIKey(ctx, tbl, uuid.NewString(), older.ID, identityT0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke by another user: %v", err)
		}
		if _, err := store.RevokeAPIKey(ctx, tbl, user, uuid.NewString(), identityT0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke an absent key: %v", err)
		}
		if _, err := tbl.Get(ctx, store.APIKeyKey(uuid.NewString()), true); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("revoking an absent key created it")
		}
		r, err := store.RevokeAPIKey(ctx, tbl, user, older.ID, identityT0)
		if err != nil || !r.Revoked || r.Usable(identityT0) {
			t.Fatalf("revoke: %+v %v", r, err)
		}

		// last_used_at is a compare-and-swap on the value read.
		t1, t2 := identityT0.Add(time.Minute), identityT0.Add(2*time.Minute)
		touches := []struct {
			name string
			prev *time.Time
			now  time.Time
			fail bool
		}{
			{"first use", nil, t1, false},
			{"stale first use", nil, t2, true},
			{"next use", &t1, t2, false},
			{"stale next use", &t1, t2.Add(time.Minute), true},
		}
		for _, tt := range touches {
			err := store.TouchAPIKey(ctx, tbl, newer.ID, tt.prev, tt.now)
			if tt.fail != errors.Is(err, store.ErrConditionFailed) || (!tt.fail && err != nil) {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		k, _, _ = store.APIKeyAuth(ctx, tbl, newer.ID)
		if k.LastUsedAt == nil || !k.LastUsedAt.Equal(t2) {
			t.Fatalf("last used %v, want %v", k.LastUsedAt, t2)
		}
		if err := store.TouchAPIKey(ctx, tbl, uuid.NewString(), nil, t1); !errors.Is(err, store.ErrConditionFailed) {
			t.Fatalf("touching an absent key: %v", err)
		}
	})
}

func TestGroupRecords(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		orgA, orgB := uuid.NewString(), uuid.NewString()
		g := store.Group{ID: uuid.NewString(), OrgID: orgA, Name: "Team", Visibility: "public", CreatedAt: identityT0}
		if err := store.CreateGroup(ctx, tbl, g); err != nil {
			t.Fatal(err)
		}
		same := store.Group{ID: uuid.NewString(), OrgID: orgA, Name: "TEAM", Visibility: "public", CreatedAt: identityT0}
		if err := store.CreateGroup(ctx, tbl, same); !errors.Is(err, store.ErrAlreadyExists) {
			t.Fatalf("same name: %v", err)
		}
		elsewhere := store.Group{ID: uuid.NewString(), OrgID: orgB, Name: "Team", Visibility: "public", CreatedAt: identityT0}
		if err := store.CreateGroup(ctx, tbl, elsewhere); err != nil {
			t.Fatalf("same name in another org: %v", err)
		}
		if got, err := store.GetGroup(ctx, tbl, orgA, g.ID); err != nil || got.Name != "Team" {
			t.Fatalf("get: %+v %v", got, err)
		}
		if _, err := store.GetGroup(ctx, tbl, orgB, g.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("group read from another org: %v", err)
		}
		eventuallyIdentity(t, "groups of an org", func() (bool, error) {
			gs, err := store.ListOrgGroups(ctx, tbl, orgB)
			return len(gs) == 1 && gs[0].ID == elsewhere.ID, err
		})

		u1, u2 := uuid.NewString(), uuid.NewString()
		m := func(gid, org, uid string) store.GroupMember {
			return store.GroupMember{GroupID: gid, UserID: uid, OrgID: org, Role: "member", CreatedAt: identityT0}
		}
		if err := store.AddGroupMembers(ctx, tbl, []store.GroupMember{m(g.ID, orgA, u1)}); err != nil {
			t.Fatal(err)
		}
		err := store.AddGroupMembers(ctx, tbl, []store.GroupMember{m(g.ID, orgA, u2), m(g.ID, orgA, u1)})
		if !errors.Is(err, store.ErrAlreadyExists) {
			t.Fatalf("existing member: %v", err)
		}
		if ms, err := store.GroupMembers(ctx, tbl, g.ID); err != nil || len(ms) != 1 || ms[0].UserID != u1 {
			t.Fatalf("members after a refused add: %+v %v", ms, err)
		}
		// A membership of another organization's group is not the user's in orgA.
		if err := store.AddGroupMembers(ctx, tbl, []store.GroupMember{m(elsewhere.ID, orgB, u1)}); err != nil {
			t.Fatal(err)
		}
		eventuallyIdentity(t, "groups of a user", func() (bool, error) {
			gs, err := store.UserGroups(ctx, tbl, orgA, u1)
			return len(gs) == 1 && gs[0].ID == g.ID, err
		})
		if gs, err := store.UserGroups(ctx, tbl, orgA, u2); err != nil || len(gs) != 0 {
			t.Fatalf("groups of a non-member: %+v %v", gs, err)
		}
	})
}

func TestBootstrapRecords(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		if found, err := store.AnyOrg(ctx, tbl); err != nil || found {
			t.Fatalf("empty table has an org: %v %v", found, err)
		}
		boot := func() error {
			o := store.Org{ID: uuid.NewString(), Name: "first", CreatedAt: identityT0}
			u := newIdentityUser(o.ID, uuid.NewString()+"@example.com")
			k := store.APIKey{ID: uuid.NewString(), OrgID: o.ID, UserID: u.ID, CreatedAt: identityT0, UpdatedAt: identityT0}
			return store.Bootstrap(ctx, tbl, o, u, "hash", k, "digest")
		}
		if err := boot(); err != nil {
			t.Fatal(err)
		}
		if err := boot(); !errors.Is(err, store.ErrAlreadyExists) {
			t.Fatalf("second bootstrap: %v", err)
		}
		eventuallyIdentity(t, "any org", func() (bool, error) { return store.AnyOrg(ctx, tbl) })
	})
}

// lostAnswer applies each put and then answers that its condition failed, as a put retried
// by the SDK after its first answer was lost does.
type lostAnswer struct{ store.Table }

func (l lostAnswer) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	if err := l.Table.Put(ctx, it, conds...); err != nil {
		return err
	}
	return store.ErrConditionFailed
}

func TestCreateOrgSurvivesARetriedPut(t *testing.T) {
	tbl := testenv.Embedded(t)
	o := store.Org{ID: "org-retried", Name: "acme", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := store.CreateOrg(t.Context(), lostAnswer{tbl}, o); err != nil {
		t.Fatalf("a create whose retry found its own item failed: %v", err)
	}
	other := store.Org{ID: "org-retried", Name: "someone else", CreatedAt: o.CreatedAt}
	if err := store.CreateOrg(t.Context(), tbl, other); !errors.Is(err, store.ErrConditionFailed) {
		t.Fatalf("a create over another organization: %v, want ErrConditionFailed", err)
	}
}

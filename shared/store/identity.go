package store

import (
	"errors"
	"strings"
	"time"
)

// Identity records: organizations, users, API keys, groups and their members.
//
// Access patterns (table / index, partition, sort key):
//
//	organization            ORG#<org>          META               GSI2 ORGS / ORG#<org> (is there any org?)
//	first-install claim     INSTALL            META               one bootstrap per table
//	user                    USER#<user>        META               GSI2 ORG#<org> / USER#<email> (users of an org)
//	e-mail claim            EMAIL#<email>      META               unique e-mail, login by e-mail (strongly consistent)
//	API key                 APIKEY#<key id>    META               GSI1 USER#<user> / APIKEY#<created>#<key id>
//	group                   GROUP#<group>      META               GSI2 ORG#<org> / GROUP#<name>#<group>
//	group name claim        ORG#<org>          GROUPNAME#<name>   unique group name in an org
//	group member            GROUP#<group>      MEMBER#<user>      GSI1 USER#<user> / GROUP#<group> (groups of a user)
//	session                 USER#<user>        SESSION#<session>  one refresh-token family (sessions.go)
//
// E-mail addresses and group names are compared case-insensitively: their claim keys hold
// the lower-case form. Login reads the e-mail claim and then the user, both strongly
// consistently, so a user can log in the moment the create returns (a GSI could lag).
//
// Credential material (password hash, session refresh token ids, API-key digest) is stored on the
// items but kept out of the User and APIKey structs, so that no handler can leak it by
// encoding a record: it is read only through UserAuth and APIKeyAuth.

// Entity names (the entity attribute).
const (
	EntityOrg         = "org"
	EntityInstall     = "install"
	EntityUser        = "user"
	EntityEmail       = "email"
	EntityAPIKey      = "api_key"
	EntityGroup       = "group"
	EntityGroupName   = "group_name"
	EntityGroupMember = "group_member"
)

// Attributes of identity items that repositories update or condition on.
const (
	AttrPasswordHash      = "password_hash"
	AttrRefreshJTI        = "refresh_jti"
	AttrPasswordChangedAt = "password_changed_at"
	AttrSecretHash        = "secret_hash"
	AttrLastUsedAt        = "last_used_at"
	AttrRevoked           = "revoked"
	AttrRevokedAt         = "revoked_at"
	AttrUpdatedAt         = "updated_at"
)

// User states.
const (
	UserActive      = "active"      // has a password (or was created with one) and may log in
	UserInvited     = "invited"     // created without a password; cannot log in yet
	UserDeactivated = "deactivated" // turned off by an admin: no login, every session ended
)

// Group visibilities and member roles (the original service's values).
const (
	GroupPublic      = "public"
	GroupPrivate     = "private"
	GroupHidden      = "hidden"
	MemberMaintainer = "maintainer"
	MemberRegular    = "member"
)

// ErrAlreadyExists is returned (wrapped) by creates whose unique key is taken: an e-mail, a
// group name, a membership.
var ErrAlreadyExists = errors.New("store: already exists")

// Org is an organization: the boundary every read is scoped by.
type Org struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// User is a person of one organization. Role is the organization role (admin, manager,
// user, read_only); State is UserActive or UserInvited.
type User struct {
	ID        string    `json:"id"`
	OrgID     string    `json:"org_id"`
	Email     string    `json:"email"`
	FirstName string    `json:"first_name"`
	LastName  string    `json:"last_name"`
	Role      string    `json:"role"`
	State     string    `json:"state"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// UserAuth is the credential state of a user, read only by authentication.
type UserAuth struct {
	PasswordHash string `json:"password_hash,omitempty"` // PHC string; empty for invited users
	// PasswordChangedAt is when the password last changed: sessions started with a password
	// before it have ended.
	PasswordChangedAt *time.Time `json:"password_changed_at,omitempty"`
}

// APIKey is a user's API key without its secret digest.
//
// The expiry is stored as key_expires_at, not expires_at: expires_at is the table's TTL
// attribute, and an expired key must stay listable (and refusable) rather than vanish.
type APIKey struct {
	ID          string     `json:"id"`
	OrgID       string     `json:"org_id"`
	UserID      string     `json:"user_id"`
	Description string     `json:"description"`
	Truncated   string     `json:"truncated"` // the key's public head, shown in lists
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	ExpiresAt   *time.Time `json:"key_expires_at,omitempty"`
	LastUsedAt  *time.Time `json:"last_used_at,omitempty"`
	Revoked     bool       `json:"revoked"`
	RevokedAt   *time.Time `json:"revoked_at,omitempty"`
}

// Usable reports whether the key may authenticate at now.
func (k APIKey) Usable(now time.Time) bool {
	return !k.Revoked && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Group is a set of users of one organization that resources can be shared with.
type Group struct {
	ID          string    `json:"id"`
	OrgID       string    `json:"org_id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Visibility  string    `json:"visibility"`
	CreatedBy   string    `json:"created_by"`
	CreatedAt   time.Time `json:"created_at"`
}

// GroupMember is one user's membership of a group.
type GroupMember struct {
	GroupID   string    `json:"group_id"`
	UserID    string    `json:"user_id"`
	OrgID     string    `json:"org_id"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

const meta = "META"

// OrgKey, UserKey, EmailKey, APIKeyKey, GroupKey and GroupMemberKey are the primary keys of
// the identity items.
func OrgKey(id string) Key           { return Key{PK: "ORG#" + id, SK: meta} }
func UserKey(id string) Key          { return Key{PK: "USER#" + id, SK: meta} }
func EmailKey(email string) Key      { return Key{PK: "EMAIL#" + NormalizeEmail(email), SK: meta} }
func APIKeyKey(id string) Key        { return Key{PK: "APIKEY#" + id, SK: meta} }
func GroupKey(id string) Key         { return Key{PK: "GROUP#" + id, SK: meta} }
func GroupMemberKey(g, u string) Key { return Key{PK: "GROUP#" + g, SK: "MEMBER#" + u} }

func installKey() Key { return Key{PK: "INSTALL", SK: meta} }

func groupNameKey(orgID, name string) Key {
	return Key{PK: "ORG#" + orgID, SK: "GROUPNAME#" + strings.ToLower(name)}
}

// Partitions of the indexes.
func orgsPartition() string                 { return "ORGS" }
func orgPartition(orgID string) string      { return "ORG#" + orgID }
func userPartition(userID string) string    { return "USER#" + userID }
func memberSortKey(groupID string) string   { return "GROUP#" + groupID }
func apiKeySortKey(k APIKey) string         { return "APIKEY#" + stamp(k.CreatedAt) + "#" + k.ID }
func userSortKey(email string) string       { return "USER#" + NormalizeEmail(email) }
func groupSortKey(g Group) string           { return "GROUP#" + strings.ToLower(g.Name) + "#" + g.ID }
func stamp(t time.Time) string              { return t.UTC().Format("20060102T150405.000000000Z") }
func timeAttr(t time.Time) string           { return t.UTC().Format(time.RFC3339Nano) }
func keyAttrs(k Key) []any                  { return []any{AttrPK, k.PK, AttrSK, k.SK} }
func itemAt(k Key, it Item, kv ...any) Item { return it.With(append(keyAttrs(k), kv...)...) }

// NormalizeEmail is the form an e-mail is stored and compared in.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

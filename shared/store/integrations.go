package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Integration records: a user's model-provider integrations and the users they are shared with.
//
// Access patterns (table / index, partition, sort key):
//
//	integration             USER#<owner>         INTEGRATION#<provider>  GSI1 INTEGRATION#<id> / META
//	integration pointer     INTEGRATION#<id>     META                    owner and provider of an id
//	integration viewer      INTEGRATION#<id>     USER#<user>             one per user the owner shared with
//	                                                                     GSI1 USER#<user> / INTSHARE#<id>
//
// The viewer item carries its own index entry under the grantee, so that a user's shares
// are listed (SharedIntegrations) with nothing more to write or to keep in step: the share
// transaction is the same size, and whatever removes a viewer item removes its entry. It
// also names the integration's record (owner_id, provider), so the list reads the records
// with no pointer in between. Viewer items written before get both when the grantee next
// reads the integration (ListIntegrationShare); no stream step or migration is needed, as a
// viewer item never changes after it is written.
//
// One integration per owner and provider is the base key itself, so a create that races
// another is refused by the key. The pointer is written in the same transaction as the
// first version of the integration: sharing reads it strongly consistently (a GSI could lag
// behind a create just made) and conditions its transaction on it.
//
// Credentials are not here: the record keeps the reference of its one secret (shared/secrets)
// and the revision that the secret's value carries, so a reader can tell whether the settings
// and the secret were written by the same request.

// Entity names of integration items.
const (
	EntityIntegration             = "integration"
	EntityIntegrationPointer      = "integration_pointer"
	EntityIntegrationCollaborator = "integration_collaborator"
)

// AttrRevision is the attribute an integration replace is conditioned on.
const AttrRevision = "revision"

// MaxIntegrationShares bounds the users of one share request (and so its transaction).
const MaxIntegrationShares = 100

// Integration is one provider integration of a user, without its credentials.
type Integration struct {
	ID         string         `json:"id"`
	OrgID      string         `json:"org_id"`
	OwnerID    string         `json:"created_by"`
	Provider   string         `json:"provider"`
	Name       string         `json:"name"`
	Settings   map[string]any `json:"settings"`   // non-secret configuration, as the provider's body gave it
	SecretRef  string         `json:"secret_ref"` // what secrets.Store.Put returned
	Revision   string         `json:"revision"`   // changes on every write; the secret holds the same value
	IsSelected bool           `json:"is_selected"`
	IsDisabled bool           `json:"is_disabled"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
}

// IntegrationCollaborator is a user an integration is shared with.
type IntegrationCollaborator struct {
	ID            string    `json:"id"`
	IntegrationID string    `json:"integration_id"`
	OrgID         string    `json:"org_id"`
	UserID        string    `json:"user_id"`
	Role          string    `json:"role"`
	CreatedBy     string    `json:"created_by"`
	CreatedAt     time.Time `json:"created_at"`
	// The key of the integration's record, so that a user's shares are read with no
	// pointer in between (SharedIntegrations); absent on shares written before.
	OwnerID  string `json:"owner_id,omitempty"`
	Provider string `json:"provider,omitempty"`
}

// integrationPointer is the META item of an integration's partition.
type integrationPointer struct {
	ID       string `json:"id"`
	OrgID    string `json:"org_id"`
	OwnerID  string `json:"owner_id"`
	Provider string `json:"provider"`
}

const (
	integrationPrefix = "INTEGRATION#"
	intSharePrefix    = "INTSHARE#" // the GSI1 sort key of a viewer item under its user
)

func integrationKey(owner, provider string) Key {
	return Key{PK: userPartition(owner), SK: integrationPrefix + provider}
}
func integrationPartition(id string) string { return integrationPrefix + id }
func integrationPointerKey(id string) Key   { return Key{PK: integrationPartition(id), SK: meta} }
func integrationUserKey(id, user string) Key {
	return Key{PK: integrationPartition(id), SK: userPartition(user)}
}

// IntegrationShareError reports the collaborator (by index) whose user has access already.
type IntegrationShareError struct{ Index int }

func (e *IntegrationShareError) Error() string {
	return fmt.Sprintf("collaborator %d already has access", e.Index)
}

// Is makes errors.Is(err, ErrAlreadyExists) true.
func (e *IntegrationShareError) Is(target error) bool { return target == ErrAlreadyExists }

// OwnIntegration reads the integration of owner for provider, strongly consistently;
// ErrNotFound when there is none (or it belongs to another organization).
func OwnIntegration(ctx context.Context, t Table, orgID, owner, provider string) (Integration, error) {
	var in Integration
	if err := getOwned(ctx, t, integrationKey(owner, provider), orgID, &in, func() string { return in.OrgID }); err != nil {
		return Integration{}, fmt.Errorf("get %s integration of user %s: %w", provider, owner, err)
	}
	return in, nil
}

// GetIntegration reads an integration of organization orgID by id, strongly consistently;
// ErrNotFound when absent or another organization's.
func GetIntegration(ctx context.Context, t Table, orgID, id string) (Integration, error) {
	var p integrationPointer
	if err := getOwned(ctx, t, integrationPointerKey(id), orgID, &p, func() string { return p.OrgID }); err != nil {
		return Integration{}, fmt.Errorf("get integration %s: %w", id, err)
	}
	in, err := OwnIntegration(ctx, t, orgID, p.OwnerID, p.Provider)
	if err != nil {
		return Integration{}, err
	}
	if in.ID != id { // replaced by a new integration of the same provider
		return Integration{}, fmt.Errorf("get integration %s: %w", id, ErrNotFound)
	}
	return in, nil
}

func integrationItem(in Integration) (Item, error) {
	it, err := Marshal(in)
	if err != nil {
		return nil, err
	}
	return itemAt(integrationKey(in.OwnerID, in.Provider), it, AttrEntity, EntityIntegration,
		AttrGSI1PK, integrationPartition(in.ID), AttrGSI1SK, meta), nil
}

// CreateIntegration stores the first version of an integration with its pointer;
// ErrAlreadyExists when the owner has an integration of that provider already (another
// request created it meanwhile).
func CreateIntegration(ctx context.Context, t Table, in Integration) error {
	it, err := integrationItem(in)
	if err != nil {
		return err
	}
	p, err := Marshal(integrationPointer{ID: in.ID, OrgID: in.OrgID, OwnerID: in.OwnerID, Provider: in.Provider})
	if err != nil {
		return err
	}
	p = itemAt(integrationPointerKey(in.ID), p, AttrEntity, EntityIntegrationPointer)
	err = t.Transact(ctx, []Op{PutOp(it, NotExists()), PutOp(p, NotExists())})
	if errors.Is(err, ErrConditionFailed) {
		return fmt.Errorf("create %s integration of user %s: %w", in.Provider, in.OwnerID, ErrAlreadyExists)
	}
	if err != nil {
		return fmt.Errorf("create %s integration of user %s: %w", in.Provider, in.OwnerID, err)
	}
	return nil
}

// ReplaceIntegration writes a new version of an integration read with revision prev;
// ErrConditionFailed when another write came in between (read again and retry).
func ReplaceIntegration(ctx context.Context, t Table, in Integration, prev string) error {
	it, err := integrationItem(in)
	if err != nil {
		return err
	}
	if err := t.Put(ctx, it, Equals("id", in.ID), Equals(AttrRevision, prev)); err != nil {
		return fmt.Errorf("replace integration %s: %w", in.ID, err)
	}
	return nil
}

// IntegrationCollaboratorOf reads the share of an integration with user; ErrNotFound when
// the user has none.
func IntegrationCollaboratorOf(ctx context.Context, t Table, orgID, id, user string) (IntegrationCollaborator, error) {
	var c IntegrationCollaborator
	if err := getOwned(ctx, t, integrationUserKey(id, user), orgID, &c, func() string { return c.OrgID }); err != nil {
		return IntegrationCollaborator{}, fmt.Errorf("share of integration %s with user %s: %w", id, user, err)
	}
	return c, nil
}

// ShareIntegrationOps returns the actions that share integration id of organization orgID
// with cs, to run in one transaction with extra more actions of the caller's (the creation
// of invited users), which come after them. When the transaction has room, the actions
// start with a check that the integration still exists (checked); a full transaction of
// MaxTransactItems relies on the caller's strongly consistent read of it just before.
// Callers read a failure with ShareIntegrationError.
func ShareIntegrationOps(orgID, id string, cs []IntegrationCollaborator, extra int) (ops []Op, checked bool, err error) {
	if len(cs) > MaxIntegrationShares || len(cs)+extra > MaxTransactItems {
		return nil, false, fmt.Errorf("%w: %d collaborators and %d more actions do not fit one transaction", ErrInvalid, len(cs), extra)
	}
	if checked = len(cs)+extra < MaxTransactItems; checked {
		ops = append(ops, CheckOp(integrationPointerKey(id), Equals("org_id", orgID)))
	}
	for i, c := range cs {
		if c.IntegrationID != id || c.OrgID != orgID || c.UserID == "" {
			return nil, false, fmt.Errorf("%w: collaborator %d must name this integration, its organization and a user", ErrInvalid, i)
		}
		it, err := Marshal(c)
		if err != nil {
			return nil, false, err
		}
		ops = append(ops, PutOp(itemAt(integrationUserKey(id, c.UserID), it, AttrEntity, EntityIntegrationCollaborator,
			AttrGSI1PK, userPartition(c.UserID), AttrGSI1SK, intSharePrefix+id), NotExists()))
	}
	return ops, checked, nil
}

// ShareIntegrationError reads the failure of a transaction that starts with the actions of
// ShareIntegrationOps: ErrNotFound when the integration is gone, *IntegrationShareError
// when collaborator i has access already, ErrAlreadyExists for a later action (an invited
// user's e-mail taken meanwhile), else err itself.
func ShareIntegrationError(err error, id string, shares int, checked bool) error {
	var tx *TxCanceledError
	if err == nil || !errors.As(err, &tx) {
		return err
	}
	i := tx.Failed()
	if checked {
		if i == 0 {
			return fmt.Errorf("share integration %s: %w", id, ErrNotFound)
		}
		i--
	}
	switch {
	case i >= 0 && i < shares:
		return fmt.Errorf("share integration %s: %w", id, &IntegrationShareError{Index: i})
	case i >= shares:
		return fmt.Errorf("share integration %s: %w", id, ErrAlreadyExists)
	}
	return fmt.Errorf("share integration %s: %w", id, err)
}

// UserIntegrations lists the integrations owner has (one per provider), in provider order,
// in one query; other organizations' are left out.
func UserIntegrations(ctx context.Context, t Table, orgID, owner string) ([]Integration, error) {
	items, err := queryAllStored(ctx, t, Query{PK: userPartition(owner), SKOp: SKPrefix, From: integrationPrefix})
	if err != nil {
		return nil, fmt.Errorf("integrations of user %s: %w", owner, err)
	}
	out := make([]Integration, 0, len(items))
	for _, it := range items {
		var in Integration
		if err := it.Decode(&in); err != nil {
			return nil, fmt.Errorf("integrations of user %s: %w", owner, err)
		}
		if in.OrgID == orgID {
			out = append(out, in)
		}
	}
	return out, nil
}

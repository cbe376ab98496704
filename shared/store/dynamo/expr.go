package dynamo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// exprs collects the attribute names and values of the expressions of one request. Every
// name and value in an expression goes through a placeholder, so no caller data is ever part
// of expression syntax and reserved words need no thought.
type exprs struct {
	names  map[string]string // placeholder → attribute name
	values map[string]types.AttributeValue
	byName map[string]string // attribute name → placeholder, to reuse one per name
}

func newExprs() *exprs {
	return &exprs{names: map[string]string{}, values: map[string]types.AttributeValue{}, byName: map[string]string{}}
}

func (e *exprs) name(attr string) string {
	if p, ok := e.byName[attr]; ok {
		return p
	}
	p := "#n" + strconv.Itoa(len(e.byName))
	e.byName[attr] = p
	e.names[p] = attr
	return p
}

func (e *exprs) value(v any) (string, error) {
	av, err := toAV(v)
	if err != nil {
		return "", err
	}
	p := ":v" + strconv.Itoa(len(e.values))
	e.values[p] = av
	return p, nil
}

// attrNames and attrValues return nil for none: DynamoDB refuses empty maps.
func (e *exprs) attrNames() map[string]string {
	if len(e.names) == 0 {
		return nil
	}
	return e.names
}

func (e *exprs) attrValues() map[string]types.AttributeValue {
	if len(e.values) == 0 {
		return nil
	}
	return e.values
}

// condition renders conds AND-ed; "" for none.
func (e *exprs) condition(conds []store.Cond) (string, error) {
	parts := make([]string, 0, len(conds))
	for _, c := range conds {
		var s string
		switch c.Kind {
		case store.CondNotExists:
			s = "attribute_not_exists(" + e.name(store.AttrPK) + ")"
		case store.CondExists:
			s = "attribute_exists(" + e.name(store.AttrPK) + ")"
		case store.CondEquals:
			if c.Attr == "" {
				return "", fmt.Errorf("%w: Equals condition without an attribute", store.ErrInvalid)
			}
			v, err := e.value(c.Value)
			if err != nil {
				return "", fmt.Errorf("condition on %q: %w", c.Attr, err)
			}
			s = e.name(c.Attr) + " = " + v
		case store.CondAttrAbsent:
			if c.Attr == "" {
				return "", fmt.Errorf("%w: AttrAbsent condition without an attribute", store.ErrInvalid)
			}
			s = "attribute_not_exists(" + e.name(c.Attr) + ")"
		case store.CondAtMost:
			if c.Attr == "" {
				return "", fmt.Errorf("%w: AtMost condition without an attribute", store.ErrInvalid)
			}
			v, err := e.value(c.Value)
			if err != nil {
				return "", fmt.Errorf("condition on %q: %w", c.Attr, err)
			}
			s = "(attribute_not_exists(" + e.name(c.Attr) + ") OR " + e.name(c.Attr) + " <= " + v + ")"
		default:
			return "", fmt.Errorf("%w: unknown condition kind %d", store.ErrInvalid, c.Kind)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " AND "), nil
}

// update renders the SET, ADD and REMOVE clauses of u; "" when u changes nothing. Attributes
// are visited in sorted order so that one Update always renders one expression.
func (e *exprs) update(u store.Update) (string, error) {
	if err := checkUpdate(u); err != nil {
		return "", err
	}
	var clauses []string
	if len(u.Set) > 0 {
		set := make([]string, 0, len(u.Set))
		for _, a := range sortedKeys(u.Set) {
			v, err := e.value(u.Set[a])
			if err != nil {
				return "", fmt.Errorf("set %q: %w", a, err)
			}
			set = append(set, e.name(a)+" = "+v)
		}
		clauses = append(clauses, "SET "+strings.Join(set, ", "))
	}
	if len(u.Add) > 0 {
		add := make([]string, 0, len(u.Add))
		for _, a := range sortedKeys(u.Add) {
			v, err := e.value(u.Add[a])
			if err != nil {
				return "", err
			}
			add = append(add, e.name(a)+" "+v)
		}
		clauses = append(clauses, "ADD "+strings.Join(add, ", "))
	}
	if len(u.Remove) > 0 {
		rm := make([]string, 0, len(u.Remove))
		for _, a := range u.Remove {
			rm = append(rm, e.name(a))
		}
		clauses = append(clauses, "REMOVE "+strings.Join(rm, ", "))
	}
	return strings.Join(clauses, " "), nil
}

// checkUpdate refuses what DynamoDB refuses ("Two document paths overlap", "Cannot update
// attribute PK"), before sending, so that every backend answers ErrInvalid alike.
func checkUpdate(u store.Update) error {
	seen := map[string]bool{}
	visit := func(a string) error {
		switch {
		case a == "":
			return fmt.Errorf("%w: update names an empty attribute", store.ErrInvalid)
		case a == store.AttrPK || a == store.AttrSK:
			return fmt.Errorf("%w: update may not change key attribute %s", store.ErrInvalid, a)
		case seen[a]:
			return fmt.Errorf("%w: update names attribute %q twice", store.ErrInvalid, a)
		}
		seen[a] = true
		return nil
	}
	for a, v := range u.Set {
		if err := visit(a); err != nil {
			return err
		}
		if err := checkIndexKey(a, v); err != nil {
			return err
		}
	}
	for a := range u.Add {
		if err := visit(a); err != nil {
			return err
		}
		if isIndexKey(a) {
			return fmt.Errorf("%w: index key %s must be a string, not a counter", store.ErrInvalid, a)
		}
	}
	for _, a := range u.Remove {
		if err := visit(a); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

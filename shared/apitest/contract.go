package apitest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The client contract: what the original service's own clients (generated from its client
// OpenAPI document) require of each answer they parse. testdata/client-contract.json lists,
// per operation we serve, the client's path, the status it accepts and the schema it parses
// the body with, and per schema the required fields and each field's type with its
// enumerations and nested schemas: facts extracted from that document (never the document
// itself). Every 2xx response a handler or event test validates is also held to it, so a
// response a client would fail to parse fails the test that produced it.
//
// Types are written as the extraction wrote them: alternatives separated by " | ", of
// string, integer, number, boolean, object, any, null, list[T], map[T] (string keys),
// const <JSON>, enum(<JSON>, ...), or the name of a schema or enumeration of the file. A
// name the file does not define (schemas deeper than the extraction went) accepts any
// value. "allow" lists the enumeration values we send that the client's enumerations lack,
// and the fields ("Schema.field") whose type differs, each because the specification
// requires it (docs/CLIENT-COMPATIBILITY.md explains each).

//go:embed testdata/client-contract.json
var contractJSON []byte

// Contract is the parsed client contract.
type Contract struct {
	Operations map[string]*ContractOp     `json:"operations"` // by "METHOD /v2 path"; nil: the client has no such operation
	Schemas    map[string]ContractSchema  `json:"schemas"`
	Enums      map[string][]any           `json:"enums"`
	Allow      map[string]ContractAllowed `json:"allow"`
}

// ContractOp is what the client expects of one operation's success.
type ContractOp struct {
	Client string `json:"client"` // the client's path
	Status int    `json:"status"` // the only success status it accepts
	Body   string `json:"body"`   // the type it parses the body with ("" for none, "raw" for bytes it keeps)
}

// ContractSchema is one of the client's response models.
type ContractSchema struct {
	Required []string          `json:"required"`
	Fields   map[string]string `json:"fields"`
}

// ContractAllowed is a difference the specification imposes, and why: for an enumeration,
// the values we send beyond the client's; for a field ("Schema.field"), the type we send.
type ContractAllowed struct {
	Values []any  `json:"values,omitempty"`
	Type   string `json:"type,omitempty"`
	Why    string `json:"why"`
}

var loadContract = sync.OnceValues(func() (*Contract, error) {
	var c Contract
	if err := json.Unmarshal(contractJSON, &c); err != nil {
		return nil, fmt.Errorf("testdata/client-contract.json: %w", err)
	}
	return &c, nil
})

// ClientContract returns the parsed contract.
func ClientContract() (*Contract, error) { return loadContract() }

// CheckContract holds a success response of the operation documented as "METHOD path"
// (the /v2 form) to the client contract. It returns nil for a non-2xx status.
func (c *Contract) CheckContract(op string, status int, body []byte) error {
	if status < 200 || status > 299 {
		return nil
	}
	entry, known := c.Operations[op]
	if !known {
		return fmt.Errorf("client contract: %s has no entry in shared/apitest/testdata/client-contract.json (add the client's answer, or null when its document lacks the operation)", op)
	}
	if entry == nil {
		return nil
	}
	if status != entry.Status {
		return fmt.Errorf("client contract: %s answered %d, but the client (%s) accepts only %d", op, status, entry.Client, entry.Status)
	}
	if entry.Body == "raw" { // the client keeps the bytes (a file: an export)
		return nil
	}
	if entry.Body == "" {
		if len(body) != 0 {
			return fmt.Errorf("client contract: %s: the client expects no body", op)
		}
		return nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("client contract: %s: body is not JSON: %w", op, err)
	}
	var errs []string
	c.check(&errs, "body", v, entry.Body, 0)
	if len(errs) > 0 {
		return fmt.Errorf("client contract: %s (%s parses it as %s): %s", op, entry.Client, entry.Body, strings.Join(errs, "; "))
	}
	return nil
}

// maxContractErrors keeps a report readable.
const maxContractErrors = 10

func (c *Contract) check(errs *[]string, at string, v any, typ string, depth int) {
	if len(*errs) >= maxContractErrors || depth > 32 {
		return
	}
	var tried []string
	for _, alt := range splitAlternatives(typ) {
		var sub []string
		c.checkOne(&sub, at, v, alt, depth)
		if len(sub) == 0 {
			return
		}
		tried = append(tried, sub...)
	}
	if len(tried) == 1 {
		*errs = append(*errs, tried[0])
		return
	}
	*errs = append(*errs, fmt.Sprintf("%s: %s matches none of %s (%s)", at, show(v), typ, strings.Join(tried, "; ")))
}

func (c *Contract) checkOne(errs *[]string, at string, v any, t string, depth int) {
	mismatch := func(want string) { *errs = append(*errs, fmt.Sprintf("%s: %s is not %s", at, show(v), want)) }
	switch {
	case t == "any":
	case t == "null":
		if v != nil {
			mismatch("null")
		}
	case t == "string":
		if _, ok := v.(string); !ok {
			mismatch("a string")
		}
	case t == "boolean":
		if _, ok := v.(bool); !ok {
			mismatch("a boolean")
		}
	case t == "number":
		if _, ok := v.(json.Number); !ok {
			mismatch("a number")
		}
	case t == "integer":
		n, ok := v.(json.Number)
		if f, err := strconv.ParseFloat(string(n), 64); !ok || err != nil || f != math.Trunc(f) {
			mismatch("an integer")
		}
	case t == "object":
		if _, ok := v.(map[string]any); !ok {
			mismatch("an object")
		}
	case strings.HasPrefix(t, "list[") && strings.HasSuffix(t, "]"):
		l, ok := v.([]any)
		if !ok {
			mismatch("a list")
			return
		}
		for i, item := range l {
			c.check(errs, fmt.Sprintf("%s[%d]", at, i), item, t[5:len(t)-1], depth+1)
		}
	case strings.HasPrefix(t, "map[") && strings.HasSuffix(t, "]"):
		m, ok := v.(map[string]any)
		if !ok {
			mismatch("an object")
			return
		}
		for _, k := range sortedKeys(m) {
			c.check(errs, at+"."+k, m[k], t[4:len(t)-1], depth+1)
		}
	case strings.HasPrefix(t, "const "):
		var want any
		dec := json.NewDecoder(strings.NewReader(t[6:]))
		dec.UseNumber()
		if dec.Decode(&want) != nil || !sameJSONValue(v, want) {
			mismatch(t)
		}
	case strings.HasPrefix(t, "enum(") && strings.HasSuffix(t, ")"):
		var values []any
		dec := json.NewDecoder(strings.NewReader("[" + t[5:len(t)-1] + "]"))
		dec.UseNumber()
		if dec.Decode(&values) != nil || !containsJSON(values, v) {
			mismatch("one of " + t)
		}
	default:
		if values, ok := c.Enums[t]; ok {
			allowed := append(slices.Clone(values), c.Allow[t].Values...)
			if !containsJSON(allowed, v) {
				mismatch(fmt.Sprintf("a %s (%s)", t, showAll(values)))
			}
			return
		}
		s, ok := c.Schemas[t]
		if !ok {
			return // deeper than the extraction went
		}
		m, ok := v.(map[string]any)
		if !ok {
			mismatch("a " + t + " object")
			return
		}
		for _, f := range s.Required {
			if _, ok := m[f]; !ok {
				*errs = append(*errs, fmt.Sprintf("%s: %s lacks %q, which the client requires", at, t, f))
			}
		}
		for _, k := range sortedKeys(m) {
			ft, ok := s.Fields[k]
			if a, diff := c.Allow[t+"."+k]; diff {
				ft = a.Type
			}
			if ok {
				c.check(errs, at+"."+k, m[k], ft, depth+1)
			}
		}
	}
}

// splitAlternatives splits "A | list[B | C] | null" at its top level.
func splitAlternatives(t string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, strings.TrimSpace(t[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(t[start:]))
}

func sameJSONValue(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		x, err1 := strconv.ParseFloat(string(an), 64)
		y, err2 := strconv.ParseFloat(string(bn), 64)
		return err1 == nil && err2 == nil && x == y
	}
	return a == b
}

func containsJSON(values []any, v any) bool {
	for _, w := range values {
		if n, ok := w.(float64); ok { // from the file without UseNumber
			w = json.Number(strconv.FormatFloat(n, 'f', -1, 64))
		}
		if sameJSONValue(v, w) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func showAll(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// contractErr returns the contract's verdict on a response to req, routed to the
// documented operation op ("METHOD /v2/..."), or nil.
func contractErr(op string, status int, body []byte) error {
	c, err := loadContract()
	if err != nil {
		return err
	}
	if err := c.CheckContract(op, status, body); err != nil || status < 200 || status > 299 {
		return err
	}
	return recorder().record(op)
}

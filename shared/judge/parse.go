package judge

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// verdict is one judge's readable answer.
type verdict struct {
	b           bool     // boolean
	n           float64  // numbers; discrete: the level's value
	label       string   // categorical, freeform
	labels      []string // multilabel
	explanation string
}

// parse reads a judge's reply: a JSON object (possibly in a code fence or among prose) with
// the template's value and explanation fields, the value valid for the output type.
func (p *plan) parse(content string) (verdict, bool) {
	obj, ok := jsonObject(content)
	if !ok {
		return verdict{}, false
	}
	raw, ok := obj[p.template.ValueFieldName]
	if !ok {
		return verdict{}, false
	}
	var v verdict
	if e, ok := obj[p.template.ExplanationFieldName].(string); ok {
		v.explanation = e
	}
	switch p.outputType {
	case "boolean":
		if len(p.labels) == 2 {
			l, ok := p.label(raw)
			if !ok {
				if b, ok := asBool(raw); ok {
					v.b = b
					return v, true
				}
				return v, false
			}
			v.b = l == p.labels[0]
			return v, true
		}
		b, ok := asBool(raw)
		v.b = b
		return v, ok
	case "boolean_probability", "percentage":
		n, ok := asNumber(raw)
		if b, isBool := raw.(bool); isBool {
			n, ok = 0, true
			if b {
				n = 1
			}
		}
		if !ok || n < 0 || n > 1 {
			return v, false
		}
		v.n = n
		return v, true
	case "categorical":
		l, ok := p.label(raw)
		v.label = l
		return v, ok
	case "discrete":
		if l, ok := p.label(raw); ok {
			v.label, v.n = l, float64(p.levels[slices.Index(p.labels, l)])
			return v, true
		}
		n, ok := asNumber(raw)
		if !ok || n < float64(slices.Min(p.levels)) || n > float64(slices.Max(p.levels)) {
			return v, false
		}
		v.n = n
		return v, true
	case "multilabel":
		xs, ok := raw.([]any)
		if !ok {
			return v, false
		}
		v.labels = []string{}
		for _, x := range xs {
			l, ok := p.label(x)
			if !ok {
				return v, false
			}
			if !slices.Contains(v.labels, l) {
				v.labels = append(v.labels, l)
			}
		}
		return v, true
	case "freeform":
		s, ok := raw.(string)
		v.label = s
		return v, ok
	case "count":
		n, ok := asNumber(raw)
		if !ok || n < 0 {
			return v, false
		}
		v.n = n
		return v, true
	}
	n, ok := asNumber(raw)
	v.n = n
	return v, ok
}

// label matches an answer to an option, ignoring case and surrounding space.
func (p *plan) label(raw any) (string, bool) {
	s, ok := raw.(string)
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(s)
	for _, l := range p.labels {
		if strings.EqualFold(s, strings.TrimSpace(l)) {
			return l, true
		}
	}
	return "", false
}

func asBool(raw any) (bool, bool) {
	switch x := raw.(type) {
	case bool:
		return x, true
	case float64:
		if x == 0 || x == 1 {
			return x == 1, true
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "1":
			return true, true
		case "false", "no", "0":
			return false, true
		}
	}
	return false, false
}

func asNumber(raw any) (float64, bool) {
	switch x := raw.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// jsonObject finds the JSON object in a reply: the whole reply, a fenced block, or the span
// from the first "{" to the last "}".
func jsonObject(content string) (map[string]any, bool) {
	s := strings.TrimSpace(content)
	var obj map[string]any
	if json.Unmarshal([]byte(s), &obj) == nil && obj != nil {
		return obj, true
	}
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j <= i {
		return nil, false
	}
	if json.Unmarshal([]byte(s[i:j+1]), &obj) == nil && obj != nil {
		return obj, true
	}
	return nil, false
}

// aggregate combines the judges' verdicts by output type (docs/EVALUATION.md):
// boolean → the majority (a tie is false) with the share of yes; boolean_probability → the
// mean probability; categorical and freeform → the most frequent answer (a tie goes to the
// option listed first, or the first answer); multilabel → the labels more than half chose;
// every numeric type → the mean. The explanation kept is the first of a judge that agrees
// with the result.
func (p *plan) aggregate(as []answer) (value any, probability *float64, explanation string) {
	n := float64(len(as))
	agrees := func(f func(verdict) bool) string {
		for _, a := range as {
			if f(a.verdict) {
				return a.explanation
			}
		}
		return as[0].explanation
	}
	switch p.outputType {
	case "boolean":
		yes := 0.0
		for _, a := range as {
			if a.b {
				yes++
			}
		}
		share := yes / n
		maj := share > 0.5
		return maj, &share, agrees(func(v verdict) bool { return v.b == maj })
	case "boolean_probability":
		m := mean(as)
		return m, &m, agrees(func(v verdict) bool { return math.Abs(v.n-m) <= 0.5 })
	case "categorical", "freeform":
		counts := map[string]int{}
		order := []string{}
		for _, a := range as {
			if counts[a.label] == 0 {
				order = append(order, a.label)
			}
			counts[a.label]++
		}
		if p.outputType == "categorical" {
			order = slices.DeleteFunc(slices.Clone(p.labels), func(l string) bool { return counts[l] == 0 })
		}
		best := order[0]
		for _, l := range order[1:] {
			if counts[l] > counts[best] {
				best = l
			}
		}
		return best, nil, agrees(func(v verdict) bool { return v.label == best })
	case "multilabel":
		out := []string{}
		for _, l := range p.labels {
			c := 0
			for _, a := range as {
				if slices.Contains(a.labels, l) {
					c++
				}
			}
			if float64(c) > n/2 {
				out = append(out, l)
			}
		}
		return out, nil, agrees(func(v verdict) bool { return slices.Equal(v.labels, out) })
	}
	m := mean(as)
	return m, nil, agrees(func(v verdict) bool { return math.Abs(v.n-m) <= 0.5 })
}

func mean(as []answer) float64 {
	s := 0.0
	for _, a := range as {
		s += a.n
	}
	return s / float64(len(as))
}

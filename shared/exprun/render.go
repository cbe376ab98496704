package exprun

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/evalobs/evalapi/shared/store"
)

// placeholder is a template variable: {{name}}, spaces allowed inside the braces.
var placeholder = regexp.MustCompile(`\{\{\s*([^{}\s]+)\s*\}\}`)

// Variables are the distinct variables the messages name, sorted.
func Variables(msgs []store.PromptMessage) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range msgs {
		for _, g := range placeholder.FindAllStringSubmatch(m.Content, -1) {
			if !seen[g[1]] {
				seen[g[1]] = true
				out = append(out, g[1])
			}
		}
	}
	sort.Strings(out)
	return out
}

// MissingVariables are the variables of msgs that are not columns.
func MissingVariables(msgs []store.PromptMessage, columns []string) []string {
	have := map[string]bool{}
	for _, c := range columns {
		have[c] = true
	}
	var out []string
	for _, v := range Variables(msgs) {
		if !have[v] {
			out = append(out, v)
		}
	}
	return out
}

// Render fills the messages' variables with the row's values by column: a string as it
// is, null as empty, anything else as its JSON text.
func Render(msgs []store.PromptMessage, row map[string]any) []store.PromptMessage {
	out := make([]store.PromptMessage, len(msgs))
	for i, m := range msgs {
		out[i] = store.PromptMessage{Role: m.Role, Content: placeholder.ReplaceAllStringFunc(m.Content, func(s string) string {
			name := placeholder.FindStringSubmatch(s)[1]
			v, ok := row[name]
			if !ok {
				return s
			}
			return valueText(v)
		})}
	}
	return out
}

func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// rowMap is a dataset row by column name.
func rowMap(columns []string, r store.DatasetRow) map[string]any {
	m := make(map[string]any, len(columns))
	for i, c := range columns {
		if i < len(r.Values) {
			m[c] = r.Values[i]
		}
	}
	return m
}

// defaultOutputTokens is the output a row is estimated at when the settings set no
// max_tokens.
const defaultOutputTokens = 256

// EstimateTokens estimates a row's tokens: its rendered prompt at 4 characters a token
// (the usual rule of thumb for English with BPE tokenizers), plus max_tokens of output.
func EstimateTokens(msgs []store.PromptMessage, settings map[string]any) int64 {
	var chars int
	for _, m := range msgs {
		chars += len(m.Content) + len(m.Role)
	}
	out := int64(defaultOutputTokens)
	switch v := settings["max_tokens"].(type) {
	case int64:
		out = v
	case float64:
		out = int64(v)
	}
	return int64(chars+3)/4 + out
}

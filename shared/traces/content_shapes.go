package traces

import (
	"encoding/json"

	"github.com/evalobs/evalapi/shared/store"
)

// The original's span models coerce a plain text where their type needs a structure: an
// llm span's input is a list of chat messages and its output one message, a retriever's
// output a list of documents. Its clients parse the answers with those models, so a text
// logged there is stored as the model would have made it: an llm input "q" becomes
// [{"content":"q","role":"user"}], one message becomes a list of it, an llm output "a"
// becomes {"content":"a","role":"assistant"}, a retriever output "d" (or a list of texts)
// becomes [{"content":"d","metadata":{}}]. Every other content is kept exactly as sent.

// normalizeContent coerces the content of a span of type spanType in place.
func normalizeContent(spanType string, c *store.RecordContent) {
	switch spanType {
	case "llm":
		c.Input, c.RedactedInput = messageList(c.Input), messageList(c.RedactedInput)
		c.Output, c.RedactedOutput = message(c.Output, "assistant"), message(c.RedactedOutput, "assistant")
	case "retriever":
		c.Output, c.RedactedOutput = documents(c.Output), documents(c.RedactedOutput)
	}
}

func messageList(c store.Content) store.Content {
	switch {
	case c.IsNull():
		return c
	case c[0] == '"':
		return marshalContent([]any{map[string]any{"content": c.Text(), "role": "user"}})
	case c[0] == '{':
		return store.Content("[" + string(c) + "]")
	}
	return c
}

func message(c store.Content, role string) store.Content {
	if c.IsNull() || c[0] != '"' {
		return c
	}
	return marshalContent(map[string]any{"content": c.Text(), "role": role})
}

func documents(c store.Content) store.Content {
	if c.IsNull() {
		return c
	}
	if c[0] == '"' {
		return marshalContent([]any{map[string]any{"content": c.Text(), "metadata": map[string]any{}}})
	}
	var texts []string
	if c[0] == '[' && json.Unmarshal(c, &texts) == nil {
		docs := make([]any, len(texts))
		for i, t := range texts {
			docs[i] = map[string]any{"content": t, "metadata": map[string]any{}}
		}
		return marshalContent(docs)
	}
	return c
}

func marshalContent(v any) store.Content {
	b, _ := json.Marshal(v)
	return store.Content(b)
}

package signals

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/evalobs/evalapi/shared/store"
)

// Kinds of a finding (docs/SIGNALS.md). A kind the model invents reads as "other".
var Kinds = []string{"error", "quality", "latency", "cost", "safety", "behavior", "other"}

// Bounds of what a run asks and keeps.
const (
	maxFindings      = 20   // findings kept of one answer
	maxTraceIDs      = 20   // trace ids kept per finding
	maxTitleLen      = 200  // characters
	maxDescLen       = 4000 // characters
	maxActionLen     = 2000 // characters
	maxContentInText = 1500 // characters of each input and output shown to the model
)

// responseSchema is the JSON schema of the answer (structured output).
var responseSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["findings"],` +
	`"properties":{"findings":{"type":"array","maxItems":20,"items":{"type":"object","additionalProperties":false,` +
	`"required":["kind","title","description","severity","trace_ids","suggested_action"],"properties":{` +
	`"kind":{"type":"string","enum":["error","quality","latency","cost","safety","behavior","other"]},` +
	`"title":{"type":"string"},"description":{"type":"string"},` +
	`"severity":{"type":"string","enum":["LOW","MEDIUM","HIGH","CRITICAL"]},` +
	`"trace_ids":{"type":"array","items":{"type":"string"}},"suggested_action":{"type":"string"}}}}}}`)

const systemPrompt = `You analyse the production traces of an LLM application and report patterns and problems.
Report only what the traces show; cite the ids of the traces that show each finding (only ids given below).
Severity: CRITICAL = users are harmed or the application is broken for many requests; HIGH = a frequent failure
or a serious quality, safety or cost problem; MEDIUM = a recurring problem of limited impact; LOW = a minor issue
or an observation worth knowing. Kind: error, quality, latency, cost, safety, behavior or other.
If a problem is one of the previously reported findings listed, reuse its exact kind and title.
Answer with JSON only, following the given schema. No findings is a valid answer.`

// buildMessages writes the request: the steering preferences, the previous findings and the
// sampled traces (ids, status, usage, scores, and the start of input and output).
func buildMessages(cfg store.SignalsConfig, w window, traces []store.Trace, previous []store.SignalsFinding) []Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Window: %s to %s. %d traces in the window; %d shown below (failed, low-scored, slow and costly first, then random).\n",
		w.from.UTC().Format("2006-01-02T15:04:05Z"), w.to.UTC().Format("2006-01-02T15:04:05Z"), w.scanned, len(traces))
	if cfg.FocusOn != "" {
		fmt.Fprintf(&b, "\nFocus on: %s\n", cfg.FocusOn)
	}
	if cfg.DontFocusOn != "" {
		fmt.Fprintf(&b, "\nDo not report findings about: %s\n", cfg.DontFocusOn)
	}
	if len(previous) > 0 {
		b.WriteString("\nPreviously reported findings (kind | title):\n")
		for _, f := range previous {
			fmt.Fprintf(&b, "- %s | %s\n", f.Kind, f.Title)
		}
	}
	b.WriteString("\nTraces:\n")
	for _, tr := range traces {
		fmt.Fprintf(&b, "\n### trace %s (%s, %s)\n", tr.ID, tr.Name, tr.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
		if tr.StatusCode != nil {
			fmt.Fprintf(&b, "status_code: %d\n", *tr.StatusCode)
		}
		if tr.ErrorMessage != nil {
			fmt.Fprintf(&b, "error: %s\n", truncate(*tr.ErrorMessage, 500))
		}
		if tr.LatencyMs != nil {
			fmt.Fprintf(&b, "latency_ms: %g\n", *tr.LatencyMs)
		}
		if tr.TotalCost != nil {
			fmt.Fprintf(&b, "total_cost: %g\n", *tr.TotalCost)
		}
		if tr.Model != nil {
			fmt.Fprintf(&b, "model: %s\n", *tr.Model)
		}
		names := make([]string, 0, len(tr.Metrics))
		for name := range tr.Metrics {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			m := tr.Metrics[name]
			switch {
			case m.Number != nil:
				fmt.Fprintf(&b, "score %s: %g\n", name, *m.Number)
			case m.Bool != nil:
				fmt.Fprintf(&b, "score %s: %t\n", name, *m.Bool)
			case m.Category != nil:
				fmt.Fprintf(&b, "score %s: %s\n", name, truncate(*m.Category, 100))
			case m.Error != nil:
				fmt.Fprintf(&b, "score %s: error\n", name)
			}
		}
		fmt.Fprintf(&b, "input: %s\noutput: %s\n", contentText(tr.Input), contentText(tr.Output))
	}
	return []Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: b.String()}}
}

// contentText is a record content as text: a JSON string unquoted, anything else as JSON.
func contentText(c store.Content) string {
	if len(c) == 0 {
		return "(none)"
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return truncate(s, maxContentInText)
	}
	return truncate(string(c), maxContentInText)
}

// proposed is one finding as the model answered it.
type proposed struct {
	Kind            string   `json:"kind"`
	Title           string   `json:"title"`
	Description     string   `json:"description"`
	Severity        string   `json:"severity"`
	TraceIDs        []string `json:"trace_ids"`
	SuggestedAction string   `json:"suggested_action"`
}

// parseAnswer reads the model's answer: JSON (a Markdown code fence around it tolerated) of
// the schema. Each finding is cleaned: kind and severity read case-insensitively (an unknown
// kind is "other", an unknown severity MEDIUM), texts trimmed and bounded, trace ids kept
// only when they are ids of the sample (an invented id is dropped), and a finding left with
// no trace id or no title is dropped: every finding has evidence.
func parseAnswer(text string, sample []store.Trace) ([]proposed, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "```") {
		text = strings.TrimPrefix(strings.TrimPrefix(text, "```json"), "```")
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "```"))
	}
	var ans struct {
		Findings []proposed `json:"findings"`
	}
	if err := json.Unmarshal([]byte(text), &ans); err != nil {
		return nil, &runError{kind: ErrTypeInvalidResponse, msg: "the model's answer is not JSON of the findings schema"}
	}
	known := map[string]bool{}
	for _, tr := range sample {
		known[tr.ID] = true
	}
	var out []proposed
	for _, p := range ans.Findings {
		p.Kind = strings.ToLower(strings.TrimSpace(p.Kind))
		if !slices.Contains(Kinds, p.Kind) {
			p.Kind = "other"
		}
		p.Severity = strings.ToUpper(strings.TrimSpace(p.Severity))
		if !slices.Contains(Severities, p.Severity) {
			p.Severity = "MEDIUM"
		}
		p.Title = truncate(strings.Join(strings.Fields(p.Title), " "), maxTitleLen)
		p.Description = truncate(strings.TrimSpace(p.Description), maxDescLen)
		p.SuggestedAction = truncate(strings.TrimSpace(p.SuggestedAction), maxActionLen)
		var ids []string
		for _, id := range p.TraceIDs {
			id = strings.ToLower(strings.TrimSpace(id))
			if known[id] && !slices.Contains(ids, id) && len(ids) < maxTraceIDs {
				ids = append(ids, id)
			}
		}
		p.TraceIDs = ids
		if p.Title == "" || len(ids) == 0 {
			continue
		}
		out = append(out, p)
		if len(out) == maxFindings {
			break
		}
	}
	return out, nil
}

// truncate cuts s to at most n characters (runes), marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

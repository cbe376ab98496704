package traces

import (
	"encoding/json"
	"fmt"
)

// A record read or a search page answers at most Deps.AnswerLimit bytes (by default 5 MiB,
// as a dataset content page, under a Lambda's 6 MB answer), whatever the records hold:
//   - a search page keeps the records that fit and says it is paginated, so the client
//     continues from last_row_id (or next_starting_token) as with any page; its first
//     record always comes, its texts cut (truncate_fields) when it alone is too big;
//   - a trace or span read with its tree cuts the texts of its spans' content fields, then,
//     when that is not enough, keeps the spans that fit in tree order, and says so in
//     warning_message; the spans are whole through spans/search (filter trace_id).

// DefaultAnswerLimit is Deps.AnswerLimit's default.
const DefaultAnswerLimit = 5 << 20

// fitPage encodes the records of out once and keeps those that fit in limit bytes.
func fitPage(out *recordsPage, records []*recordOut, ids []string, limit int) error {
	out.Records = make([]json.RawMessage, 0, len(records))
	used := 0
	for i, rec := range records {
		b, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encode record %s: %w", ids[i], err)
		}
		if used+len(b) > limit {
			if i > 0 {
				out.Paginated = true
				next := out.StartingToken + i
				out.NextStartingToken, out.LastRowID = &next, &ids[i-1]
				return nil
			}
			truncateRecord(rec)
			if b, err = json.Marshal(rec); err != nil {
				return fmt.Errorf("encode record %s: %w", ids[i], err)
			}
		}
		used += len(b) + 1
		out.Records = append(out.Records, b)
	}
	return nil
}

// fitTree bounds the answer of a record read with its tree of spans (root's Spans) to
// limit bytes and says what it left out in root's warning_message.
func fitTree(root *recordOut, limit int) error {
	return fitChildren(root, &root.Spans, limit, "spans", "spans/search with a trace_id filter")
}

// fitSession bounds a session read with its traces as fitTree does.
func fitSession(root *recordOut, limit int) error {
	return fitChildren(root, &root.Traces, limit, "traces", "traces/search with a session_id filter")
}

// fitChildren bounds root's answer, its records below in *kids, to limit bytes.
func fitChildren(root *recordOut, kids *[]*recordOut, limit int, what, where string) error {
	size := func() (int, error) {
		b, err := json.Marshal(root)
		return len(b), err
	}
	n, err := size()
	if err != nil || n <= limit {
		return err
	}
	var all []*recordOut
	var walk func([]*recordOut)
	walk = func(s []*recordOut) {
		for _, c := range s {
			all = append(all, c)
			walk(c.Spans)
		}
	}
	walk(*kids)
	for _, s := range all {
		truncateRecord(s)
	}
	warning := fmt.Sprintf("This answer would be more than %d bytes: the texts of its %s' content fields are cut to %d characters", limit, what, truncateLimit)
	if n, err = size(); err != nil {
		return err
	}
	if n > limit {
		// Keep spans in tree order while they fit: measure each once.
		own := make([]int, len(all))
		for i, s := range all {
			children := s.Spans
			s.Spans = nil
			b, err := json.Marshal(s)
			s.Spans = children
			if err != nil {
				return err
			}
			own[i] = len(b) + 16 // the spans list's punctuation
		}
		rootChildren := *kids
		*kids = nil
		b, err := json.Marshal(root)
		*kids = rootChildren
		if err != nil {
			return err
		}
		used := len(b) + len(warning) + 256 // the warning and its sentence's tail
		keep := map[*recordOut]bool{}
		for i, s := range all {
			if used+own[i] > limit {
				break
			}
			used += own[i]
			keep[s] = true
		}
		kept := len(keep)
		var prune func([]*recordOut) []*recordOut
		prune = func(s []*recordOut) []*recordOut {
			var out []*recordOut
			for _, c := range s {
				if keep[c] {
					c.Spans = prune(c.Spans)
					out = append(out, c)
				}
			}
			return out
		}
		*kids = prune(*kids)
		warning += fmt.Sprintf(", and only the first %d of its %d %s are here", kept, len(all), what)
	}
	warning += "; read them whole through " + where + "."
	root.WarningMessage = &warning
	return nil
}

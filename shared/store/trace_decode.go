package store

import (
	"strconv"
	"strings"
	"time"
)

// decodeTraceHeader is DecodeTrace's fast path: the header JSON (as TraceItem writes it,
// json.Marshal of a Trace) read straight into the struct, field by field, without
// reflection; strings without escapes are slices of doc, not copies. It reports false for
// anything it does not know (a key it has no case for, a null, an escape it leaves to
// encoding/json...), and the caller then decodes with encoding/json: a header written by a
// newer build, with columns this one lacks, still decodes exactly as before. The scan of a
// metrics search decodes millions of headers; TestDecodeTraceFastPath holds the two equal.
func decodeTraceHeader(doc string, tr *Trace) bool {
	return decodeTraceHeaderIn(doc, tr, nil)
}

// decodeTraceHeaderIn is decodeTraceHeader with the values the header's pointers and
// metrics map point to taken from sc when it is not nil (see scratch).
func decodeTraceHeaderIn(doc string, tr *Trace, sc *scratch) bool {
	l := lexer{s: doc, sc: sc}
	ok := l.object(func(key string) bool {
		switch key {
		case "id":
			tr.ID = l.str()
		case "run_id":
			tr.RunID = l.str()
		case "project_id":
			tr.ProjectID = l.str()
		case "org_id":
			tr.OrgID = l.str()
		case "created_at":
			tr.CreatedAt = l.time()
		case "updated_at":
			tr.UpdatedAt = keep(&l, times, l.time())
		case "type":
			tr.Type = l.str()
		case "name":
			tr.Name = l.str()
		case "tags":
			tr.Tags = l.strList()
		case "status_code":
			tr.StatusCode = l.intPtr()
		case "external_id":
			tr.ExternalID = l.strPtr()
		case "dataset_input":
			tr.DatasetInput = l.strPtr()
		case "dataset_output":
			tr.DatasetOutput = l.strPtr()
		case "dataset_generated_output":
			tr.DatasetGeneratedOutput = l.strPtr()
		case "dataset_metadata":
			tr.DatasetMetadata = l.strMap()
		case "error_message":
			tr.ErrorMessage = l.strPtr()
		case "progress_message":
			tr.ProgressMessage = l.strPtr()
		case "is_complete":
			tr.IsComplete = l.bool()
		case "has_children":
			tr.HasChildren = l.bool()
		case "num_spans":
			tr.NumSpans = l.int()
		case "session_id":
			tr.SessionID = l.strPtr()
		case "model":
			tr.Model = l.strPtr()
		case "provider":
			tr.Provider = l.strPtr()
		case "temperature":
			tr.Temperature = l.floatPtr()
		case "finish_reason":
			tr.FinishReason = l.strPtr()
		case "metadata":
			tr.Metadata = l.strMap()
		case "metrics":
			tr.Metrics = l.metrics()
		default:
			return l.usage(key, &tr.Usage)
		}
		return !l.bad
	})
	return ok && !l.bad && l.end()
}

// usage reads a column of Usage (embedded in every record kind).
func (l *lexer) usage(key string, u *Usage) bool {
	switch key {
	case "latency_ms":
		u.LatencyMs = l.floatPtr()
	case "total_tokens":
		u.TotalTokens = l.intPtr()
	case "input_tokens":
		u.InputTokens = l.intPtr()
	case "output_tokens":
		u.OutputTokens = l.intPtr()
	case "time_to_first_token_ns":
		u.TimeToFirstTokenNs = l.intPtr()
	case "total_cost":
		u.TotalCost = l.floatPtr()
	default:
		return false
	}
	return !l.bad
}

func (l *lexer) metrics() map[string]MetricValue {
	var out map[string]MetricValue
	if l.sc != nil {
		if l.sc.metrics == nil {
			l.sc.metrics = map[string]MetricValue{}
		}
		out = l.sc.metrics
	} else {
		out = map[string]MetricValue{}
	}
	l.object(func(name string) bool {
		var v MetricValue
		ok := l.object(func(key string) bool {
			switch key {
			case "n":
				v.Number = l.floatPtr()
			case "c":
				v.Category = l.strPtr()
			case "b":
				v.Bool = keep(l, bools, l.bool())
			case "e":
				v.Error = l.scorerError()
			case "st":
				v.State = l.str()
			case "x":
				v.Explanation = l.str()
			case "r":
				v.Reason = l.str()
			case "src":
				v.Source = l.str()
			case "t":
				v.JudgedAt = l.int()
			default:
				return false
			}
			return !l.bad
		})
		out[name] = v
		return ok
	})
	return out
}

func (l *lexer) scorerError() *ScorerError {
	var e ScorerError
	l.object(func(key string) bool {
		switch key {
		case "code":
			e.Code = l.int()
		case "message":
			e.Message = l.str()
		case "severity":
			e.Severity = l.str()
		case "error_type":
			e.ErrorType = l.str()
		case "error_group":
			e.ErrorGroup = l.str()
		case "retriable":
			e.Retriable = l.bool()
		case "blocking":
			e.Blocking = l.bool()
		default:
			return false
		}
		return !l.bad
	})
	return keep(l, scorerErrs, e)
}

// lexer reads the JSON that encoding/json writes (no insignificant white space); bad is set
// at the first thing it does not take, and every read after that is a no-op.
type lexer struct {
	s   string
	i   int
	bad bool
	sc  *scratch // nil: values pointed to are allocated one by one
}

// scratch holds the values a decoded header points to, reused from trace to trace by a scan
// whose callback keeps none of them (ScanOptions.Transient): a header's dozen pointers and
// its metrics map were most of a scan's allocations, and the collector's work with them.
type scratch struct {
	floats  []float64
	ints    []int64
	strs    []string
	bools   []bool
	times   []time.Time
	errs    []ScorerError
	metrics map[string]MetricValue
}

// reset makes the storage of the last trace the next one's.
func (sc *scratch) reset() {
	sc.floats, sc.ints, sc.strs, sc.bools = sc.floats[:0], sc.ints[:0], sc.strs[:0], sc.bools[:0]
	sc.times, sc.errs = sc.times[:0], sc.errs[:0]
	clear(sc.metrics)
}

// keep returns a pointer to v: into slab when the lexer has a scratch (slab is one of its
// fields; a grown slab leaves earlier pointers on the old array, still valid), else to a
// fresh copy.
func keep[T any](l *lexer, slab func(*scratch) *[]T, v T) *T {
	if l.sc == nil {
		return heapCopy(v)
	}
	p := slab(l.sc)
	*p = append(*p, v)
	return &(*p)[len(*p)-1]
}

// heapCopy is a fresh copy of v. (keep returning &v would move v to the heap on every call,
// the scratch path's too.)
func heapCopy[T any](v T) *T {
	p := new(T)
	*p = v
	return p
}

func floats(sc *scratch) *[]float64         { return &sc.floats }
func ints(sc *scratch) *[]int64             { return &sc.ints }
func strs(sc *scratch) *[]string            { return &sc.strs }
func bools(sc *scratch) *[]bool             { return &sc.bools }
func times(sc *scratch) *[]time.Time        { return &sc.times }
func scorerErrs(sc *scratch) *[]ScorerError { return &sc.errs }

func (l *lexer) fail() { l.bad, l.i = true, len(l.s) }

func (l *lexer) end() bool { return l.i == len(l.s) }

func (l *lexer) next(c byte) bool {
	if l.i < len(l.s) && l.s[l.i] == c {
		l.i++
		return true
	}
	return false
}

// object reads {"key":value,...}, calling field after each key's colon to read the value.
func (l *lexer) object(field func(key string) bool) bool {
	if !l.next('{') {
		l.fail()
		return false
	}
	if l.next('}') {
		return true
	}
	for {
		k := l.str()
		if l.bad || !l.next(':') || !field(k) {
			l.fail()
			return false
		}
		if l.next('}') {
			return true
		}
		if !l.next(',') {
			l.fail()
			return false
		}
	}
}

// str reads a string; one with escapes is left to encoding/json.
func (l *lexer) str() string {
	if !l.next('"') {
		l.fail()
		return ""
	}
	start := l.i
	for j := start; j < len(l.s); j++ {
		switch c := l.s[j]; {
		case c == '"':
			l.i = j + 1
			return l.s[start:j]
		case c == '\\':
			return l.escaped(start - 1)
		case c < 0x20:
			l.fail()
			return ""
		}
	}
	l.fail()
	return ""
}

// escaped reads the string opening at quote whose text holds an escape.
func (l *lexer) escaped(quote int) string {
	j := l.stringEnd(quote)
	if j < 0 {
		l.fail()
		return ""
	}
	s, ok := unquote(l.s[quote : j+1])
	if !ok {
		l.fail()
		return ""
	}
	l.i = j + 1
	return s
}

// stringEnd is the index of the quote closing the string that opens at quote, passing
// escapes; -1 when the text ends first.
func (l *lexer) stringEnd(quote int) int {
	// A quote closes the string when an even number of backslashes precede it (each pair is
	// an escaped backslash); IndexByte finds the quotes a word at a time.
	j := quote + 1
	for {
		k := strings.IndexByte(l.s[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for i := j - 1; i > quote && l.s[i] == '\\'; i-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
		j++
	}
}

func (l *lexer) strPtr() *string { return keep(l, strs, l.str()) }

func (l *lexer) strList() []string {
	if !l.next('[') {
		l.fail()
		return nil
	}
	out := []string{}
	if l.next(']') {
		return out
	}
	for !l.bad {
		out = append(out, l.str())
		if l.next(']') {
			return out
		}
		if !l.next(',') {
			l.fail()
		}
	}
	return nil
}

func (l *lexer) strMap() map[string]string {
	out := map[string]string{}
	l.object(func(k string) bool {
		out[k] = l.str()
		return !l.bad
	})
	return out
}

func (l *lexer) bool() bool {
	switch {
	case strings.HasPrefix(l.s[l.i:], "true"):
		l.i += 4
		return true
	case strings.HasPrefix(l.s[l.i:], "false"):
		l.i += 5
		return false
	}
	l.fail()
	return false
}

// number reads the text of a number, checked as JSON's grammar.
func (l *lexer) number() string {
	start := l.i
	for l.i < len(l.s) {
		c := l.s[l.i]
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			break
		}
		l.i++
	}
	s := l.s[start:l.i]
	if !isJSONNumber(s) {
		l.fail()
	}
	return s
}

func (l *lexer) int() int64 {
	n, err := strconv.ParseInt(l.number(), 10, 64)
	if err != nil {
		l.fail()
	}
	return n
}

func (l *lexer) intPtr() *int64 { return keep(l, ints, l.int()) }

func (l *lexer) floatPtr() *float64 {
	f, err := strconv.ParseFloat(l.number(), 64)
	if err != nil {
		l.fail()
	}
	return keep(l, floats, f)
}

func (l *lexer) time() time.Time {
	s := l.str()
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || l.bad {
		l.fail()
	}
	return t
}

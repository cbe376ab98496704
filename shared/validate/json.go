package validate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// JSONError is why CPython 3.11's json.loads rejects a request body.
//
// When JSONInvalid reports true, Python raises json.JSONDecodeError: Msg is its msg (without
// the ": line X column Y (char Z)" suffix) and Pos its pos, an offset in code points of the
// decoded text. FastAPI reports that as a 422 json_invalid error at loc ["body", Pos] with
// ctx {"error": Msg}.
//
// Otherwise Msg is MsgInvalidEncoding, MsgIntTooLong or MsgTooDeep: Python raises another
// exception, which FastAPI's body reader (fastapi/routing.py, get_request_handler) catches
// with "except Exception" and answers 400 {"detail":"There was an error parsing the body"}.
type JSONError struct {
	Pos int
	Msg string
}

// Messages of the errors Python does not raise as json.JSONDecodeError.
const (
	// MsgInvalidEncoding: the body is not text in the encoding json.detect_encoding picks
	// (UnicodeDecodeError). Pos is then the byte offset Python reports as
	// UnicodeDecodeError.start, not a code point offset.
	MsgInvalidEncoding = "invalid encoding"
	// MsgIntTooLong: an integer has more digits than sys.int_info.default_max_str_digits
	// (ValueError from int()). Pos is the offset of the number.
	MsgIntTooLong = "Exceeds the limit (4300 digits) for integer string conversion"
	// MsgTooDeep: arrays and objects nest deeper than maxJSONDepth (RecursionError).
	// Pos is the offset of the bracket that opens one level too many.
	MsgTooDeep = "maximum recursion depth exceeded while decoding a JSON document"
)

// The messages of json.JSONDecodeError, as CPython's Modules/_json.c and
// Lib/json/decoder.py raise them.
const (
	jsonExpectingValue = "Expecting value"
	jsonExpectingName  = "Expecting property name enclosed in double quotes"
	jsonExpectingColon = "Expecting ':' delimiter"
	jsonExpectingComma = "Expecting ',' delimiter"
	jsonUnterminated   = "Unterminated string starting at"
	jsonControlChar    = "Invalid control character at"
	jsonBadEscape      = "Invalid \\escape"
	jsonBadUEscape     = "Invalid \\uXXXX escape"
	jsonExtraData      = "Extra data"
)

const (
	// maxJSONDepth bounds nesting so that a hostile body cannot grow the stack without
	// limit. Python's own bound is its recursion limit (1000) less the frames already on
	// the stack: 995 levels from a bare script, fewer inside a server; 1000 is the most
	// Python could ever accept.
	maxJSONDepth = 1000
	// maxJSONIntDigits is sys.int_info.default_max_str_digits, CPython's guard (since 3.11)
	// against quadratic int parsing.
	maxJSONIntDigits = 4300
	// maxJSONKeys bounds the distinct object keys the parser shares.
	maxJSONKeys = 256
)

func (e *JSONError) Error() string {
	if e.Msg == MsgInvalidEncoding {
		return "invalid encoding at byte " + strconv.Itoa(e.Pos)
	}
	return e.Msg + " (char " + strconv.Itoa(e.Pos) + ")"
}

// JSONInvalid reports whether Python raises json.JSONDecodeError for the body, which FastAPI
// reports as a 422 json_invalid error; if not, FastAPI answers 400.
func (e *JSONError) JSONInvalid() bool {
	switch e.Msg {
	case MsgInvalidEncoding, MsgIntTooLong, MsgTooDeep:
		return false
	}
	return true
}

// ParseJSON decodes a request body the way Starlette's Request.json() does, that is with
// CPython 3.11's json.loads(body) on the raw bytes: it accepts exactly what Python accepts and
// rejects the rest with Python's message and position.
//
// Values are map[string]any (the last of duplicate keys wins), []any, string, bool, nil,
// json.Number holding the number's text as written (an integer has neither '.' nor an
// exponent; Python reads "-0" as int 0 and "1e400" as float inf), and float64 for the
// constants NaN, Infinity and -Infinity. Lone surrogates, which Python keeps in its strings
// but Go strings cannot hold as text, become U+FFFD.
//
// The result never aliases data.
func ParseJSON(data []byte) (any, *JSONError) {
	src, wtf8, bad := decodeJSONText(data)
	if bad >= 0 {
		return nil, &JSONError{Pos: bad, Msg: MsgInvalidEncoding}
	}
	p := jsonParser{src: src, wtf8: wtf8}
	v, i, ok := p.value(p.skipSpace(0))
	if ok {
		// Python's JSONDecoder.decode: only whitespace may follow the value.
		if i = p.skipSpace(i); i != len(src) {
			ok = p.fail(jsonExtraData, i)
		}
	}
	if !ok {
		return nil, &JSONError{Pos: jsonCodePoints(src[:p.errAt]), Msg: p.errMsg}
	}
	return v, nil
}

// jsonParser follows the scanner of CPython's Modules/_json.c (scan_once_unicode and the
// functions it calls) check for check, so that the first error it meets, and where, is the
// one Python reports. It works on UTF-8 bytes and converts the byte offset of an error to
// code points only once, when there is an error.
type jsonParser struct {
	src  []byte // the decoded text, UTF-8 except that wtf8 allows surrogates
	wtf8 bool   // src holds 3-byte encodings of surrogates (ED A0..BF xx), as WTF-8 does

	depth int
	// Scratch stacks reused by every array and object: elements are collected here and
	// copied into a slice or map of the right size once the container is complete.
	vals []any
	keys []string
	buf  []byte // scratch for strings with escapes

	names map[string]string // object keys seen so far; see key

	errMsg string
	errAt  int // byte offset in src
}

// fail records the first error and returns false, for callers to return at once.
func (p *jsonParser) fail(msg string, at int) bool {
	p.errMsg, p.errAt = msg, at
	return false
}

// value parses the value starting at src[i] and returns it with the offset just past it.
// It is scan_once_unicode: anything that is not a value is "Expecting value" at i, which
// Python signals with StopIteration(i) and every caller turns into that message.
func (p *jsonParser) value(i int) (any, int, bool) {
	src := p.src
	if i >= len(src) {
		return nil, 0, p.fail(jsonExpectingValue, i)
	}
	switch src[i] {
	case '"':
		s, j, ok := p.str(i)
		if !ok {
			return nil, 0, false
		}
		return string(s), j, true
	case '{':
		return p.object(i)
	case '[':
		return p.array(i)
	case 'n':
		if p.hasLiteral(i, "null") {
			return nil, i + 4, true
		}
	case 't':
		if p.hasLiteral(i, "true") {
			return true, i + 4, true
		}
	case 'f':
		if p.hasLiteral(i, "false") {
			return false, i + 5, true
		}
	case 'N':
		if p.hasLiteral(i, "NaN") {
			return math.NaN(), i + 3, true
		}
	case 'I':
		if p.hasLiteral(i, "Infinity") {
			return math.Inf(1), i + 8, true
		}
	case '-':
		if p.hasLiteral(i, "-Infinity") {
			return math.Inf(-1), i + 9, true
		}
	}
	return p.number(i)
}

// hasLiteral reports whether src[i:] starts with lit.
func (p *jsonParser) hasLiteral(i int, lit string) bool {
	return len(p.src)-i >= len(lit) && string(p.src[i:i+len(lit)]) == lit
}

// number matches -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? at src[i]. Like Python it
// takes the longest prefix that matches, so "1." and "1e" end before the '.' and the 'e'
// (and the caller then reports what follows), and a bad start is "Expecting value".
func (p *jsonParser) number(i int) (any, int, bool) {
	src := p.src
	start := i
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case p.digitAt(i):
		i = p.skipDigits(i + 1)
	default:
		return nil, 0, p.fail(jsonExpectingValue, start)
	}
	intEnd := i
	isFloat := false
	if i < len(src) && src[i] == '.' && p.digitAt(i+1) {
		isFloat = true
		i = p.skipDigits(i + 2)
	}
	if i+1 < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j+1 < len(src) && (src[j] == '-' || src[j] == '+') {
			j++
		}
		if k := p.skipDigits(j); k > j {
			isFloat = true
			i = k
		}
	}
	if !isFloat {
		digits := intEnd - start
		if src[start] == '-' {
			digits--
		}
		if digits > maxJSONIntDigits {
			return nil, 0, p.fail(MsgIntTooLong, start)
		}
	}
	return json.Number(src[start:i]), i, true
}

// digitAt reports whether src[i] is an ASCII digit.
func (p *jsonParser) digitAt(i int) bool {
	return i < len(p.src) && '0' <= p.src[i] && p.src[i] <= '9'
}

func (p *jsonParser) skipDigits(i int) int {
	for p.digitAt(i) {
		i++
	}
	return i
}

// skipSpace skips JSON whitespace from src[i] on, which for Python is only space, tab, LF
// and CR.
func (p *jsonParser) skipSpace(i int) int {
	for i < len(p.src) {
		switch p.src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// enter counts one more level of nesting for the container opening at src[i]. Python's
// scanner recurses into each container and fails with RecursionError when it runs out of
// stack; this is the same, at a fixed depth.
func (p *jsonParser) enter(i int) bool {
	p.depth++
	if p.depth > maxJSONDepth {
		return p.fail(MsgTooDeep, i)
	}
	return true
}

// array parses the array whose '[' is at src[i] (_parse_array_unicode).
func (p *jsonParser) array(i int) (any, int, bool) {
	if !p.enter(i) {
		return nil, 0, false
	}
	src := p.src
	base := len(p.vals)
	i = p.skipSpace(i + 1)
	if i >= len(src) || src[i] != ']' {
		for {
			v, j, ok := p.value(i)
			if !ok {
				return nil, 0, false
			}
			p.vals = append(p.vals, v)
			i = p.skipSpace(j)
			if i < len(src) && src[i] == ']' {
				break
			}
			if i >= len(src) || src[i] != ',' {
				return nil, 0, p.fail(jsonExpectingComma, i)
			}
			// A ']' after the ',' is not accepted: the next value fails with
			// "Expecting value" there (3.13 words this "Illegal trailing comma").
			i = p.skipSpace(i + 1)
		}
	}
	// Never nil: [] is an empty list, which must not read as JSON null later.
	a := make([]any, len(p.vals)-base)
	copy(a, p.vals[base:])
	clear(p.vals[base:]) // drop references so the scratch does not keep values alive
	p.vals = p.vals[:base]
	p.depth--
	return a, i + 1, true
}

// object parses the object whose '{' is at src[i] (_parse_object_unicode).
func (p *jsonParser) object(i int) (any, int, bool) {
	if !p.enter(i) {
		return nil, 0, false
	}
	src := p.src
	base := len(p.vals)
	i = p.skipSpace(i + 1)
	if i >= len(src) || src[i] != '}' {
		for {
			if i >= len(src) || src[i] != '"' {
				return nil, 0, p.fail(jsonExpectingName, i)
			}
			b, j, ok := p.str(i)
			if !ok {
				return nil, 0, false
			}
			k := p.key(b)
			i = p.skipSpace(j)
			if i >= len(src) || src[i] != ':' {
				return nil, 0, p.fail(jsonExpectingColon, i)
			}
			v, j, ok := p.value(p.skipSpace(i + 1))
			if !ok {
				return nil, 0, false
			}
			p.keys = append(p.keys, k)
			p.vals = append(p.vals, v)
			i = p.skipSpace(j)
			if i < len(src) && src[i] == '}' {
				break
			}
			if i >= len(src) || src[i] != ',' {
				return nil, 0, p.fail(jsonExpectingComma, i)
			}
			i = p.skipSpace(i + 1)
		}
	}
	n := len(p.vals) - base
	keys := p.keys[len(p.keys)-n:]
	m := make(map[string]any, n)
	for j, k := range keys {
		m[k] = p.vals[base+j] // in order, so the last duplicate wins, as in a Python dict
	}
	clear(keys)
	clear(p.vals[base:])
	p.keys = p.keys[:len(p.keys)-n]
	p.vals = p.vals[:base]
	p.depth--
	return m, i + 1, true
}

// jsonStringStops marks the bytes that end a run of literal string content: the closing quote,
// a backslash and the control characters Python's strict mode rejects.
var jsonStringStops = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// jsonUnescape maps the character after a backslash to what the escape stands for; 0 marks
// the escapes Python rejects ('u' is handled apart).
var jsonUnescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// str parses the string whose opening quote is at src[i] (scanstring_unicode). The
// content it returns is a slice of src or of p.buf, valid until the next call.
func (p *jsonParser) str(i int) ([]byte, int, bool) {
	src := p.src
	begin := i
	i++
	start := i
	for i < len(src) && !jsonStringStops[src[i]] {
		i++
	}
	if i < len(src) && src[i] == '"' && !p.hasSurrogate(src[start:i]) {
		return src[start:i], i + 1, true // the common case: nothing to rewrite
	}
	buf := p.buf[:0]
	for {
		buf = p.appendLiteral(buf, src[start:i])
		if i >= len(src) {
			return nil, 0, p.fail(jsonUnterminated, begin)
		}
		switch src[i] {
		case '"':
			p.buf = buf // keep the grown scratch for the next string
			return buf, i + 1, true
		case '\\':
		default:
			return nil, 0, p.fail(jsonControlChar, i)
		}
		if i+1 >= len(src) {
			return nil, 0, p.fail(jsonUnterminated, begin)
		}
		if c := src[i+1]; c == 'u' {
			r, j, ok := p.uEscape(i)
			if !ok {
				return nil, 0, false
			}
			buf = utf8.AppendRune(buf, r)
			i = j
		} else if e := jsonUnescape[c]; e != 0 {
			buf = append(buf, e)
			i += 2
		} else {
			return nil, 0, p.fail(jsonBadEscape, i)
		}
		start = i
		for i < len(src) && !jsonStringStops[src[i]] {
			i++
		}
	}
}

// key returns an object key, sharing one string among equal keys: bodies are mostly lists
// of objects with the same few keys, and looking bytes up in a map does not allocate.
func (p *jsonParser) key(b []byte) string {
	if k, ok := p.names[string(b)]; ok {
		return k
	}
	k := string(b)
	if len(p.names) < maxJSONKeys { // a body of distinct keys gains nothing from more
		if p.names == nil {
			p.names = make(map[string]string)
		}
		p.names[k] = k
	}
	return k
}

// uEscape decodes the \uXXXX escape at src[i], joined with a second one that follows if
// the two make a surrogate pair, and returns the rune and the offset past the escape(s).
// The bounds checks are Python's: it wants a character after the four hex digits (without
// one the string is unterminated anyway, but the message is about the escape), and one
// after a second escape before it tries to pair.
func (p *jsonParser) uEscape(i int) (rune, int, bool) {
	src := p.src
	j := i + 6
	if j >= len(src) {
		return 0, 0, p.fail(jsonBadUEscape, i+1)
	}
	r, ok := p.hex4(i + 2)
	if !ok {
		return 0, 0, p.fail(jsonBadUEscape, i+1)
	}
	if utf16.IsSurrogate(r) && r < 0xDC00 && j+6 < len(src) && src[j] == '\\' && src[j+1] == 'u' {
		r2, ok := p.hex4(j + 2)
		if !ok {
			return 0, 0, p.fail(jsonBadUEscape, j+1)
		}
		if 0xDC00 <= r2 && r2 < 0xE000 {
			return utf16.DecodeRune(r, r2), j + 6, true
		}
		// Not a low surrogate: the second escape is read again on its own.
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError // Python keeps the lone surrogate; a Go string cannot
	}
	return r, j, true
}

// hex4 decodes the four hex digits at src[i:], which the caller has checked are there.
func (p *jsonParser) hex4(i int) (rune, bool) {
	var r rune
	for _, c := range p.src[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// hasSurrogate reports whether literal string content holds an encoded surrogate, which
// only a body decoded with surrogatepass can.
func (p *jsonParser) hasSurrogate(b []byte) bool {
	if !p.wtf8 {
		return false
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xED && b[i+1] >= 0xA0 {
			return true
		}
	}
	return false
}

// appendLiteral appends literal string content, with U+FFFD for each encoded surrogate.
func (p *jsonParser) appendLiteral(buf, b []byte) []byte {
	if !p.hasSurrogate(b) {
		return append(buf, b...)
	}
	for i := 0; i < len(b); {
		if b[i] == 0xED && i+1 < len(b) && b[i+1] >= 0xA0 {
			buf = utf8.AppendRune(buf, utf8.RuneError)
			i += 3
			continue
		}
		buf = append(buf, b[i])
		i++
	}
	return buf
}

// jsonCodePoints counts the code points of UTF-8 (or WTF-8) text: one per byte that is not a
// continuation byte. Python's positions count code points.
func jsonCodePoints(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// decodeJSONText is json.loads' bytes.decode(detect_encoding(b), 'surrogatepass'). It returns
// the text as UTF-8, where the surrogates that 'surrogatepass' lets through are encoded in
// three bytes like any other BMP code point (WTF-8) and flagged by wtf8. bad is -1, or the
// byte offset of the first byte Python cannot decode (UnicodeDecodeError.start).
func decodeJSONText(b []byte) (text []byte, wtf8 bool, bad int) {
	// json.detect_encoding: byte order marks first, then the pattern of NUL bytes that
	// ASCII text (a JSON document starts with two ASCII characters) leaves in UTF-16/32.
	switch {
	case bytes.HasPrefix(b, []byte("\x00\x00\xfe\xff")):
		return jsonFromUTF32(b, 4, binary.BigEndian)
	case bytes.HasPrefix(b, []byte("\xff\xfe\x00\x00")):
		return jsonFromUTF32(b, 4, binary.LittleEndian)
	case bytes.HasPrefix(b, []byte("\xfe\xff")):
		return jsonFromUTF16(b, 2, binary.BigEndian)
	case bytes.HasPrefix(b, []byte("\xff\xfe")):
		return jsonFromUTF16(b, 2, binary.LittleEndian)
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")):
		// The utf-8-sig codec drops the mark and counts error offsets from after it.
		return jsonFromUTF8(b[3:])
	case len(b) >= 4 && b[0] == 0 && b[1] != 0:
		return jsonFromUTF16(b, 0, binary.BigEndian)
	case len(b) >= 4 && b[0] == 0:
		return jsonFromUTF32(b, 0, binary.BigEndian)
	case len(b) >= 4 && b[1] == 0 && (b[2] != 0 || b[3] != 0):
		return jsonFromUTF16(b, 0, binary.LittleEndian)
	case len(b) >= 4 && b[1] == 0:
		return jsonFromUTF32(b, 0, binary.LittleEndian)
	case len(b) == 2 && b[0] == 0:
		return jsonFromUTF16(b, 0, binary.BigEndian)
	case len(b) == 2 && b[1] == 0:
		return jsonFromUTF16(b, 0, binary.LittleEndian)
	}
	return jsonFromUTF8(b)
}

// jsonFromUTF8 checks b as Python's UTF-8 decoder with the surrogatepass handler does: valid
// UTF-8 plus encoded surrogates. It does not copy b.
func jsonFromUTF8(b []byte) ([]byte, bool, int) {
	if utf8.Valid(b) {
		return b, false, -1
	}
	wtf8 := false
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		if r, size := utf8.DecodeRune(b[i:]); r != utf8.RuneError || size > 1 {
			i += size
			continue
		}
		if b[i] == 0xED && i+2 < len(b) && b[i+1]&0xE0 == 0xA0 && b[i+2]&0xC0 == 0x80 {
			wtf8 = true
			i += 3
			continue
		}
		return nil, false, i
	}
	return b, wtf8, -1
}

// jsonFromUTF16 decodes UTF-16 from b[skip:], skip being the length of a byte order mark.
// Python's decoder joins surrogate pairs and, with surrogatepass, keeps lone surrogates;
// only an odd trailing byte is an error.
func jsonFromUTF16(b []byte, skip int, order binary.ByteOrder) ([]byte, bool, int) {
	end := skip + (len(b)-skip)&^1
	text := make([]byte, 0, (end-skip)/2*3)
	wtf8 := false
	for i := skip; i < end; i += 2 {
		r := rune(order.Uint16(b[i:]))
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 && i+4 <= end {
				if r2 := rune(order.Uint16(b[i+2:])); 0xDC00 <= r2 && r2 < 0xE000 {
					text = utf8.AppendRune(text, utf16.DecodeRune(r, r2))
					i += 2
					continue
				}
			}
			text, wtf8 = appendWTF8Surrogate(text, r), true
			continue
		}
		text = utf8.AppendRune(text, r)
	}
	if end != len(b) {
		return nil, false, end
	}
	return text, wtf8, -1
}

// jsonFromUTF32 decodes UTF-32 from b[skip:]. Python's decoder rejects values past U+10FFFF
// and a truncated last unit, and with surrogatepass keeps surrogates, even two that would
// make a pair in UTF-16.
func jsonFromUTF32(b []byte, skip int, order binary.ByteOrder) ([]byte, bool, int) {
	end := skip + (len(b)-skip)&^3
	text := make([]byte, 0, end-skip)
	wtf8 := false
	for i := skip; i < end; i += 4 {
		c := order.Uint32(b[i:])
		switch {
		case c > utf8.MaxRune:
			return nil, false, i
		case utf16.IsSurrogate(rune(c)):
			text, wtf8 = appendWTF8Surrogate(text, rune(c)), true
		default:
			text = utf8.AppendRune(text, rune(c))
		}
	}
	if end != len(b) {
		return nil, false, end
	}
	return text, wtf8, -1
}

// appendWTF8Surrogate encodes a surrogate as UTF-8 would encode any code point in its range
// (utf8.AppendRune refuses to), so that the parser sees one code point.
func appendWTF8Surrogate(b []byte, r rune) []byte {
	return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

package datasets

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Datasets uploaded as files, as the original's clients create them: a multipart form
// whose `file` is CSV, JSONL or JSON (feather is refused: the service does not read Arrow).
// The body is at most maxUpload: API Gateway hands a multipart body to Lambda base64-encoded,
// in an event of at most 6 MB, so a larger body is a 413 (413 too for a file over the cap
// itself). A file that does not parse is a 422 naming its line.

// maxUpload is the largest multipart body POST /v2/datasets takes: 4 MiB, base64-encoded
// about 5.6 MB, under Lambda's 6 MB request payload.
const maxUpload = 4 << 20

// uploadFormats are the formats of the original's `format` query parameter.
var uploadFormats = []string{"csv", "jsonl", "json", "feather"}

// parsedFile is an uploaded file's content: columns in order of first appearance, rows in
// column order.
type parsedFile struct {
	columns []string
	rows    [][]any
}

// fileError is a problem at a line of an uploaded file.
type fileError struct {
	line int
	msg  string
}

func (e *fileError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// formatOf is the format of an upload: the query's, else the file name's extension.
func formatOf(query, filename string) string {
	if query != "" {
		return query
	}
	switch strings.ToLower(path.Ext(filename)) {
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".json":
		return "json"
	case ".feather", ".arrow":
		return "feather"
	}
	return "csv"
}

// parseFile reads an uploaded file of format.
func parseFile(format string, data []byte) (parsedFile, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark
	switch format {
	case "csv":
		return parseCSV(data)
	case "jsonl":
		return parseJSONL(data)
	case "json":
		return parseJSON(data)
	}
	return parsedFile{}, errors.New("feather files are not supported: upload CSV, JSONL or JSON")
}

// parseCSV reads a CSV file: the first record names the columns; every value is a string
// (CSV has no types), an empty field the empty string.
func parseCSV(data []byte) (parsedFile, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = false
	header, err := r.Read()
	if err == io.EOF {
		return parsedFile{}, &fileError{line: 1, msg: "the file is empty: the first line must name the columns"}
	}
	if err != nil {
		return parsedFile{}, csvError(err)
	}
	if err := checkColumns(header, 1); err != nil {
		return parsedFile{}, err
	}
	out := parsedFile{columns: header}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return parsedFile{}, csvError(err)
		}
		row := make([]any, len(rec))
		for i, v := range rec {
			row[i] = v
		}
		out.rows = append(out.rows, row)
	}
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = "the line does not have one field per column"
		}
		return &fileError{line: pe.Line, msg: msg}
	}
	return err
}

// checkColumns refuses empty, over-long and repeated column names.
func checkColumns(names []string, line int) error {
	if len(names) > maxColumns {
		return &fileError{line: line, msg: fmt.Sprintf("%d columns, at most %d", len(names), maxColumns)}
	}
	for i, n := range names {
		switch {
		case n == "":
			return &fileError{line: line, msg: fmt.Sprintf("column %d has no name", i+1)}
		case len([]rune(n)) > maxNameLen:
			return &fileError{line: line, msg: fmt.Sprintf("column %d's name is longer than %d characters", i+1, maxNameLen)}
		case slices.Contains(names[:i], n):
			return &fileError{line: line, msg: fmt.Sprintf("column '%s' appears twice", n)}
		}
	}
	return nil
}

// object is one record of a JSON or JSONL file: its keys in the file's order.
type object struct {
	keys   []string
	values map[string]any
	line   int
}

// readObject parses one JSON object, keeping its keys' order.
func readObject(raw []byte, line int) (object, error) {
	v, jerr := validate.ParseJSON(raw)
	if jerr != nil {
		return object{}, &fileError{line: line + lineAt(raw, jerr.Pos) - 1, msg: "not JSON: " + jerr.Msg}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return object{}, &fileError{line: line, msg: "a record must be a JSON object of column names to values"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return object{}, &fileError{line: line, msg: err.Error()}
	}
	o := object{values: m, line: line}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return object{}, &fileError{line: line, msg: err.Error()}
		}
		k, _ := tok.(string)
		if !seen[k] {
			seen[k] = true
			o.keys = append(o.keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return object{}, &fileError{line: line, msg: err.Error()}
		}
	}
	return o, nil
}

// parseJSONL reads one JSON object per line (blank lines are skipped).
func parseJSONL(data []byte) (parsedFile, error) {
	var objects []object
	for i, line := range bytes.Split(data, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		o, err := readObject(line, i+1)
		if err != nil {
			return parsedFile{}, err
		}
		objects = append(objects, o)
	}
	return fromObjects(objects)
}

// parseJSON reads a JSON array of objects; each keeps the line it starts on.
func parseJSON(data []byte) (parsedFile, error) {
	if _, jerr := validate.ParseJSON(data); jerr != nil {
		return parsedFile{}, &fileError{line: lineAt(data, jerr.Pos), msg: "not JSON: " + jerr.Msg}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return parsedFile{}, &fileError{line: 1, msg: "the file must be a JSON array of objects of column names to values"}
	}
	var objects []object
	for dec.More() {
		var raw json.RawMessage
		start := int(dec.InputOffset())
		if err := dec.Decode(&raw); err != nil {
			return parsedFile{}, &fileError{line: lineAtByte(data, start), msg: err.Error()}
		}
		line := lineAtByte(data, start+leadingSpace(data[start:]))
		o, err := readObject(raw, line)
		if err != nil {
			return parsedFile{}, err
		}
		objects = append(objects, o)
	}
	return fromObjects(objects)
}

func leadingSpace(b []byte) int { return len(b) - len(bytes.TrimLeft(b, " \t\r\n,")) }

// lineAt is the 1-based line of code point offset pos of data.
func lineAt(data []byte, pos int) int {
	line := 1
	for i, r := range []rune(string(data)) {
		if i >= pos {
			break
		}
		if r == '\n' {
			line++
		}
	}
	return line
}

// lineAtByte is the 1-based line of byte offset off of data.
func lineAtByte(data []byte, off int) int {
	return bytes.Count(data[:min(max(off, 0), len(data))], []byte("\n")) + 1
}

// fromObjects turns records into rows: the columns are the keys in order of first
// appearance; a value must be one the dataset keeps (readValue's rules).
func fromObjects(objects []object) (parsedFile, error) {
	var out parsedFile
	index := map[string]int{}
	for _, obj := range objects {
		errs := validate.New()
		o, _ := errs.Body(obj.values, true).Dict()
		row := make([]any, len(out.columns), len(out.columns)+len(obj.keys))
		for _, k := range obj.keys {
			if _, ok := index[k]; !ok {
				index[k] = len(out.columns)
				out.columns = append(out.columns, k)
				row = append(row, nil)
			}
			v, _ := readValue(o.Get(k))
			row[index[k]] = v
		}
		if errs.Len() > 0 {
			d := errs.Detail[0]
			return parsedFile{}, &fileError{line: obj.line, msg: fmt.Sprintf("%s: %s", locText(d.Loc[1:]), d.Msg)}
		}
		out.rows = append(out.rows, row)
	}
	if err := checkColumns(out.columns, 1); err != nil {
		return parsedFile{}, err
	}
	for i := range out.rows { // rows read before a later column appeared are shorter
		for len(out.rows[i]) < len(out.columns) {
			out.rows[i] = append(out.rows[i], nil)
		}
	}
	return out, nil
}

func locText(loc []any) string {
	parts := make([]string, len(loc))
	for i, l := range loc {
		parts[i] = fmt.Sprint(l)
	}
	return strings.Join(parts, ".")
}

// rowsFit checks every row against the size of one stored row.
func (f parsedFile) rowsFit(offset int) error {
	for i, row := range f.rows {
		n, err := store.Normalize(row)
		if err != nil || store.DatasetRowSize(n.([]any)) > store.MaxDatasetRowBytes {
			return &fileError{line: i + offset, msg: fmt.Sprintf("the row is larger than %d bytes", store.MaxDatasetRowBytes)}
		}
	}
	return nil
}

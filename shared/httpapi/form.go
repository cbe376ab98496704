package httpapi

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
)

// Form is a form body (multipart/form-data or application/x-www-form-urlencoded): its text
// fields and its files, each the last of its name when a name repeats, as Starlette keeps
// them.
type Form struct {
	Values map[string]string
	Files  map[string]FormFile
}

// FormFile is a file of a multipart body.
type FormFile struct {
	Filename    string
	ContentType string
	Data        []byte
}

// ReadForm reads a form body of at most limit bytes (MaxBody when 0; a larger one is a
// 413). A body of another type is an empty form, as Starlette reads it, so that the
// operation's required fields are reported missing; a multipart body that does not parse
// is a 400.
func ReadForm(r *http.Request, limit int64) (Form, error) {
	data, err := ReadBody(r, limit)
	if err != nil {
		return Form{}, err
	}
	f := Form{Values: map[string]string{}, Files: map[string]FormFile{}}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/x-www-form-urlencoded":
		vals, _ := url.ParseQuery(string(data))
		for k, vs := range vals {
			f.Values[k] = vs[len(vs)-1]
		}
	case "multipart/form-data":
		mf, err := multipart.NewReader(bytes.NewReader(data), params["boundary"]).ReadForm(int64(len(data)) + 1)
		if err != nil {
			return Form{}, &StatusError{Status: http.StatusBadRequest, Detail: "There was an error parsing the body"}
		}
		defer mf.RemoveAll()
		for k, vs := range mf.Value {
			f.Values[k] = vs[len(vs)-1]
		}
		for k, fhs := range mf.File {
			fh := fhs[len(fhs)-1]
			file, err := fh.Open()
			if err != nil {
				return Form{}, err
			}
			b, err := io.ReadAll(file)
			file.Close()
			if err != nil {
				return Form{}, err
			}
			f.Files[k] = FormFile{Filename: fh.Filename, ContentType: fh.Header.Get("Content-Type"), Data: b}
		}
	}
	return f, nil
}

package experiments

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
)

func TestRenderTemplateStrings(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.ReadOnly // rendering writes nothing: any member renders
	for _, tc := range []struct {
		name, query, body string
		code              int
		want              []string // results, or for a 422, substrings of the body
	}{
		{"JSON objects define variables", "", `{"template":"{{ a }} and {{b}}","data":{"input_strings":["{\"a\":\"x\",\"b\":{\"k\":1}}","{\"a\":null,\"b\":2}"]}}`,
			200, []string{`x and {"k":1}`, " and 2"}},
		{"a plain string is input", "", `{"template":"Q: {{input}}","data":{"input_strings":["what?","[1,2]"]}}`,
			200, []string{"Q: what?", "Q: [1,2]"}},
		{"paged", "?starting_token=1&limit=1", `{"template":"{{input}}!","data":{"input_strings":["a","b","c"]}}`,
			200, []string{"b!"}},
		{"no variables", "", `{"template":"static","data":{"input_strings":["x"]}}`, 200, []string{"static"}},
		{"an undefined variable is named", "", `{"template":"{{a}} {{zeta}}","data":{"input_strings":["{\"a\":1}","{\"a\":1,\"zeta\":2}","plain"]}}`,
			422, []string{`"loc":["body","data","input_strings",0]`, "'zeta'", `"loc":["body","data","input_strings",2]`, "'a', 'zeta'"}},
		{"no data", "", `{"template":"x"}`, 422, []string{`"loc":["body","data"]`}},
		{"data of neither kind", "", `{"template":"x","data":{"rows":[]}}`, 422, []string{`"loc":["body","data"]`}},
		{"an empty template", "", `{"template":"","data":{"input_strings":[]}}`, 422, []string{`"loc":["body","template"]`}},
		{"a bad page", "?limit=0", `{"template":"x","data":{"input_strings":[]}}`, 422, []string{`"loc":["query","limit"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(u, "POST", "/v2/render_template"+tc.query, tc.body)
			if code != tc.code {
				t.Fatalf("%d %s, want %d", code, body, tc.code)
			}
			if code != 200 {
				for _, w := range tc.want {
					if !strings.Contains(body, w) {
						t.Errorf("%s lacks %s", body, w)
					}
				}
				return
			}
			got := h.must(u, "POST", "/v2/render_template"+tc.query, tc.body)
			var results []string
			for _, r := range got["rendered_templates"].([]any) {
				results = append(results, r.(map[string]any)["result"].(string))
			}
			if fmt.Sprintf("%q", results) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("got %q, want %q", results, tc.want)
			}
		})
	}
	if code, _ := h.do(nil, "POST", "/v2/render_template", `{"template":"x","data":{"input_strings":[]}}`); code != 401 {
		t.Errorf("without a credential: %d", code)
	}
}

func TestRenderTemplateDataset(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	ds := h.dataset(u, 5) // input q0..q4, output a0..a4, topic
	render := func(query, body string) map[string]any {
		return h.must(u, "POST", "/v2/render_template"+query, body)
	}
	body := fmt.Sprintf(`{"template":"{{input}} -> {{output}}","data":{"dataset_id":%q,"dataset_version_index":null}}`, ds)
	// Paged as the client pages: starting_token and limit over the rows, next_starting_token
	// until the last page.
	var all []string
	for token := any(float64(0)); token != nil; {
		page := render(fmt.Sprintf("?starting_token=%v&limit=2", token), body)
		for _, r := range page["rendered_templates"].([]any) {
			all = append(all, r.(map[string]any)["result"].(string))
		}
		token = page["next_starting_token"]
		if len(all) > 5 {
			t.Fatal("the pages do not end")
		}
	}
	if strings.Join(all, "|") != "q0 -> a0|q1 -> a1|q2 -> a2|q3 -> a3|q4 -> a4" {
		t.Errorf("rendered rows: %q", all)
	}
	if page := render("?starting_token=9", body); len(page["rendered_templates"].([]any)) != 0 || page["next_starting_token"] != nil {
		t.Errorf("past the end: %v", page)
	}
	for _, tc := range []struct {
		name     string
		who      int // 0: the owner, 1: another organization's admin, 2: a member with no role on the dataset
		body     string
		code     int
		contains string
	}{
		{"a variable that is not a column", 0, fmt.Sprintf(`{"template":"{{input}} {{mood}}","data":{"dataset_id":%q}}`, ds),
			422, "'mood' are not columns of the dataset (columns: input, output, topic)"},
		{"a version the dataset lacks", 0, fmt.Sprintf(`{"template":"x","data":{"dataset_id":%q,"dataset_version_index":9}}`, ds),
			422, `"loc":["body","data","dataset_version_index"]`},
		{"an unknown dataset", 0, fmt.Sprintf(`{"template":"x","data":{"dataset_id":%q}}`, uuid.NewString()), 404, "Dataset not found"},
		{"another organization's dataset", 1, fmt.Sprintf(`{"template":"x","data":{"dataset_id":%q}}`, ds), 404, "Dataset not found"},
		{"a member without a role on it", 2, fmt.Sprintf(`{"template":"x","data":{"dataset_id":%q}}`, ds), 404, "Dataset not found"},
		{"a bad dataset id", 0, `{"template":"x","data":{"dataset_id":"nope"}}`, 422, `"loc":["body","data","dataset_id"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			who := []*authtest.User{u, &h.other.Admin, &h.org.Manager}[tc.who]
			if code, body := h.do(who, "POST", "/v2/render_template", tc.body); code != tc.code || !strings.Contains(body, tc.contains) {
				t.Errorf("%d %s, want %d with %q", code, body, tc.code, tc.contains)
			}
		})
	}
}

package traces

import (
	"fmt"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// TestRawContentTestIsExact holds the scan's test of the raw content to the filters' own
// test of the decoded trace: a trace it skips must fail the filters, and one it passes must
// pass them, whatever escapes or shapes the content holds.
func TestRawContentTestIsExact(t *testing.T) {
	contents := []store.RecordContent{
		{},
		{Input: store.StringContent("How do I reset my password?"), Output: store.StringContent(`Here is "password" help.`)},
		{Input: store.StringContent(`Say "PassWord"`), Output: store.StringContent("none")},
		{Input: store.Content(`"pass\u0077ord reset"`), Output: store.StringContent("x")},
		{Input: store.Content(`[{"role":"user","content":"my password"}]`)},
		{Input: store.Content(`{"q":"password"}`), Output: store.Content(`null`)},
		{Output: store.StringContent("password only in the output")},
		{Input: store.StringContent("ÉCOLE password"), Output: store.StringContent("tab\there")},
		{Input: store.StringContent("exactly this")},
	}
	filters := []string{
		`{"type":"text","name":"input","operator":"contains","value":"password"}`,
		`{"type":"text","name":"input","operator":"contains","value":"PASSWORD","case_sensitive":false}`,
		`{"type":"text","name":"input","operator":"contains","value":"PASSWORD"}`,
		`{"type":"text","name":"input","operator":"eq","value":"exactly this"}`,
		`{"type":"text","name":"input","operator":"ne","value":"exactly this"}`,
		`{"type":"text","name":"input","operator":"not_in","value":["exactly this","x"]}`,
		`{"type":"text","name":"input","operator":"one_of","value":["exactly this","How do I reset my password?"]}`,
		`{"type":"text","name":"output","operator":"contains","value":"\"password\""}`,
		`{"type":"text","name":"output","operator":"contains","value":"tab\there"}`,
		`{"type":"text","name":"output","operator":"eq","value":""}`,
		`{"type":"text","name":"input","operator":"contains","value":"école","case_sensitive":false}`,
	}
	for i, c := range contents {
		tr := store.Trace{ID: fmt.Sprintf("aaaaaaaa-0000-4000-8000-%012d", i), RecordContent: c}
		it, err := store.TraceItem(tr)
		if err != nil {
			t.Fatal(err)
		}
		raw := store.RawContent(it)
		for _, js := range filters {
			f := parseFilter(t, js)
			o := scanOptions([]*filter{f}, "")
			if o.Prefilter == nil || !o.Content {
				t.Fatalf("%s: no raw test, or no content decoded", js)
			}
			if got, want := o.Prefilter(raw), f.match(&tr); got != want {
				t.Errorf("content %s, filter %s: raw test %v, filter %v", raw, js, got, want)
			}
		}
	}
}

// TestRawContentTestLeavesPayloadsToTheFullTest: content kept in the payload store is only a
// reference in the item, so the raw test must pass it on.
func TestRawContentTestLeavesPayloadsToTheFullTest(t *testing.T) {
	o := scanOptions([]*filter{parseFilter(t, `{"type":"text","name":"input","operator":"eq","value":"x"}`)}, "")
	if !o.Prefilter(`{"input":{"$evalapi_payload":"k"}}`) {
		t.Error("a payload reference was skipped")
	}
	if !o.Prefilter(`{"input":"x"`) {
		t.Error("content the store did not write was skipped, not left to the full decode")
	}
}

package store

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The content splitter reads what encoding/json reads from a marshalled RecordContent, on
// random contents of every shape, and gives up (false) on what it does not know.
func TestDecodeRecordContentMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	values := []string{`"plain"`, `"esc \"quoted\" \\ back\\"`, `"\u2028 \ud83d\ude00"`, `null`, `true`, `12.5e-3`, `-0`,
		`[]`, `{}`, `[1,"a",{"b":[null,{"c":"}]"}]}]`, `{"role":"user","content":"hi, {there}"}`,
		`[{"type":"text","text":"a]b"},{"type":"image_url","image_url":{"url":"x"}}]`, `"ends with backslash \\"`}
	pick := func() Content {
		if rng.IntN(4) == 0 {
			return nil
		}
		return Content(values[rng.IntN(len(values))])
	}
	took := 0
	for range 5000 {
		c := RecordContent{Input: pick(), Output: pick(), RedactedInput: pick(), RedactedOutput: pick(), Tools: pick(), Events: pick()}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var want, got RecordContent
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if decodeRecordContent(string(b), &got) {
			took++
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s:\n split %+v\n json  %+v", b, got, want)
			}
		}
	}
	if took < 4900 {
		t.Fatalf("the splitter took %d of 5000 marshalled contents", took)
	}
	for _, bad := range []string{`{"Input":"x"}`, `{"other":1}`, `{"input":}`, `{"input":"x"`, `{"input":[1,2}`, `x`, `{"input":"x"} `} {
		var got RecordContent
		if decodeRecordContent(bad, &got) {
			t.Errorf("%s: taken as %+v", bad, got)
		}
	}
}

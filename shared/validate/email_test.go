package validate

import "testing"

func TestEmail(t *testing.T) {
	for _, tt := range []struct {
		in      any
		want    string
		wantMsg string
	}{
		{"Ada@Example.com", "Ada@Example.com", ""},
		// Reasons as email-validator 2 words them (Pydantic 2.13's EmailStr).
		{"nobody", "", "value is not a valid email address: An email address must have an @-sign."},
		{"@example.com", "", "value is not a valid email address: There must be something before the @-sign."},
		{"a@", "", "value is not a valid email address: There must be something after the @-sign."},
		{"a@b@example.com", "", "value is not a valid email address: The part after the @-sign contains invalid characters: '@'."},
		{"ada@localhost", "", "value is not a valid email address: The part after the @-sign is not valid. It should have a period."},
		{"ada@example.com.", "", "value is not a valid email address: An email address cannot end with a period."},
		{"ada@.example.com", "", "value is not a valid email address: An email address cannot have a period immediately after the @-sign."},
		{"ada@example..com", "", "value is not a valid email address: An email address cannot have two periods in a row."},
		{"ada lovelace@example.com", "", "value is not a valid email address: The email address contains invalid characters before the @-sign: SPACE."},
		{"ada@exa mple.com", "", "value is not a valid email address: The part after the @-sign contains invalid characters: SPACE."},
		{42, "", "Input should be a valid string"},
	} {
		errs := New()
		got, ok := errs.Body(map[string]any{"email": tt.in}, true).Required().Object()
		if !ok {
			t.Fatal("body is an object")
		}
		s, ok := got.Get("email").Email()
		if tt.wantMsg == "" {
			if !ok || s != tt.want || errs.Err() != nil {
				t.Errorf("Email(%v) = %q, %v, %v; want %q", tt.in, s, ok, errs.Err(), tt.want)
			}
			continue
		}
		if ok || errs.Len() != 1 || errs.Detail[0].Msg != tt.wantMsg || errs.Detail[0].Loc[1] != "email" ||
			(errs.Detail[0].Type == "value_error" && errs.Detail[0].Ctx["reason"] == nil) {
			t.Errorf("Email(%v): ok %v, errors %+v; want one error %q at email", tt.in, ok, errs.Detail, tt.wantMsg)
		}
	}
}

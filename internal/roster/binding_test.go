package roster

import (
	"errors"
	"testing"
)

func TestBindingKeepsANameOnItsURL(t *testing.T) {
	const (
		self  = "https://me.example/t/"
		good  = "https://good.example/t/"
		other = "https://evil.example/t/"
	)
	tests := []struct {
		name       string
		bind       string
		url        string
		gossip     bool
		wantReason string // "" for accepted
	}{
		{"the same pair again is no conflict", "good1", good, true, ""},
		{"a known name on another url", "good1", other, true, ReasonNameTaken},
		{"a known name in another case", "GOOD1", other, true, ReasonNameTaken},
		{"a known name in another case by a person too", "Good1", other, false, ReasonNameTaken},
		{"our own name", "me", other, true, ReasonNameTaken},
		{"our own name in another case", "Me", other, true, ReasonNameTaken},
		{"a known url under another name", "alias", good, true, ReasonURLTaken},
		{"a digit look-alike by gossip", "g00d1", other, true, ReasonLookAlike},
		{"an l look-alike by gossip", "goodl", other, true, ReasonLookAlike},
		{"an i look-alike by gossip", "goodi", other, true, ReasonLookAlike},
		{"a separator look-alike by gossip", "good_2", other, true, ReasonLookAlike},
		{"rn for m by gossip", "rne", other, true, ReasonLookAlike},
		{"a look-alike a person lists is theirs to decide", "g00d1", other, false, ""},
		{"a non-ascii look-alike is no name at all", "gооd1", other, true, ReasonBadName},
		{"an empty name", "", other, true, ReasonBadName},
		{"a new name on a new url", "newcomer", other, true, ""},
		// A second spelling of a known URL is that URL.
		{"a known url with an escaped letter", "alias", "https://good.example/%74/", true, ReasonURLTaken},
		{"a known url with its default port", "alias", "https://good.example:443/t/", true, ReasonURLTaken},
		{"a known url with a trailing dot", "alias", "https://good.example./t/", true, ReasonURLTaken},
		{"a known name at a second spelling of its url", "good1", "HTTPS://GOOD.example:443/%74", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBinding()
			for _, p := range [][2]string{{"me", self}, {"good1", good}, {"good-2", "https://good.example/2/"}} {
				if err := b.Bind(p[0], p[1]); err != nil {
					t.Fatal(err)
				}
			}
			bind := b.Bind
			if tt.gossip {
				bind = b.BindGossip
			}
			err := bind(tt.bind, tt.url)
			if tt.wantReason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if u, _ := b.URL(tt.bind); u != canonical(tt.url) {
					t.Errorf("URL(%s) = %s", tt.bind, u)
				}
				return
			}
			var ce *ConflictError
			if !errors.As(err, &ce) || ce.Reason != tt.wantReason {
				t.Fatalf("err = %v, want a conflict of reason %q", err, tt.wantReason)
			}
			if u, _ := b.URL("good1"); u != good {
				t.Errorf("good1 moved to %s", u)
			}
			if n, _ := b.Name(good); n != "good1" {
				t.Errorf("%s renamed to %s", good, n)
			}
		})
	}
}

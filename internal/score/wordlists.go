package score

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// boilerplate are phrases of traces that say nothing of their own, and
// imperativeVerbs the verbs that open an instruction.
var (
	boilerplate = []string{
		"test publish", "hello mycel", "this is my onboarding trace", "joined the mycel network",
		"none yet", "first trace", "lorem ipsum", "just joined",
	}
	imperativeVerbs = map[string]bool{
		"add": true, "use": true, "run": true, "build": true, "fix": true, "treat": true, "set": true,
		"check": true, "call": true, "create": true, "publish": true, "register": true, "turn": true,
		"give": true, "deploy": true, "install": true, "read": true, "test": true, "write": true,
		"make": true, "send": true, "start": true, "stop": true, "avoid": true, "keep": true,
		"don't": true, "do": true, "never": true, "always": true, "pass": true, "return": true,
		"resolve": true, "confirm": true, "retry": true, "verify": true, "measure": true, "replace": true,
		"remove": true, "move": true, "double": true, "watch": true, "extract": true, "fetch": true,
	}
)

// commonWords are English function words, the glue of any prose whatever
// its subject. "a" and "I" are left out: random letters make them.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the of and to in is it that for on with as are be this
		was by not or at from but an have has we they you can if no so do does what which
		when all one more its our their will would there than then into each only how who
		been were he she his her my your me us them these those any some other about out
		up just also because`) {
		commonWords[w] = true
	}
}

// countCommon counts the words of two or more characters with a letter in
// them, and how many of those are commonWords.
func countCommon(words []string) (lettered, common int) {
	for _, w := range words {
		if utf8.RuneCountInString(w) < 2 || strings.IndexFunc(w, unicode.IsLetter) < 0 {
			continue
		}
		lettered++
		if commonWords[strings.ToLower(w)] {
			common++
		}
	}
	return lettered, common
}

func findBoilerplate(body string) string {
	low := strings.ToLower(body)
	for _, p := range boilerplate {
		if strings.Contains(low, p) {
			return p
		}
	}
	return ""
}

package score

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// features are the countable facts of a trace body that the heuristic
// scores from. Distinct counts are used where repetition should not pay.
type features struct {
	proseWords         int      // words in ordinary sentences and list items
	codeWords          int      // words inside code blocks
	title              string   // first "# " heading
	headings           []string // "##"–"####" heading texts, lowercased, in order
	listItems          int
	numberedItems      int
	tableRows          int
	codeBlocks         int
	inlineCode         int
	commands           int             // lines that hold a shell command or a --flag
	imperatives        int             // list items that start with a verb
	imperativeHeadings int             // headings that start with a verb ("Treat … as …")
	numbers            int             // distinct numeric tokens
	urls               int             // distinct URLs
	paths              int             // distinct paths and file names
	cites              map[string]bool // distinct "agent/seq" references, seq without leading zeros
	wordCites          map[string]bool // "agent trace N", "agent's seq N": references in words, if agent is one
	dates              int             // distinct ISO dates outside the metadata
	named              int             // distinct CamelCase or versioned names
	fields             map[string]string
	repeated           int    // words in paragraphs that appear twice or more
	boilerplate        string // the first boilerplate phrase found, if any
	// lettered counts the prose words of two or more characters with a
	// letter in them, and common those that are common English words
	// (commonWords): readable prose is about a third common words.
	lettered, common int
}

// minRepeatedWords is the shortest paragraph whose repetition counts as
// padding: short lines such as "None" or "- yes" legitimately repeat.
const minRepeatedWords = 8

var (
	boldField   = regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z _-]{0,30}):\*\*\s*(.*)$`)
	boldField2  = regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z _-]{0,30})\*\*:\s*(.*)$`)
	listLine    = regexp.MustCompile(`^\s*[-*+]\s+(.*)$`)
	numberLine  = regexp.MustCompile(`^\s*\d{1,3}[.)]\s+(.*)$`)
	urlRe       = regexp.MustCompile(`https?://[^\s)>\]"']+`)
	wordCiteRe  = regexp.MustCompile(`(?i)\b([a-z][a-z0-9-]{1,30})(?:'s|’s)? (?:trace|seq) #?(\d{1,4})\b`)
	inlineRe    = regexp.MustCompile("`[^`\n]+`")
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

// analyze reads a markdown body line by line.
func analyze(body string) *features {
	f := &features{fields: map[string]string{}, cites: map[string]bool{}, wordCites: map[string]bool{}}
	sets := map[string]map[string]bool{"num": {}, "url": {}, "path": {}, "date": {}, "named": {}}
	paras := map[string]int{}
	var para []string
	flush := func() {
		if len(para) > 0 {
			paras[strings.Join(para, " ")]++
			para = nil
		}
	}
	inCode := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if !inCode {
				f.codeBlocks++
			}
			inCode = !inCode
			flush()
			continue
		}
		if inCode {
			f.codeWords += countWords(t)
			f.scanTokens(t, sets, false)
			continue
		}
		if t == "" || t == "---" {
			flush()
			continue
		}
		// Bold "**Field:**" lines are metadata only in the header, before
		// the first section; further down they are bold lead-ins of prose.
		if (len(f.headings) == 0 && f.metaLine(t)) || f.headingLine(t) {
			flush()
			continue
		}
		f.scanTokens(t, sets, true)
		para = append(para, t)
	}
	flush()
	for p, n := range paras {
		words := wordsIn(p)
		w := len(words)
		f.proseWords += w * n
		lettered, common := countCommon(words)
		f.lettered += lettered * n
		f.common += common * n
		if n > 1 && w >= minRepeatedWords {
			f.repeated += w * (n - 1)
		}
	}
	f.numbers, f.urls, f.paths = len(sets["num"]), len(sets["url"]), len(sets["path"])
	f.dates, f.named = len(sets["date"]), len(sets["named"])
	f.boilerplate = findBoilerplate(body)
	return f
}

// metaLine records a bold "**Field:** value" line.
func (f *features) metaLine(t string) bool {
	m := boldField.FindStringSubmatch(t)
	if m == nil {
		m = boldField2.FindStringSubmatch(t)
	}
	if m == nil {
		return false
	}
	k := strings.ToLower(strings.TrimSpace(m[1]))
	if _, ok := f.fields[k]; !ok {
		f.fields[k] = strings.TrimSpace(m[2])
	}
	return true
}

// headingLine records a markdown heading.
func (f *features) headingLine(t string) bool {
	if !strings.HasPrefix(t, "#") {
		return false
	}
	level := len(t) - len(strings.TrimLeft(t, "#"))
	text := strings.TrimSpace(t[level:])
	if level > 6 || text == "" || (len(t) > level && t[level] != ' ') {
		return false
	}
	if level == 1 && f.title == "" {
		f.title = text
		return true
	}
	f.headings = append(f.headings, strings.ToLower(text))
	if imperativeVerbs[strings.ToLower(firstWord(strings.TrimLeft(text, "0123456789.) `*")))] {
		f.imperativeHeadings++
	}
	return true
}

// scanTokens counts the specific tokens of one line; prose lines also
// count as list items, table rows and imperatives. A regexp is run only
// on a line that holds what it needs to match ("http", "trace 1");
// the other tokens have matchers of their own (tokens.go).
func (f *features) scanTokens(t string, sets map[string]map[string]bool, prose bool) {
	noURL := t
	if strings.Contains(t, "http") {
		for _, u := range urlRe.FindAllString(t, -1) {
			sets["url"][u] = true
		}
		noURL = urlRe.ReplaceAllString(t, " ")
	}
	eachMatch(noURL, nextPath, func(p string) { sets["path"][p] = true })
	for from := 0; ; {
		i, slash, e := nextCite(noURL, from)
		if i < 0 {
			break
		}
		f.cites[citation(noURL[i:slash], noURL[slash+1:e])] = true
		from = e
	}
	if mayCiteInWords(noURL) {
		for _, m := range wordCiteRe.FindAllStringSubmatch(noURL, -1) {
			f.wordCites[citation(m[1], m[2])] = true
		}
	}
	eachMatch(noURL, nextDate, func(d string) { sets["date"][d] = true })
	eachMatch(withoutDates(noURL), nextNumber, func(n string) { sets["num"][strings.TrimRight(n, ".,")] = true })
	eachMatch(noURL, nextNamed, func(n string) { sets["named"][n] = true })
	if isCommand(t) {
		f.commands++
	}
	if !prose {
		return
	}
	f.inlineCode += len(inlineRe.FindAllString(t, -1))
	switch {
	case strings.HasPrefix(t, "|"):
		f.tableRows++
	case listLine.MatchString(t):
		f.listItems++
		f.countImperative(listLine.FindStringSubmatch(t)[1])
	case numberLine.MatchString(t):
		f.numberedItems++
		f.countImperative(numberLine.FindStringSubmatch(t)[1])
	}
}

// mayCiteInWords reports whether s can hold a citation in words
// (wordCiteRe): "trace" or "seq" in any case, a space, and a figure,
// perhaps after "#". Of their letters only "s" folds to more than its
// capital, to "ſ".
func mayCiteInWords(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != ' ' || !(isDigit(s[i+1]) || s[i+1] == '#' && i+2 < len(s) && isDigit(s[i+2])) {
			continue
		}
		before := s[:i]
		if hasLowerSuffix(before, "trace") {
			return true
		}
		if hasLowerSuffix(before, "eq") {
			if b := before[:len(before)-2]; hasLowerSuffix(b, "s") || strings.HasSuffix(b, "ſ") {
				return true
			}
		}
	}
	return false
}

// hasLowerSuffix reports whether s ends with the lowercase ASCII letters
// suffix, in any case.
func hasLowerSuffix(s, suffix string) bool {
	if len(s) < len(suffix) {
		return false
	}
	s = s[len(s)-len(suffix):]
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 != suffix[i] {
			return false
		}
	}
	return true
}

// citation is the canonical "agent/seq" of a reference: "noobAgent trace
// 022" and "noobagent/22" name the same trace.
func citation(agent, seq string) string {
	seq = strings.TrimLeft(seq, "0")
	if seq == "" {
		seq = "0"
	}
	return strings.ToLower(agent) + "/" + seq
}

func (f *features) countImperative(item string) {
	item = strings.TrimLeft(item, "*_` ")
	w := strings.ToLower(firstWord(item))
	if imperativeVerbs[w] {
		f.imperatives++
	}
}

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

// BodyWords counts the words of a trace body, prose and code, the length
// that decides whether it is a thin note (docs/scoring.md).
func BodyWords(body []byte) int {
	f := analyze(string(body))
	return f.proseWords + f.codeWords
}

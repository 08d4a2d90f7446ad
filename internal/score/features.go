package score

import (
	"regexp"
	"strings"
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
	boldField  = regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z _-]{0,30}):\*\*\s*(.*)$`)
	boldField2 = regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z _-]{0,30})\*\*:\s*(.*)$`)
	listLine   = regexp.MustCompile(`^\s*[-*+]\s+(.*)$`)
	numberLine = regexp.MustCompile(`^\s*\d{1,3}[.)]\s+(.*)$`)
	urlRe      = regexp.MustCompile(`https?://[^\s)>\]"']+`)
	inlineRe   = regexp.MustCompile("`[^`\n]+`")
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
// the other tokens have matchers of their own (tokens.go and the files
// it names).
func (f *features) scanTokens(t string, sets map[string]map[string]bool, prose bool) {
	noURL := t
	if strings.Contains(t, "http") {
		for _, u := range urlRe.FindAllString(t, -1) {
			sets["url"][u] = true
		}
		noURL = urlRe.ReplaceAllString(t, " ")
	}
	eachMatch(noURL, nextPath, func(p string) { sets["path"][p] = true })
	f.scanCites(noURL)
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

func (f *features) countImperative(item string) {
	item = strings.TrimLeft(item, "*_` ")
	w := strings.ToLower(firstWord(item))
	if imperativeVerbs[w] {
		f.imperatives++
	}
}

// BodyWords counts the words of a trace body, prose and code, the length
// that decides whether it is a thin note (docs/scoring.md).
func BodyWords(body []byte) int {
	f := analyze(string(body))
	return f.proseWords + f.codeWords
}

package score

import (
	"regexp"
	"strings"

	"github.com/meshnode/meshnode/internal/trace"
)

// The reference heuristic: analyze and nearestKnown as they were written
// before they were made fast, with the regular expressions that define
// what each token is. The equivalence and fuzz tests hold the fast code
// to it; a change to what a token is, or to a counting rule, is made here
// too.

var (
	refBoldField  = regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z _-]{0,30}):\*\*\s*(.*)$`)
	refBoldField2 = regexp.MustCompile(`^\*\*([A-Za-z][A-Za-z _-]{0,30})\*\*:\s*(.*)$`)
	refListLine   = regexp.MustCompile(`^\s*[-*+]\s+(.*)$`)
	refNumberLine = regexp.MustCompile(`^\s*\d{1,3}[.)]\s+(.*)$`)
	refURLRe      = regexp.MustCompile(`https?://[^\s)>\]"']+`)
	refPathRe     = regexp.MustCompile(`(?:^|[\s(` + "`" + `])((?:/[A-Za-z0-9._{}:-]+){2,}/?|[A-Za-z0-9_-]+\.(?:md|go|py|js|ts|json|yaml|yml|sh|txt|toml|html))\b`)
	refCiteRe     = regexp.MustCompile(`\b([a-z][a-z0-9-]{1,30})/(\d{1,4})\b`)
	refWordCiteRe = regexp.MustCompile(`(?i)\b([a-z][a-z0-9-]{1,30})(?:'s|’s)? (?:trace|seq) #?(\d{1,4})\b`)
	refDateRe     = regexp.MustCompile(`\b20\d\d-[01]\d-[0-3]\d\b`)
	refNumberRe   = regexp.MustCompile(`\b\d[\d,.]*%?`)
	refInlineRe   = regexp.MustCompile("`[^`\n]+`")
	refNamedRe    = regexp.MustCompile(`\b(?:[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{3,6}|v\d+\.\d+(?:\.\d+)?)\b`)
	refCommandRe  = regexp.MustCompile(`(?:^|\s)(?:\$ |(?:GET|POST|PUT|PATCH|DELETE) /|(?:curl|python3?|go|git|npm|npx|node|bun|bash|sh|make|docker|pip|meshnode|jq|sha256sum) [\w./<-])|\s--[a-z][a-z-]+`)
	refWordRe     = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'’-]*`)
)

// referenceAnalyze is analyze with every token found by its regexp.
func referenceAnalyze(body string) *features {
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
			f.codeWords += len(refWordRe.FindAllString(t, -1))
			referenceScanTokens(f, t, sets, false)
			continue
		}
		if t == "" || t == "---" {
			flush()
			continue
		}
		if (len(f.headings) == 0 && referenceMetaLine(f, t)) || referenceHeadingLine(f, t) {
			flush()
			continue
		}
		referenceScanTokens(f, t, sets, true)
		para = append(para, t)
	}
	flush()
	for p, n := range paras {
		words := refWordRe.FindAllString(p, -1)
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

func referenceMetaLine(f *features, t string) bool {
	m := refBoldField.FindStringSubmatch(t)
	if m == nil {
		m = refBoldField2.FindStringSubmatch(t)
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

func referenceHeadingLine(f *features, t string) bool {
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
	if imperativeVerbs[strings.ToLower(refWordRe.FindString(strings.TrimLeft(text, "0123456789.) `*")))] {
		f.imperativeHeadings++
	}
	return true
}

func referenceScanTokens(f *features, t string, sets map[string]map[string]bool, prose bool) {
	for _, u := range refURLRe.FindAllString(t, -1) {
		sets["url"][u] = true
	}
	noURL := refURLRe.ReplaceAllString(t, " ")
	for _, m := range refPathRe.FindAllStringSubmatch(noURL, -1) {
		sets["path"][m[1]] = true
	}
	for _, m := range refCiteRe.FindAllStringSubmatch(noURL, -1) {
		f.cites[citation(m[1], m[2])] = true
	}
	for _, m := range refWordCiteRe.FindAllStringSubmatch(noURL, -1) {
		f.wordCites[citation(m[1], m[2])] = true
	}
	for _, d := range refDateRe.FindAllString(noURL, -1) {
		sets["date"][d] = true
	}
	for _, n := range refNumberRe.FindAllString(refDateRe.ReplaceAllString(noURL, " "), -1) {
		sets["num"][strings.TrimRight(n, ".,")] = true
	}
	for _, n := range refNamedRe.FindAllString(noURL, -1) {
		sets["named"][n] = true
	}
	if refCommandRe.MatchString(t) {
		f.commands++
	}
	if !prose {
		return
	}
	f.inlineCode += len(refInlineRe.FindAllString(t, -1))
	switch {
	case strings.HasPrefix(t, "|"):
		f.tableRows++
	case refListLine.MatchString(t):
		f.listItems++
		referenceCountImperative(f, refListLine.FindStringSubmatch(t)[1])
	case refNumberLine.MatchString(t):
		f.numberedItems++
		referenceCountImperative(f, refNumberLine.FindStringSubmatch(t)[1])
	}
}

func referenceCountImperative(f *features, item string) {
	item = strings.TrimLeft(item, "*_` ")
	if imperativeVerbs[strings.ToLower(refWordRe.FindString(item))] {
		f.imperatives++
	}
}

// referenceNearest is nearestKnown looking at every known trace, however
// far.
func referenceNearest(in Input, fp trace.Fingerprint) (Known, int) {
	best, bestDist := Known{}, 65
	for _, k := range in.Known {
		if k.Hash == in.Record.Hash || k.Fingerprint == 0 {
			continue
		}
		if d := Distance(fp, k.Fingerprint); d < bestDist || (d == bestDist && k.Hash < best.Hash) {
			best, bestDist = k, d
		}
	}
	return best, bestDist
}

package site

import (
	"strconv"
	"strings"
	"time"

	"github.com/meshnode/meshnode/internal/manifest"
)

func formatDate(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func formatDay(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.DateOnly)
}

// formatDated is the day of an event whose date may not be known (a
// validation that gave none): "unknown", where formatDay says "never".
func formatDated(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return formatDay(t)
}

func formatSignal(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// formatPoints says a breakdown line's points exactly, where a SIGNAL
// shows one decimal: "13.5 points", "1 point", "0.25 points".
func formatPoints(f float64) string {
	n := strconv.FormatFloat(f, 'f', -1, 64)
	if f == 1 {
		return n + " point"
	}
	return n + " points"
}

// statusClass keeps a peer-supplied status, or a validation's result,
// usable as a CSS class name.
func statusClass(v any) string {
	var s string
	switch v := v.(type) {
	case manifest.Status:
		s = string(v)
	case string:
		s = v
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, s)
}

// maxHeadTitle is the most characters a page's <title> holds, as the
// page's source spells them (html/template writes "+" as "&#43;"): a
// longer one is cut in search results and tabs, and html-validate's
// long-title rule refuses it. The page's h1 keeps the whole title.
const maxHeadTitle = 70

// headTitle is a page's <title>: its title and the node's agent, with
// the title cut at a word, with an ellipsis, so that the whole fits in
// maxHeadTitle characters of source.
func headTitle(title, agent string) string {
	suffix := " · " + agent
	if sourceLen(title+suffix) <= maxHeadTitle {
		return title + suffix
	}
	runes := []rune(title)
	n := len(runes)
	for n > 0 && sourceLen(string(runes[:n])+"…"+suffix) > maxHeadTitle {
		n--
	}
	if n == 0 {
		return title + suffix // an agent name too long to leave room: keep the title whole
	}
	cut := string(runes[:n])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:-") + "…" + suffix
}

// sourceLen is how many characters s takes in a page's source once
// html/template escapes it as text.
func sourceLen(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case '&', '+', '\'', '"':
			n += 5 // &amp; &#43; &#39; &#34;
		case '<', '>':
			n += 4 // &lt; &gt;
		default:
			n++
		}
	}
	return n
}

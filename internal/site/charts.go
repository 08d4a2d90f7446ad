package site

import (
	"fmt"
	"math"
	"time"
)

// Chart sizes, in SVG user units; the SVG scales to the page width.
//
// A chart is drawn at most 34rem wide (style.css) and about 340 px on a
// 390 px phone, so its 16-unit text shows at 11 px or more on a phone and
// about 18 px on a desktop.
const (
	timelineWidth  = 480
	timelineHeight = 240
	timelineLeft   = 44 // room for the y axis labels
	timelineBottom = 26 // room for the x axis labels
	maxBuckets     = 40 // more buckets than this and the bars become hairlines
	graphSize      = 480
	graphRadius    = 150 // the ring of peers; labels go outside it
	maxGraphAgents = 24  // beyond this the ring's labels overlap
)

type timeline struct {
	Width, Height, Left int
	Unit, Summary       string
	Bars                []bar
	Grid, Ticks         []tick
}

type bar struct {
	X, Y, W, H float64
	Class      string // "t" traces, "v" validations
	Title      string
}

type tick struct {
	X, Y  float64
	Label string
}

// buildTimeline counts traces and validations per day (per week when the
// history is long) and lays them out as paired bars.
func buildTimeline(traces, votes []time.Time) timeline {
	tl := timeline{Width: timelineWidth, Height: timelineHeight, Left: timelineLeft}
	all := append(append([]time.Time{}, traces...), votes...)
	first, last, ok := span(all)
	if !ok {
		return tl
	}
	step, unit := 24*time.Hour, "day"
	if int(last.Sub(first)/step)+1 > maxBuckets {
		step, unit = 7*24*time.Hour, "week"
	}
	n := int(last.Sub(first)/step) + 1
	if n > maxBuckets {
		step = time.Duration(math.Ceil(float64(last.Sub(first)+1)/float64(maxBuckets)/float64(24*time.Hour))) * 24 * time.Hour
		n, unit = int(last.Sub(first)/step)+1, fmt.Sprintf("%d days", int(step/(24*time.Hour)))
	}
	tc, vc := bucket(traces, first, step, n), bucket(votes, first, step, n)
	max := 1
	for i := range n {
		max = maxInt(max, maxInt(tc[i], vc[i]))
	}
	tl.Unit = unit
	tl.Summary = fmt.Sprintf("%d traces and %d validations from %s to %s.", len(traces), len(votes), first.Format(time.DateOnly), last.Format(time.DateOnly))
	tl.layout(first, step, tc, vc, max)
	return tl
}

// layout draws the bars on a logarithmic scale (log of 1+count), so a
// day of 3 stays visible beside a day of 849; the grid says which values
// its lines stand for.
func (tl *timeline) layout(first time.Time, step time.Duration, tc, vc []int, max int) {
	plotW := float64(tl.Width - tl.Left)
	plotH := float64(tl.Height - timelineBottom - 10)
	slot := plotW / float64(len(tc))
	barW := math.Min(math.Max(slot*0.4, 0.5), 18) // thin bars read better than slabs
	top := math.Log1p(float64(max))
	y := func(v int) float64 { return 10 + plotH - plotH*math.Log1p(float64(v))/top }
	for i := range tc {
		x := float64(tl.Left) + slot*float64(i) + slot*0.1
		day := first.Add(step * time.Duration(i)).Format(time.DateOnly)
		tl.Bars = append(tl.Bars,
			bar{X: round1(x), Y: round1(y(tc[i])), W: round1(barW), H: round1(y(0) - y(tc[i])), Class: "t", Title: fmt.Sprintf("%s: %d traces", day, tc[i])},
			bar{X: round1(x + barW), Y: round1(y(vc[i])), W: round1(barW), H: round1(y(0) - y(vc[i])), Class: "v", Title: fmt.Sprintf("%s: %d validations", day, vc[i])})
	}
	for _, v := range gridValues(max) {
		tl.Grid = append(tl.Grid, tick{Y: round1(y(v)), Label: fmt.Sprint(v)})
	}
	every := maxInt(1, (len(tc)+3)/4)
	for i := 0; i < len(tc); i += every {
		tl.Ticks = append(tl.Ticks, tick{X: round1(float64(tl.Left) + slot*(float64(i)+0.5)), Label: first.Add(step * time.Duration(i)).Format("Jan 2")})
	}
}

// gridValues are the values the log scale's grid lines mark: 0, powers
// of ten below max, and max.
func gridValues(max int) []int {
	vs := []int{0}
	for p := 1; p*3 < max; p *= 10 {
		vs = append(vs, p)
	}
	return append(vs, max)
}

func span(ts []time.Time) (first, last time.Time, ok bool) {
	for _, t := range ts {
		if t.IsZero() {
			continue
		}
		d := t.UTC().Truncate(24 * time.Hour)
		if !ok || d.Before(first) {
			first = d
		}
		if !ok || d.After(last) {
			last = d
		}
		ok = true
	}
	return first, last, ok
}

func bucket(ts []time.Time, first time.Time, step time.Duration, n int) []int {
	c := make([]int, n)
	for _, t := range ts {
		if t.IsZero() {
			continue
		}
		i := int(t.UTC().Truncate(24*time.Hour).Sub(first) / step)
		if i >= 0 && i < n {
			c[i]++
		}
	}
	return c
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

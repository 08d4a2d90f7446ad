package site

import (
	"fmt"
	"math"
	"sort"
	"time"
	"unicode/utf8"
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

type graph struct {
	ID      string // distinguishes two graphs' marker ids
	Size    int
	Summary string
	Nodes   []graphNode
	Edges   []graphEdge
}

type graphNode struct {
	X, Y, R, LX, LY float64
	Label, Title    string
	Agent           string // the full name, which the label links to the page of
	Anchor          string
	Self            bool
}

type graphEdge struct {
	X1, Y1, X2, Y2, W float64
	Title             string
}

// buildGraph lays the agents out on a circle, most active first, with an
// arrow from each validator to each agent it validated.
func buildGraph(id, self string, votes []*Vote) graph {
	g := graph{ID: id, Size: graphSize}
	count := map[[2]string]int{}
	activity := map[string]int{}
	for _, v := range votes {
		if v.Validator == "" || v.Agent == "" {
			continue
		}
		count[[2]string{v.Validator, v.Agent}]++
		activity[v.Validator]++
		activity[v.Agent]++
	}
	agents := topAgents(activity, maxGraphAgents)
	if len(agents) == 0 {
		return g
	}
	pos := g.placeNodes(agents, self, activity)
	g.placeEdges(count, pos)
	g.Summary = fmt.Sprintf("%d agents, %d validator-to-agent links.", len(agents), len(g.Edges))
	return g
}

func topAgents(activity map[string]int, limit int) []string {
	agents := make([]string, 0, len(activity))
	for a := range activity {
		agents = append(agents, a)
	}
	sort.Slice(agents, func(i, j int) bool {
		if activity[agents[i]] != activity[agents[j]] {
			return activity[agents[i]] > activity[agents[j]]
		}
		return agents[i] < agents[j]
	})
	if len(agents) > limit {
		agents = agents[:limit]
	}
	sort.Strings(agents)
	return agents
}

// placeNodes puts this node at the centre and the other agents on a ring
// around it, labels outside the ring.
func (g *graph) placeNodes(agents []string, self string, activity map[string]int) map[string][2]float64 {
	c := float64(g.Size) / 2
	pos := map[string][2]float64{}
	var ring []string
	for _, a := range agents {
		if a == self {
			pos[a] = [2]float64{c, c}
			g.Nodes = append(g.Nodes, g.node(a, c, c, c, c+graphNodeR(activity[a])+14, "middle", true, activity[a]))
			continue
		}
		ring = append(ring, a)
	}
	for i, a := range ring {
		angle := 2*math.Pi*float64(i)/float64(len(ring)) - math.Pi/2
		x, y := c+graphRadius*math.Cos(angle), c+graphRadius*math.Sin(angle)
		pos[a] = [2]float64{x, y}
		anchor := "start"
		if math.Cos(angle) < -0.2 {
			anchor = "end"
		} else if math.Abs(math.Cos(angle)) <= 0.2 {
			anchor = "middle"
		}
		lx, ly := c+(graphRadius+16)*math.Cos(angle), c+(graphRadius+16)*math.Sin(angle)
		if anchor == "middle" {
			ly += 8 * math.Copysign(1, math.Sin(angle))
		}
		if w := labelWidth(shorten(a, graphLabelLen)); (anchor == "start" && lx+w > float64(g.Size)-graphMargin) || (anchor == "end" && lx-w < graphMargin) {
			// Beside the node the name would run off the picture: centre
			// it under the node instead, inside the edges of the picture.
			anchor = "middle"
			lx = math.Min(math.Max(x, w/2+graphMargin), float64(g.Size)-w/2-graphMargin)
			ly = y + graphNodeR(activity[a]) + 14
		}
		g.Nodes = append(g.Nodes, g.node(a, x, y, lx, ly, anchor, false, activity[a]))
	}
	return pos
}

// graphLabelLen is the longest label, in bytes, before it is shortened.
const graphLabelLen = 14

// graphMargin is the room kept between a label and the picture's edge.
const graphMargin = 4

// labelWidth is a generous estimate of a label's width in the graph's
// units at its 16 px font: 9.5 per character, wider than the average
// character of a sans-serif font, so that a label estimated to fit does.
func labelWidth(label string) float64 {
	return 9.5 * float64(utf8.RuneCountInString(label))
}

func graphNodeR(activity int) float64 { return 6 + math.Min(8, math.Sqrt(float64(activity))) }

func (g *graph) node(a string, x, y, lx, ly float64, anchor string, self bool, activity int) graphNode {
	return graphNode{
		X: round1(x), Y: round1(y), R: round1(graphNodeR(activity)),
		LX: round1(lx), LY: round1(ly), Label: shorten(a, graphLabelLen), Agent: a, Anchor: anchor, Self: self,
		Title: fmt.Sprintf("%s: %d validations given or received", a, activity),
	}
}

func (g *graph) placeEdges(count map[[2]string]int, pos map[string][2]float64) {
	keys := make([][2]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		a, okA := pos[k[0]]
		b, okB := pos[k[1]]
		if !okA || !okB || k[0] == k[1] {
			continue
		}
		// Stop short of the target circle so the arrow head stays visible.
		dx, dy := b[0]-a[0], b[1]-a[1]
		d := math.Hypot(dx, dy)
		shrink := 18 / d
		// A pair that validated each other gets two lines side by side,
		// not one line with both arrows on top of each other.
		var ox, oy float64
		if count[[2]string{k[1], k[0]}] > 0 {
			ox, oy = -dy/d*4, dx/d*4
		}
		g.Edges = append(g.Edges, graphEdge{
			X1: round1(a[0] + dx*shrink + ox), Y1: round1(a[1] + dy*shrink + oy),
			X2: round1(b[0] - dx*shrink + ox), Y2: round1(b[1] - dy*shrink + oy),
			W:     round1(1 + math.Min(4, math.Log2(float64(count[k]))/2)),
			Title: fmt.Sprintf("%s validated %s %d times", k[0], k[1], count[k]),
		})
	}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

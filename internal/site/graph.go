package site

import (
	"fmt"
	"math"
	"sort"
	"unicode/utf8"
)

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

// buildGraph lays out the trust graph SIGNAL computed: the agents on a
// circle, most active first, with an arrow from each validator to each
// agent it validated. It draws; it counts nothing itself.
func buildGraph(id, self string, edges []TrustEdge) graph {
	g := graph{ID: id, Size: graphSize}
	count := map[[2]string]int{}
	activity := map[string]int{}
	for _, e := range edges {
		if e.Validator == "" || e.Agent == "" || e.Votes == 0 {
			continue
		}
		count[[2]string{e.Validator, e.Agent}] += e.Votes
		activity[e.Validator] += e.Votes
		activity[e.Agent] += e.Votes
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

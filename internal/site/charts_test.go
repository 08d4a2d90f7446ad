package site

import (
	"testing"
	"time"
)

func TestGraphPutsThisNodeAtTheCentre(t *testing.T) {
	edges := []TrustEdge{{Validator: "me", Agent: "ada", Votes: 1}, {Validator: "ada", Agent: "me", Votes: 1}, {Validator: "bob", Agent: "ada", Votes: 1}}
	g := buildGraph("x", "me", edges)
	for _, n := range g.Nodes {
		centre := n.X == graphSize/2 && n.Y == graphSize/2
		if n.Self != centre {
			t.Errorf("%s at (%v, %v), self %v", n.Label, n.X, n.Y, n.Self)
		}
	}
	if len(g.Edges) != 3 {
		t.Fatalf("%d edges, want 3", len(g.Edges))
	}
	// me→ada and ada→me run side by side, not on one line.
	if g.Edges[0].X1 == g.Edges[2].X2 && g.Edges[0].Y1 == g.Edges[2].Y2 {
		t.Errorf("a pair's two edges overlap: %+v %+v", g.Edges[0], g.Edges[2])
	}
}

// TestTimelineShowsSmallDaysBesideABigOne checks the logarithmic scale:
// a day of 1 beside a day of 849 still gets a bar a tenth as tall or more.
func TestTimelineShowsSmallDaysBesideABigOne(t *testing.T) {
	day := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	votes := make([]time.Time, 849)
	for i := range votes {
		votes[i] = day.Add(24 * time.Hour)
	}
	tl := buildTimeline([]time.Time{day}, votes)
	var small, big float64
	for _, b := range tl.Bars {
		switch b.Title {
		case "2026-02-01: 1 traces":
			small = b.H
		case "2026-02-02: 849 validations":
			big = b.H
		}
	}
	if big == 0 || small < big/10 {
		t.Errorf("bar of 1 is %v high beside %v for 849", small, big)
	}
	if got := gridValues(849); len(got) != 5 || got[4] != 849 {
		t.Errorf("grid values %v", got)
	}
}

// TestGraphLabelsStayInsideThePicture lays out the corpus's 13 agents,
// long names beside the ring's left and right ends among them, and checks
// that every label, at its estimated width, lies inside the viewBox.
func TestGraphLabelsStayInsideThePicture(t *testing.T) {
	names := []string{"abernath-mesh", "bottymcbotface", "clove", "czero", "jarvis-maximum", "learner",
		"newagent2", "noobagent", "rex", "swarmclaw", "testagent3", "uno"}
	var edges []TrustEdge
	for _, n := range names {
		edges = append(edges, TrustEdge{Validator: "bench", Agent: n, Votes: 1})
	}
	for ring := 2; ring <= len(names); ring++ {
		g := buildGraph("x", "bench", edges[:ring])
		for _, n := range g.Nodes {
			w := labelWidth(n.Label)
			left := map[string]float64{"start": n.LX, "middle": n.LX - w/2, "end": n.LX - w}[n.Anchor]
			if left < 0 || left+w > float64(g.Size) || n.LY < 0 || n.LY > float64(g.Size) {
				t.Errorf("ring of %d: label %q spans x %.0f–%.0f at y %.0f, outside 0–%d", ring, n.Label, left, left+w, n.LY, g.Size)
			}
		}
	}
}

package main

import (
	"fmt"
	"math"
	"testing"
)

// The clique's leverage under the reserve and the late reserve
// (docs/decisions.md, Assignment, "The late reserve"): a share p of the
// validators in one clique votes every seat of a trace it holds, every
// other validator is present and honest, and the jury votes whole; the
// reserve's honest members answer once a clique member of the reserve
// voted, and under the policy so do the late reserve's. Each tier's five
// seats are drawn independently, binomially. Reproduce the table with
//
//	go test ./bench/relaysim -run TestCliqueLeverage -v

// leverage is the chance that the clique's votes outnumber the honest
// ones (win) and that they tie (contested), for a clique share p, with
// the reserve (reserve), the late reserve (late), and whether the late
// reserve's honest members answer the clique's late votes (answer).
func leverage(p float64, reserve, late, answer bool) (win, tie float64) {
	for xj := 0; xj <= 5; xj++ {
		for xr := 0; xr <= 5; xr++ {
			for xl := 0; xl <= 5; xl++ {
				pr := binom(5, xj, p) * binom(5, xr, p) * binom(5, xl, p)
				clique, honest := xj, 5-xj
				if reserve {
					clique += xr
					if xr > 0 {
						honest += 5 - xr
					}
				}
				if late {
					clique += xl
					if answer && xl > 0 {
						honest += 5 - xl
					}
				}
				switch {
				case clique > honest:
					win += pr
				case clique == honest:
					tie += pr
				}
			}
		}
	}
	return win, tie
}

func binom(n, k int, p float64) float64 {
	c := 1.0
	for i := 0; i < k; i++ {
		c = c * float64(n-i) / float64(i+1)
	}
	return c * math.Pow(p, float64(k)) * math.Pow(1-p, float64(n-k))
}

// shortOf is the chance that fewer than three of n seats hold a
// validator present, with a share away of them gone.
func shortOf(n int, away float64) float64 {
	s := 0.0
	for k := 0; k < 3; k++ {
		s += binom(n, k, 1-away)
	}
	return s
}

// TestCliqueLeverage computes decisions.md's table and holds its figures
// (rounded to a tenth of a per cent), and the shortfall of ten and
// fifteen seats drawn blind with two fifths of the validators away.
func TestCliqueLeverage(t *testing.T) {
	pct := func(w, c float64) string { return fmt.Sprintf("%.1f %% (%.1f %% tied)", 100*w, 100*c) }
	want := map[float64][3]string{
		0.1: {"0.5 % (0.1 % tied)", "0.9 % (1.7 % tied)", "0.3 % (0.2 % tied)"},
		0.2: {"2.5 % (2.6 % tied)", "6.7 % (6.2 % tied)", "1.5 % (1.7 % tied)"},
		0.3: {"7.5 % (10.3 % tied)", "21.9 % (11.1 % tied)", "7.0 % (3.4 % tied)"},
	}
	for _, p := range []float64{0.1, 0.2, 0.3} {
		got := [3]string{pct(leverage(p, true, false, false)), pct(leverage(p, true, true, false)), pct(leverage(p, true, true, true))}
		t.Logf("p %.1f: mesh-2026-6 %s; late reserve answering a short count only %s; the policy %s", p, got[0], got[1], got[2])
		if got != want[p] {
			t.Errorf("p %.1f: %v, want %v", p, got, want[p])
		}
	}
	ten, fifteen := shortOf(10, 0.4), shortOf(15, 0.4)
	t.Logf("two fifths away: ten seats short %.2f %%, fifteen %.3f %%", 100*ten, 100*fifteen)
	if math.Abs(100*fifteen-0.03) > 0.005 {
		t.Errorf("fifteen seats short %.3f %%, want 0.03 %%", 100*fifteen)
	}
}

// lateAnswers is what the policy's answer to a clique's late votes costs
// the honest: the chance that a trace's late reserve holds a clique
// member (whose vote is the trigger), and the honest late members' votes
// it draws per trace, averaged over every trace (five seats drawn
// binomially, the clique voting every one it holds, the honest members
// of the same late reserve answering).
func lateAnswers(p float64) (triggered, perTrace float64) {
	for xl := 1; xl <= 5; xl++ {
		pr := binom(5, xl, p)
		triggered += pr
		perTrace += pr * float64(5-xl)
	}
	return triggered, perTrace
}

// TestCliqueLateAnswerCost holds decisions.md's cost of the late reserve
// with a clique ("The cost"): with no clique nothing, at p = 0.1 about
// 1.55 honest validations more per trace, on the 41 % of traces whose
// late reserve holds a clique member, at p = 0.2 about 2.36, on 67 %.
func TestCliqueLateAnswerCost(t *testing.T) {
	want := map[float64]string{0: "0 % of traces, 0.00 a trace", 0.1: "41 % of traces, 1.55 a trace", 0.2: "67 % of traces, 2.36 a trace", 0.3: "83 % of traces, 2.66 a trace"}
	for _, p := range []float64{0, 0.1, 0.2, 0.3} {
		tr, n := lateAnswers(p)
		got := fmt.Sprintf("%.0f %% of traces, %.2f a trace", 100*tr, n)
		t.Logf("p %.1f: honest late answers on %s", p, got)
		if got != want[p] {
			t.Errorf("p %.1f: %s, want %s", p, got, want[p])
		}
	}
}

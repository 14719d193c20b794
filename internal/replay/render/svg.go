package render

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
)

// series is one line of a chart.
type series struct {
	name   string
	points [][2]float64 // x, y (y a share in [0, 1])
}

var colors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f", "#e377c2"}

const (
	chartW, chartH = 300, 220
	marginL, gap   = 50, 40
	top            = 40
)

// SVG writes three charts side by side: kept precision and yield against K for every panel
// kind at threshold 0.6, and diverse kept precision against the threshold for every K.
func SVG(w io.Writer, rep *replay.Report) error {
	var byK, yieldK, byT []series
	pct := headlineOf(rep)
	for _, kind := range rep.Kinds {
		p, y := series{name: kind}, series{name: kind}
		for _, k := range rep.Sizes {
			if r, ok := rep.Comparable(kind, k, pct); ok {
				p.points = append(p.points, [2]float64{float64(k), r.Figures.KeptPrecision})
				y.points = append(y.points, [2]float64{float64(k), r.Figures.AnyKept})
			}
		}
		byK, yieldK = append(byK, p), append(yieldK, y)
	}
	var ts []float64
	for _, k := range rep.Sizes {
		s := series{name: fmt.Sprintf("diverse K=%d", k)}
		for _, t := range thresholds(rep) {
			if r, ok := rep.Comparable(replay.Diverse.String(), k, t); ok && (replay.Rule{ThresholdPct: t}).KeepsAny(k) {
				s.points = append(s.points, [2]float64{r.Threshold, r.Figures.KeptPrecision})
			}
		}
		for _, r := range rep.Rows {
			if r.Kind == replay.Diverse.String() && r.K == k {
				ts = appendNew(ts, r.Threshold)
			}
		}
		byT = append(byT, s)
	}
	ks := make([]float64, len(rep.Sizes))
	for i, k := range rep.Sizes {
		ks[i] = float64(k)
	}
	width := 3*chartW + 2*gap + marginL + 20
	height := top + chartH + 60 + 16*max(len(byK), len(byT))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	x := marginL
	chart(&b, x, frame{fmt.Sprintf("Kept precision vs K (t=%.1f)", float64(pct)/100), "K", ks, "%.0f"}, byK, 0)
	x += chartW + gap
	chart(&b, x, frame{fmt.Sprintf("Panels keeping ≥1 test vs K (t=%.1f)", float64(pct)/100), "K", ks, "%.0f"}, yieldK, 0)
	x += chartW + gap
	chart(&b, x, frame{"Diverse: kept precision vs threshold", "threshold", ts, "%.1f"}, byT, len(byK))
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// frame is what a chart says around its lines: its title, and its x axis's label, ticks
// and tick format.
type frame struct {
	title, xlabel string
	xticks        []float64
	xfmt          string
}

// chart draws one chart with its left edge at x0: axes, ticks, lines and a legend below;
// its lines take colours from firstColor on, so that two charts' legends do not clash.
func chart(b *strings.Builder, x0 int, f frame, ss []series, firstColor int) {
	title, xlabel, xticks, xfmt := f.title, f.xlabel, f.xticks, f.xfmt
	lo, hi := 1.0, 0.0
	for _, s := range ss {
		for _, p := range s.points {
			lo, hi = math.Min(lo, p[1]), math.Max(hi, p[1])
		}
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	lo, hi = math.Floor(lo*10)/10, math.Min(1, math.Ceil(hi*10)/10)
	if hi-lo < 0.1 {
		lo = hi - 0.1
	}
	xlo, xhi := xticks[0], xticks[len(xticks)-1]
	if xhi == xlo {
		xhi = xlo + 1
	}
	px := func(v float64) float64 { return float64(x0) + (v-xlo)/(xhi-xlo)*chartW }
	py := func(v float64) float64 { return top + (hi-v)/(hi-lo)*chartH }

	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", x0, top-15, html.EscapeString(title))
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", x0, top, chartW, chartH)
	for v := lo; v <= hi+1e-9; v += 0.1 {
		y := py(v)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`, x0, y, x0+chartW, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%.0f%%</text>`+"\n", x0-4, y+4, 100*v)
	}
	for _, v := range xticks {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(v), top+chartH+14, fmt.Sprintf(xfmt, v))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", x0+chartW/2, top+chartH+30, xlabel)
	for i, s := range ss {
		color := colors[(firstColor+i)%len(colors)]
		var pts []string
		for _, p := range s.points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p[0]), py(p[1])))
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s</title></circle>`+"\n",
				px(p[0]), py(p[1]), color, html.EscapeString(s.name), pc(p[1]))
		}
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), color)
		}
		ly := top + chartH + 48 + 16*i
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">%s</text>`+"\n",
			x0, ly-4, x0+20, ly-4, color, x0+26, ly, html.EscapeString(s.name))
	}
}

func appendNew(xs []float64, x float64) []float64 {
	for _, v := range xs {
		if v == x {
			return xs
		}
	}
	return append(xs, x)
}

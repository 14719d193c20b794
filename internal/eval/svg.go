package eval

import (
	"fmt"
	"html"
	"strings"
)

// SVG draws the hidden pass rate of each protocol, with the precision of its tests
// beside it, as a grouped bar chart. Drawn by hand: a dozen rectangles need no library.
func SVG(r *Report) string {
	const (
		left, top, plotH = 48, 46, 200
		group, bar, gap  = 110, 36, 6
		minWidth         = 560 // room for the line that says what kind of agents ran
	)
	width := max(left+group*max(len(r.Totals), 1)+20, minWidth)
	height := top + plotH + 60
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="Hidden pass rate and precision by protocol. %s">`+"\n",
		width, height, width, height, html.EscapeString(agentsLine(r)))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-family="sans-serif" font-size="13">Hidden pass rate and precision by protocol</text>`+"\n", left)
	fmt.Fprintf(&b, `<text x="%d" y="34" font-family="sans-serif" font-size="11" fill="#59636e">%s</text>`+"\n", left, html.EscapeString(agentsLine(r)))
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		y := top + plotH - int(v*plotH)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d1d9e0"/>`+"\n", left, y, width-20, y)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" font-size="11" text-anchor="end">%.2f</text>`+"\n", left-6, y+4, v)
	}
	for i, t := range r.Totals {
		x := left + i*group + (group-2*bar-gap)/2
		intervals := []*Interval{t.Intervals.Hidden, t.Intervals.Precision}
		for j, s := range []Score{t.Hidden, t.Precision} {
			colour := []string{"#2f6fd0", "#e3882b"}[j]
			bx := x + j*(bar+gap)
			v, ok := s.Rate()
			if !ok {
				fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" font-size="11" text-anchor="middle">n/a</text>`+"\n", bx+bar/2, top+plotH-4)
				continue
			}
			h := int(v * plotH)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", bx, top+plotH-h, bar, h, colour)
			label := top + plotH - h - 4
			if in := intervals[j]; in != nil {
				// The 95 % interval over tasks as a whisker; the value goes above it.
				lo, hi := top+plotH-int(in.Low*plotH), top+plotH-int(in.High*plotH)
				cx := bx + bar/2
				fmt.Fprintf(&b, `<path class="ci" d="M%d %dV%dM%d %dH%dM%d %dH%d" stroke="#24292f" stroke-width="1.5" fill="none"/>`+"\n",
					cx, lo, hi, cx-6, lo, cx+6, cx-6, hi, cx+6)
				label = min(label, hi-4)
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" font-size="11" text-anchor="middle">%.2f</text>`+"\n", bx+bar/2, label, v)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" font-size="12" text-anchor="middle">%s</text>`+"\n",
			x+bar+gap/2, top+plotH+18, html.EscapeString(t.Protocol))
	}
	ly := top + plotH + 40
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="#2f6fd0"/><text x="%d" y="%d" font-family="sans-serif" font-size="11">hidden pass rate</text>`+"\n", left, ly, left+16, ly+10)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="#e3882b"/><text x="%d" y="%d" font-family="sans-serif" font-size="11">precision of its tests</text>`+"\n", left+130, ly, left+146, ly+10)
	for _, t := range r.Totals {
		if t.Intervals.Hidden != nil || t.Intervals.Precision != nil {
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" font-size="11" fill="#59636e">lines: 95 %% intervals over tasks</text>`+"\n", left+300, ly+10)
			break
		}
	}
	b.WriteString("</svg>")
	return b.String()
}

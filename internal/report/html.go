package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// HTML renders the report as one self-contained page: the Markdown report converted by a
// CommonMark renderer, the chart drawn as inline SVG, styles inline, no script and
// nothing fetched from elsewhere.
func HTML(s runfile.Summary, res *orchestrate.Result) (string, error) {
	figs := NewFigures()
	return Page("Dixit run "+s.Run, Render(s, res, Options{Title: true, figures: figs}), figs)
}

// Page renders Markdown (CommonMark with GFM tables) as a self-contained page: styles
// inline, no script, nothing fetched. It trusts nothing in the Markdown (safeHTML); figs,
// if any, are the drawings the program made itself, put where figs.Add placed them.
func Page(title, markdown string, figs *Figures) (string, error) {
	gm := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, safeHTML{}))
	var body bytes.Buffer
	if err := gm.Convert([]byte(markdown), &body); err != nil {
		return "", fmt.Errorf("render %s as HTML: %w", title, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>%s</title>
<style>%s</style>
</head><body><main>
`, html.EscapeString(title), pageStyle)
	b.WriteString(markCells(figs.place(body.String())))
	b.WriteString("</main></body></html>\n")
	return b.String(), nil
}

const pageStyle = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff;margin:0}
main{max-width:72rem;margin:0 auto;padding:1.5rem}
h1,h2{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}
table{border-collapse:collapse;margin:1em 0;display:block;overflow:auto}
th,td{border:1px solid #d1d9e0;padding:.3em .7em;text-align:left;vertical-align:top}
tr:nth-child(2n){background:#f6f8fa}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eff1f3;padding:.1em .3em;border-radius:4px}
pre{background:#f6f8fa;padding:1em;overflow:auto;border-radius:6px}
pre code{background:none;padding:0}
details{margin:.5em 0}
summary{cursor:pointer}
blockquote{margin:0;padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}
svg text{font:12px system-ui,sans-serif;fill:#1f2328}
td.pass{background:#dafbe1;color:#116329;font-weight:600}
td.fail{background:#ffebe9;color:#a40e26;font-weight:600}
td.notrun{color:#59636e}
`

// The verdict marks of the report's tables: words that read in any terminal and any
// font, which the HTML page also colours.
const (
	markPass   = "pass"
	markFail   = "FAIL"
	markNotRun = "not run"
)

// markCell finds a table cell that holds nothing but a verdict mark.
var markCell = regexp.MustCompile(`<td>(pass|FAIL(?:: [a-z_]+)?|not run)</td>`)

// markCells gives verdict cells a class the page's style colours: the colour comes with
// the word, never instead of it.
func markCells(body string) string {
	return markCell.ReplaceAllStringFunc(body, func(cell string) string {
		word := markCell.FindStringSubmatch(cell)[1]
		class := "fail"
		switch word {
		case markPass:
			class = "pass"
		case markNotRun:
			class = "notrun"
		}
		return `<td class="` + class + `">` + word + `</td>`
	})
}

// chartSVG draws what Mermaid draws on GitHub: bars for the suite, a line for the
// coders agreeing with it.
func chartSVG(rounds []RoundFacts, coders int) string {
	const w, h, left, bottom, top, right = 640, 260, 40, 40, 30, 150
	plotW, plotH := float64(w-left-right), float64(h-top-bottom)
	peak := coders
	for _, r := range rounds {
		peak = max(peak, r.SuiteAfter)
	}
	peak++
	y := func(v int) float64 { return float64(top) + plotH - plotH*float64(v)/float64(peak) }
	slot := plotW / float64(len(rounds))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 %d %d" width="%d" height="%d">`, w, h, w, h)
	fmt.Fprintf(&b, `<title>Vetted suite and agreeing coders, by round</title>`)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%.1f" stroke="#59636e"/>`, left, top, left, y(0))
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#59636e"/>`, left, y(0), float64(left)+plotW, y(0))
	for v := 0; v <= peak; v += max(1, peak/5) {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%d</text>`, left-6, y(v)+4, v)
	}
	var line []string
	for i, r := range rounds {
		x := float64(left) + slot*float64(i)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#8cb4e6"><title>round %d: %s</title></rect>`,
			x+slot*0.15, y(r.SuiteAfter), slot*0.7, y(0)-y(r.SuiteAfter), r.Round, words.Count(r.SuiteAfter, "vetted test", "vetted tests"))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x+slot/2, y(0)+16, r.Round)
		line = append(line, fmt.Sprintf("%.1f,%.1f", x+slot/2, y(r.Agreeing)))
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#cf222e" stroke-width="2.5"/>`, strings.Join(line, " "))
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">round</text>`, float64(left)+plotW/2, h-6)
	lx := float64(left) + plotW + 16
	fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="12" height="12" fill="#8cb4e6"/><text x="%.1f" y="%d">vetted tests</text>`, lx, top, lx+18, top+10)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#cf222e" stroke-width="2.5"/><text x="%.1f" y="%d">coders passing all</text>`,
		lx, top+28, lx+12, top+28, lx+18, top+32)
	b.WriteString("</svg>")
	return b.String()
}

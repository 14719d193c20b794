package report

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The HTML page trusts nothing its Markdown holds. Text people and models wrote is
// escaped before it enters the Markdown (plain, code spans, fences); should an escape be
// missed, the renderer still lets no element, attribute or script link through:
//   - raw HTML passes only as the report's own bare tags (ownTag), without attributes;
//     every other "<" shows as text;
//   - links and images go only to http, https, mailto or a relative address; any other
//     (javascript:, data:, vbscript:, file:) stays text;
//   - the page's own drawings (Figures) are put in after rendering, where a placeholder
//     no other text can forge stands.

// safeHTML is the goldmark extension that does the first two.
type safeHTML struct{}

func (safeHTML) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(safeLinks{}, 1)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(ownHTML{}, 1)))
}

// ownTag is a tag the report writes itself, as it writes it: bare.
var ownTag = regexp.MustCompile(`^</?(?:details|summary|code|br|sub)\s*/?>`)

// allowTags returns raw HTML with every "<" that does not open one of the report's own
// bare tags escaped: without "<", no element, attribute or comment can start.
func allowTags(raw []byte) []byte {
	var out bytes.Buffer
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '<')
		if i < 0 {
			out.Write(raw)
			break
		}
		out.Write(raw[:i])
		raw = raw[i:]
		if tag := ownTag.Find(raw); tag != nil {
			out.Write(tag)
			raw = raw[len(tag):]
			continue
		}
		out.WriteString("&lt;")
		raw = raw[1:]
	}
	return out.Bytes()
}

// ownHTML renders raw HTML, inline and in blocks, through allowTags.
type ownHTML struct{}

func (ownHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				_, _ = w.Write(allowTags(seg.Value(src)))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		block := n.(*ast.HTMLBlock)
		switch {
		case entering:
			for i := 0; i < block.Lines().Len(); i++ {
				line := block.Lines().At(i)
				_, _ = w.Write(allowTags(line.Value(src)))
			}
		case block.HasClosure():
			_, _ = w.Write(allowTags(block.ClosureLine.Value(src)))
		}
		return ast.WalkContinue, nil
	})
}

// safeLinks turns every link or image whose address is not safeURL into its text.
type safeLinks struct{}

func (safeLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var unsafe []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			if !safeURL(string(l.Destination)) {
				unsafe = append(unsafe, n)
			}
		case *ast.Image:
			if !safeURL(string(l.Destination)) {
				unsafe = append(unsafe, n)
			}
		case *ast.AutoLink:
			if !safeURL(string(l.URL(src))) {
				unsafe = append(unsafe, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unsafe {
		unlink(n, src)
	}
}

// unlink replaces a link by what it shows: its children, or an autolink's label.
func unlink(n ast.Node, src []byte) {
	parent := n.Parent()
	if a, ok := n.(*ast.AutoLink); ok {
		parent.ReplaceChild(parent, n, ast.NewString(a.Label(src)))
		return
	}
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.RemoveChild(parent, n)
}

// safeURL allows http, https and mailto addresses and relative ones. Browsers ignore
// control characters and spaces in a scheme ("java\tscript:"), so those are dropped
// before it is read.
func safeURL(url string) bool {
	url = strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToLower(url))
	colon := strings.IndexByte(url, ':')
	if colon < 0 || strings.ContainsAny(url[:colon], "/?#") {
		return true // relative: no scheme
	}
	switch url[:colon] {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// Figures are drawings the program made itself (inline SVG), the only HTML a page takes
// as it is. Each stands in the Markdown as a placeholder paragraph holding a random
// token, which no text written before the page was rendered can know.
type Figures struct {
	token string
	svg   []string
}

// NewFigures starts an empty set of figures for one page.
func NewFigures() *Figures {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return &Figures{token: "dixit-figure-" + hex.EncodeToString(b)}
}

// Add keeps svg and returns the placeholder to write in the Markdown, on a line of its
// own between blank lines.
func (f *Figures) Add(svg string) string {
	f.svg = append(f.svg, svg)
	return fmt.Sprintf("%s-%d", f.token, len(f.svg)-1)
}

// place puts the figures where their placeholders were rendered.
func (f *Figures) place(body string) string {
	if f == nil {
		return body
	}
	for i, svg := range f.svg {
		body = strings.Replace(body, fmt.Sprintf("<p>%s-%d</p>", f.token, i), svg, 1)
	}
	return body
}

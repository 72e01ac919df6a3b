package ui

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vugu/vugu"
)

// Render builds component c with vugu and returns its HTML: the
// component's root element (a whole document for ReportPage), byte for
// byte as vugu's static renderer (github.com/vugu/vugu/staticrender)
// writes it.
//
// Render writes the built tree itself instead of calling that renderer,
// which runs each element's inner HTML (vg-content, vg-html) through a
// full HTML5 parser (github.com/vugu/html, with its entity table) only to
// write it out again: linked into the browser app, the parser was 225 KB
// of its code, 90 KB of app.wasm.gz. The inner HTML of our components is
// either text escaped by vugu (html.EscapeString) or a template's static
// markup, which Render writes as the parser would have left it;
// TestRenderMatchesStaticRender compares the two renderers' bytes on
// every component and FuzzRenderText on any text, so a difference fails
// the tests instead of reaching the page or report.html.
func Render(c vugu.Builder) (string, error) {
	env, err := vugu.NewBuildEnv(&eventEnv{})
	if err != nil {
		return "", err
	}
	br := env.RunBuild(c)
	n, err := buildOut(br, br.Out)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := write(&b, n); err != nil {
		return "", err
	}
	return b.String(), nil
}

// eventEnv is the event environment of a static render: a lock and no
// re-rendering (nothing on the page calls back into a rendered view).
type eventEnv struct{ sync.RWMutex }

func (e *eventEnv) UnlockOnly()   { e.Unlock() }
func (e *eventEnv) UnlockRender() { e.Unlock() }

// node is an element, text, comment or doctype of the document being
// written; raw holds static markup written as it is.
type node struct {
	typ  vugu.VGNodeType
	data string
	attr []vugu.VGAttribute
	kids []*node
	raw  bool
}

// buildOut turns a component's build output into one node, expanding
// nested components, flattening templates (vg-template), putting the
// components' CSS at the end of <head> and their scripts at the end of
// <body>, as vugu's static renderer does.
func buildOut(br *vugu.BuildResults, bo *vugu.BuildOut) (*node, error) {
	if bo == nil || len(bo.Out) != 1 {
		return nil, errors.New("ui: a component's build must output exactly one element")
	}
	var visit func(v *vugu.VGNode) ([]*node, error)
	visit = func(v *vugu.VGNode) ([]*node, error) {
		if v.Component != nil {
			n, err := buildOut(br, br.ResultFor(v.Component))
			if err != nil {
				return nil, err
			}
			return []*node{n}, nil
		}
		var kids []*node
		for c := v.FirstChild; c != nil; c = c.NextSibling {
			k, err := visit(c)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k...)
		}
		if v.IsTemplate() {
			return kids, nil
		}
		n := &node{typ: v.Type, data: v.Data, attr: v.Attr}
		if v.InnerHTML != nil {
			k, err := inner(v.Data, *v.InnerHTML)
			if err != nil {
				return nil, err
			}
			n.kids = k // inner HTML replaces the children
			return []*node{n}, nil
		}
		n.kids = kids
		var extra []*vugu.VGNode
		if v.Type == vugu.ElementNode && v.Data == "head" {
			extra = bo.CSS
		} else if v.Type == vugu.ElementNode && v.Data == "body" {
			extra = bo.JS
		}
		for _, e := range extra {
			k, err := visit(e)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, k...)
		}
		return []*node{n}, nil
	}
	out, err := visit(bo.Out[0])
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, fmt.Errorf("ui: a component's root is %d nodes, not one element", len(out))
	}
	return out[0], nil
}

// escapedRefs are the character references html.EscapeString writes, the
// only ones in the inner HTML of vugu's escaped text.
var escapedRefs = strings.NewReplacer("&amp;", "&", "&#39;", "'", "&lt;", "<", "&gt;", ">", "&#34;", `"`)

// inner returns the nodes of an element's inner HTML as an HTML5 parser
// reads it in the context of element parent and html.Render writes them:
// static markup (it holds a tag) as it is, text with its character
// references decoded, its line ends made \n, and NUL characters dropped
// (U+FFFD in the RCDATA elements title and textarea).
func inner(parent, h string) ([]*node, error) {
	if strings.Contains(h, "<") {
		return []*node{{typ: vugu.TextNode, data: h, raw: true}}, nil
	}
	switch parent {
	case "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext":
		return nil, fmt.Errorf("ui: text in <%s> (raw text) is not supported", parent)
	}
	t := strings.ReplaceAll(h, "\r\n", "\n")
	t = strings.ReplaceAll(t, "\r", "\n")
	if i := strings.IndexByte(t, '&'); i >= 0 {
		d := escapedRefs.Replace(t)
		if strings.Count(t, "&") != strings.Count(t, "&amp;")+strings.Count(t, "&#39;")+
			strings.Count(t, "&lt;")+strings.Count(t, "&gt;")+strings.Count(t, "&#34;") {
			return nil, fmt.Errorf("ui: inner HTML of <%s> %q has a character reference other than the five html.EscapeString writes", parent, h)
		}
		t = d
	}
	if parent == "title" || parent == "textarea" {
		t = strings.ReplaceAll(t, "\x00", "\uFFFD")
	} else {
		t = strings.ReplaceAll(t, "\x00", "")
	}
	if t == "" {
		return nil, nil
	}
	return []*node{{typ: vugu.TextNode, data: t}}, nil
}

// voidElements have no end tag (html.Render writes them as <br/>).
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "command": true, "embed": true,
	"hr": true, "img": true, "input": true, "keygen": true, "link": true, "meta": true,
	"param": true, "source": true, "track": true, "wbr": true,
}

// attrEscaper escapes text and attribute values as html.Render does.
var attrEscaper = strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "\r", "&#13;")

// write writes n as html.Render writes it.
func write(b *strings.Builder, n *node) error {
	switch n.typ {
	case vugu.TextNode:
		if n.raw {
			b.WriteString(n.data)
		} else {
			attrEscaper.WriteString(b, n.data)
		}
		return nil
	case vugu.DocumentNode:
		for _, k := range n.kids {
			if err := write(b, k); err != nil {
				return err
			}
		}
		return nil
	case vugu.CommentNode:
		b.WriteString("<!--" + n.data + "-->")
		return nil
	case vugu.DoctypeNode:
		b.WriteString("<!DOCTYPE " + n.data)
		var pub, sys string
		for _, a := range n.attr {
			switch a.Key {
			case "public":
				pub = a.Val
			case "system":
				sys = a.Val
			}
		}
		if pub != "" {
			b.WriteString(" PUBLIC " + quote(pub))
			if sys != "" {
				b.WriteString(" " + quote(sys))
			}
		} else if sys != "" {
			b.WriteString(" SYSTEM " + quote(sys))
		}
		b.WriteByte('>')
		return nil
	case vugu.ElementNode:
		if n.data == "plaintext" {
			return errors.New("ui: <plaintext> is not supported")
		}
	default:
		return fmt.Errorf("ui: cannot write a node of type %d", n.typ)
	}
	b.WriteString("<" + n.data)
	for _, a := range n.attr {
		b.WriteString(" " + a.Key + `="`)
		attrEscaper.WriteString(b, a.Val)
		b.WriteByte('"')
	}
	if voidElements[n.data] {
		if len(n.kids) > 0 {
			return fmt.Errorf("ui: void element <%s> has child nodes", n.data)
		}
		b.WriteString("/>")
		return nil
	}
	b.WriteByte('>')
	if len(n.kids) > 0 && n.kids[0].typ == vugu.TextNode && strings.HasPrefix(n.kids[0].data, "\n") {
		switch n.data {
		case "pre", "listing", "textarea":
			b.WriteByte('\n')
		}
	}
	rawText := false
	switch n.data {
	case "iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "xmp":
		rawText = true
	}
	for _, k := range n.kids {
		if rawText && k.typ == vugu.TextNode {
			b.WriteString(k.data)
			continue
		}
		if err := write(b, k); err != nil {
			return err
		}
	}
	b.WriteString("</" + n.data + ">")
	return nil
}

// quote quotes a doctype identifier as html.Render does.
func quote(s string) string {
	if strings.Contains(s, `"`) {
		return "'" + s + "'"
	}
	return `"` + s + `"`
}

// componentsCSS styles the components, in the page (scripts/wasm-build.sh
// copies it to webapp/static/components.css) and in report.html (which
// inlines it).
//
//go:embed components.css
var componentsCSS string

// ComponentsCSS returns the style sheet of the components.
func ComponentsCSS() string { return componentsCSS }

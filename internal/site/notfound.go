package site

import (
	"bytes"
	"fmt"
	"html/template"
)

var notFoundPage = template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/notfound.html"))

// notFound renders 404.html with the site's navigation. GitHub Pages and
// `meshnode serve` answer with it at any depth, so it carries its own CSS
// and its links start from the node's absolute URL, or from the server's
// root when the node has none (as under `meshnode serve`).
func notFound(n *Node, idx *index) ([]byte, error) {
	root := "/"
	if n.URL != "" {
		root = n.URL
	}
	v := &view{Root: root, Nav: "none", Node: n, idx: idx}
	c, err := v.Chrome()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = notFoundPage.ExecuteTemplate(&buf, "notfound", struct {
		Node   *Node
		CSS    template.CSS
		Home   string
		Chrome *chrome
	}{n, template.CSS(styleCSS), root + "index.html", c})
	if err != nil {
		return nil, fmt.Errorf("render 404 page: %w", err)
	}
	return buf.Bytes(), nil
}

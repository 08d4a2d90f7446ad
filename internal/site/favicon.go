package site

// favicon is the site's icon: three linked nodes, the mesh. An SVG, so
// one small file serves every size.
var favicon = []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#2456c6"/>
<path d="M9 22 16 9 23 22Z" fill="none" stroke="#fff" stroke-width="2"/>
<circle cx="16" cy="9" r="4" fill="#e0872b"/><circle cx="9" cy="22" r="4" fill="#fff"/><circle cx="23" cy="22" r="4" fill="#fff"/>
</svg>
`)

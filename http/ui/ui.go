// Package ui holds the viewer's web page: plain HTML, CSS and JavaScript,
// embedded in the binary, with no build step.
package ui

import (
	"embed"
	"net/http"
)

// FS holds the page's files.
//
//go:embed index.html app.js render.js diff.js round.js branch.js subagent.js find.js keys.js live.js theme.js palette.js search.js surgery.js copy.js style.css favicon.svg
var FS embed.FS

// Handler serves the files of FS.
var Handler = http.FileServerFS(FS)

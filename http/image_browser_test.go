package http_test

import (
	"image/color"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A prompt's image and a tool result's show as thumbnails read from the
// stored line, each opening full size; one the server refuses (an SVG)
// leaves its name in words and no broken image.
func TestBrowserImages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, _ := mustOpenImageServer(t,
		[]map[string]any{imagePart("image/png", pngOf(t, 400, 300, color.RGBA{200, 30, 30, 255})), imagePart("image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`))},
		[]map[string]any{imagePart("image/png", pngOf(t, 64, 48, color.RGBA{30, 30, 200, 255}))})
	dir := Artifacts(t)

	Step(t, ctx, "the image session", chromedp.Navigate(s.URL()+"/#/session/"+imageSession+"?round=1"))
	Wait(t, ctx, "the prompt's thumbnail loaded", `(() => { const i = document.querySelector('.round[data-seq="1"] .block.user .images img'); return i && i.complete && i.naturalWidth > 0; })()`)
	Wait(t, ctx, "the SVG's thumbnail dropped", `document.querySelectorAll('.round[data-seq="1"] .block.user .images img').length === 1`)
	if got := Eval[string](t, ctx, `document.querySelector('.round[data-seq="1"] .block.user .text').textContent`); !strings.Contains(got, "[image: image/svg+xml") {
		t.Fatalf("the prompt's words do not name the SVG: %q", got)
	}
	if w := Eval[int](t, ctx, `document.querySelector('.round[data-seq="1"] .block.user .images img').getBoundingClientRect().width | 0`); w < 20 || w > 200 {
		t.Fatalf("the thumbnail is %d px wide, want a thumbnail", w)
	}
	Screenshot(t, ctx, dir, "image-thumbnail")

	Step(t, ctx, "open it", jsClick(`.round[data-seq="1"] .block.user .images a.thumb`))
	Wait(t, ctx, "full size", `(() => { const i = document.querySelector('dialog.image-full[open] img'); return i && i.complete && i.naturalWidth === 400 && i.naturalHeight === 300 && i.getBoundingClientRect().width >= 400; })()`)
	Screenshot(t, ctx, dir, "image-full")
	Step(t, ctx, "close it", jsClick(`dialog.image-full`))
	Wait(t, ctx, "closed", `!document.querySelector("dialog.image-full")`)

	Step(t, ctx, "open the calls", chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.round[data-seq="1"] details.call > summary').forEach((s) => s.click())`))
	Wait(t, ctx, "the tool result's thumbnail loaded", `(() => { const i = document.querySelector('.round[data-seq="1"] details.call .call-body .images img'); return i && i.complete && i.naturalWidth === 64; })()`)
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call .images img').length`); n != 1 {
		t.Fatalf("%d thumbnails in the calls, want the one result's", n)
	}
	Step(t, ctx, "open the result's", jsClick(`.round[data-seq="1"] details.call .images a.thumb`))
	Wait(t, ctx, "the result's full size", `(() => { const i = document.querySelector('dialog.image-full[open] img'); return i && i.complete && i.naturalWidth === 64; })()`)
}

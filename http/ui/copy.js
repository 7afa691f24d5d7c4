// Copy buttons: on messages, a call's input and output, a step's
// reference and its cairn inject command, a resume command. The clipboard
// API where the browser grants it, else a selected text area.
"use strict";

// copyButton is a button that copies text to the clipboard; opts may name
// its label, class and title (a resume command's "Copy" by default).
function copyButton(text, opts) {
  const o = { label: "Copy", title: "copy the command", ...opts };
  const b = el("button", { class: "copy" + (o.class ? " " + o.class : ""), title: o.title, type: "button" }, o.label);
  b.addEventListener("click", async (e) => {
    e.stopPropagation();
    e.preventDefault();
    let ok = true;
    try { await navigator.clipboard.writeText(text); }
    catch {
      const t = el("textarea", { class: "offscreen", readonly: true }, text);
      document.body.append(t); t.select();
      ok = document.execCommand("copy");
      t.remove();
    }
    b.textContent = ok ? "Copied" : "Copy failed";
    b.classList.add("copied");
    setTimeout(() => { b.textContent = o.label; b.classList.remove("copied"); }, 1500);
  });
  return b;
}

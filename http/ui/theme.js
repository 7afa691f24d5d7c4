// The theme: the system's (the default), light or dark, as the reader sets
// it in the header or the command palette; kept in localStorage, so it
// holds across pages, reloads and tabs. The page's colours follow
// <html data-theme>, which is always the theme in effect. Loaded before
// the page's body, not deferred, so a dark page never flashes light.
"use strict";

const themes = ["system", "light", "dark"];
const darkQuery = window.matchMedia("(prefers-color-scheme: dark)");

// themeSetting is the reader's setting: system, light or dark.
function themeSetting() {
  let t = null;
  try { t = localStorage.getItem("cairn-theme"); } catch { /* storage refused: the system's */ }
  return themes.includes(t) ? t : "system";
}

// applyTheme puts the theme in effect on the page and in the header.
function applyTheme() {
  const set = themeSetting();
  const root = document.documentElement;
  root.dataset.theme = set === "dark" || (set === "system" && darkQuery.matches) ? "dark" : "light";
  root.dataset.themeSetting = set;
  const sel = document.getElementById("theme");
  if (sel) sel.value = set;
}

// setTheme keeps t as the reader's setting and applies it.
function setTheme(t) {
  if (!themes.includes(t)) return;
  try { localStorage.setItem("cairn-theme", t); } catch { /* applied for this page only */ }
  applyTheme();
}

applyTheme();
darkQuery.addEventListener("change", applyTheme);
window.addEventListener("storage", (e) => { if (e.key === "cairn-theme") applyTheme(); });
document.addEventListener("DOMContentLoaded", () => {
  applyTheme();
  document.getElementById("theme").addEventListener("change", (e) => setTheme(e.target.value));
});

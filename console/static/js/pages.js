// The console's pages, as data: each has a navigation entry (id, label) and its routes
// (a pattern of the location's hash and what draws it). main.js builds the navigation and
// the router from this list; a new page is one module and one entry here.
import { exportsPage } from "./exports.js";
import { projectsPage, projectPage } from "./projects.js";
import { assetsPage } from "./assets.js";
import { usagePage } from "./usage.js";
import { webhooksPage } from "./webhooks.js";
import { fontsPage } from "./fonts.js";

const ID = "([0-9a-f-]{36})";

// Each route's show(root, signal, match) draws the page into root; the signal aborts when
// the page is left.
export const pages = [
  { id: "exports", label: "Exports", routes: [
    [new RegExp(`^#/exports(?:/${ID})?$`), (root, s, m) => exportsPage(root, s, m[1])],
    [new RegExp(`^#/exports/${ID}/webhooks$`), (root, s, m) => webhooksPage(root, s, m[1])],
  ] },
  { id: "projects", label: "Projects", routes: [
    [/^#\/projects$/, (root, s) => projectsPage(root, s)],
    [new RegExp(`^#/projects/${ID}$`), (root, s, m) => projectPage(root, s, m[1])],
  ] },
  { id: "assets", label: "Assets", routes: [[/^#\/assets$/, (root, s) => assetsPage(root, s)]] },
  { id: "usage", label: "Usage", routes: [[/^#\/usage$/, (root, s) => usagePage(root, s)]] },
  { id: "fonts", label: "Fonts", routes: [[/^#\/fonts$/, (root, s) => fontsPage(root, s)]] },
];

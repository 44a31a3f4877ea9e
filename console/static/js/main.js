// The console's entry: sign-in (a #key= fragment, or the form), then a hash router over the
// pages. Each page gets an AbortSignal that ends its requests and streams when it is left.
import { call, getKey, setKey, clearKey } from "./api.js";
import { announce, liveState } from "./ui.js";
import { exportsPage } from "./exports.js";
import { projectsPage, projectPage } from "./projects.js";
import { assetsPage } from "./assets.js";
import { webhooksPage } from "./webhooks.js";
import { fontsPage } from "./fonts.js";

// A #key=... fragment signs in directly; it leaves the address bar (and history) at once.
function takeFragmentKey() {
  const m = /^#key=([^&]*)/.exec(location.hash);
  if (!m) return;
  history.replaceState(null, "", location.pathname + location.search + "#/exports");
  try { setKey(decodeURIComponent(m[1])); } catch { setKey(m[1]); }
}
takeFragmentKey();

const signin = document.getElementById("signin");
const page = document.getElementById("page");
const nav = document.getElementById("nav");
const signout = document.getElementById("signout");
const form = document.getElementById("signin-form");
const keyInput = document.getElementById("key");
const signinError = document.getElementById("signin-error");
let current = null; // the AbortController of the page shown

// check asks a route every key may call; it throws the API's answer in words.
async function check() {
  await call("GET", "/v1/editor/capabilities", undefined, { signingIn: true });
}

function showSignin(message) {
  if (current) current.abort();
  page.hidden = true;
  nav.hidden = true;
  signout.hidden = true;
  signin.hidden = false;
  signinError.textContent = message || "";
  announce("");
  liveState("");
  keyInput.focus();
}

async function signIn(key) {
  setKey(key);
  try {
    await check();
  } catch (e) {
    clearKey();
    const why = e.status === 401 ? "That API key was not accepted. " : "";
    showSignin(why + e.message);
    return;
  }
  signin.hidden = true;
  nav.hidden = false;
  signout.hidden = false;
  page.hidden = false;
  if (!location.hash.startsWith("#/")) history.replaceState(null, "", "#/exports");
  route();
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  const k = keyInput.value.trim();
  keyInput.value = "";
  if (!k) { showSignin("Enter an API key."); return; }
  signIn(k);
});

// The form's button stays disabled until this module runs, so the browser never submits
// the form by itself (which would put the key in the page's URL).
document.getElementById("signin-button").disabled = false;

signout.addEventListener("click", () => { clearKey(); showSignin("Signed out."); });

const routes = [
  [/^#\/exports(?:\/([0-9a-f-]{36}))?$/, (m, s) => exportsPage(page, s, m[1])],
  [/^#\/exports\/([0-9a-f-]{36})\/webhooks$/, (m, s) => webhooksPage(page, s, m[1])],
  [/^#\/projects$/, (m, s) => projectsPage(page, s)],
  [/^#\/projects\/([0-9a-f-]{36})$/, (m, s) => projectPage(page, s, m[1])],
  [/^#\/assets$/, (m, s) => assetsPage(page, s)],
  [/^#\/fonts$/, (m, s) => fontsPage(page, s)],
];

function route() {
  if (!getKey()) { showSignin(); return; }
  if (current) current.abort();
  current = new AbortController();
  liveState("");
  const hash = location.hash || "#/exports";
  page.replaceChildren();
  const section = hash.split("/")[1] || "exports";
  for (const a of nav.querySelectorAll("a")) {
    if (a.dataset.page === section) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  for (const [re, show] of routes) {
    const m = re.exec(hash);
    if (m) {
      show(m, current.signal);
      document.getElementById("main").focus({ preventScroll: true });
      return;
    }
  }
  location.hash = "#/exports";
}

window.addEventListener("hashchange", () => { if (getKey()) route(); });
window.addEventListener("cutroom:unauthenticated", (e) => { clearKey(); showSignin(e.detail); });

if (getKey()) signIn(getKey());
else showSignin();

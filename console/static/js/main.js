// The console's entry: sign-in (a #key= fragment, or the form), then a hash router over the
// pages of pages.js. Each page gets an AbortSignal that ends its requests and streams when
// it is left.
import { call, getKey, setKey, clearKey } from "./api.js";
import { el, announce, liveState } from "./ui.js";
import { pages } from "./pages.js";

// takeFragmentKey takes a #key=... fragment (on load, or typed into a tab already open): the
// key is stored and the fragment leaves the address bar and history at once. It reports
// whether there was one.
function takeFragmentKey() {
  const m = /^#key=([^&]*)/.exec(location.hash);
  if (!m) return false;
  history.replaceState(null, "", location.pathname + location.search + "#/exports");
  try { setKey(decodeURIComponent(m[1])); } catch { setKey(m[1]); }
  return true;
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

nav.replaceChildren(...pages.map((p) => el("a", { href: `#/${p.id}`, "data-page": p.id }, p.label)));
const routes = pages.flatMap((p) => p.routes);

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
      show(page, current.signal, m);
      document.getElementById("main").focus({ preventScroll: true });
      return;
    }
  }
  location.hash = "#/exports";
}

window.addEventListener("hashchange", () => {
  if (takeFragmentKey()) signIn(getKey());
  else if (getKey()) route();
});
window.addEventListener("cutroom:unauthenticated", (e) => { clearKey(); showSignin(e.detail); });

if (getKey()) signIn(getKey());
else showSignin();

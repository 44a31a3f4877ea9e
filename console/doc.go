// Package console is the web console served at GET / : static HTML, CSS and JavaScript
// modules embedded in the binary with go:embed, no build step and no front-end framework.
//
// Decisions:
//
//   - The console is a client of the public API and nothing more: every page is drawn from
//     the same /v1 routes scripts use, with the API key in the Authorization header. The key
//     is kept in sessionStorage (gone with the tab); a #key=... fragment signs in directly
//     (desktop apps opening the console for their user; fragments never reach the server)
//     and is removed from the address bar with history.replaceState before anything else
//     runs. The key never goes into a URL: live task events are read with fetch() and a
//     ReadableStream (EventSource cannot send headers), resuming with Last-Event-ID.
//   - Files it shows (asset thumbnails, export outputs) come through the signed links the
//     API hands out, rewritten to the page's own origin so media-src 'self' holds even when
//     the server's public URL names another host for the same server.
//   - Every answer of the handler carries the security headers: a Content-Security-Policy
//     with no inline script or style ('self' only; images and media also from blob: for
//     frame previews), X-Frame-Options DENY, X-Content-Type-Options nosniff and
//     Referrer-Policy no-referrer. Files are revalidated on each load (Cache-Control
//     no-cache) against a strong ETag, the SHA-256 of the file computed once in Handler,
//     so an upgraded binary is picked up at once and an unchanged file costs a 304.
//   - The pages are data (static/js/pages.js): each page's navigation entry and routes; main.js
//     builds the navigation and the hash router from that list, so a page is one module and
//     one entry. Every table is built by ui.js's table(), whose cells carry their column's
//     name: on a narrow screen the stylesheet stacks a row's cells under those names instead
//     of hiding columns. Thumbnails and posters come from the frame preview route (fetched
//     with the key, shown as blob: URLs), two at a time, as rows come into view; an output's
//     video has preload="none", so a visit loads no output until it is played.
//   - Example states (static/examples/, listed in index.json) are data the projects page
//     offers for a new project; a test validates each with the real server.
//   - The package imports no project package; the server mounts the handler it is given
//     (server.Deps.Console) at GET / and GET /console/*path, and the App wires it in.
package console

// The terminal page: the same text session as telnet, over /term/ws.
// Frames to the server: "d" + typed characters, "r" + COLSxROWS on a resize (as NAWS).
"use strict";
(function () {
  const status = document.getElementById("status");
  const term = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 15, scrollback: 2000 });
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(document.getElementById("terminal"));
  fit.fit();
  const lang = (navigator.language || "en").slice(0, 2);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = scheme + "//" + location.host + "/term/ws?cols=" + term.cols + "&rows=" + term.rows +
    "&lang=" + encodeURIComponent(lang);
  const ws = new WebSocket(url);
  window.donneTerm = { term: term, ws: ws };
  ws.onopen = function () { status.textContent = "connected"; term.focus(); };
  ws.onclose = function () { status.textContent = "disconnected"; };
  ws.onmessage = function (ev) { term.write(ev.data); };
  term.onData(function (data) { if (ws.readyState === 1) ws.send("d" + data); });
  term.onResize(function (size) { if (ws.readyState === 1) ws.send("r" + size.cols + "x" + size.rows); });
  window.addEventListener("resize", function () { fit.fit(); });
})();

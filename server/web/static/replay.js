// The replay viewer of /replay/ROUND: fetches /api/replay/ROUND?lang=… (what a spectator saw, each
// event with the sentence a spectator read, in the page's language) and steps through it, with the
// cards drawn; at a Speculation deal's end, the stacks shown to everyone. The page's own words come
// from the server's catalogs (data-labels). Names and texts are set as text, never as HTML.
"use strict";
(function () {
  const box = document.getElementById("replay");
  if (!box) return;
  const labels = JSON.parse(box.dataset.labels);
  DonneCards.use(labels);
  const lang = box.dataset.lang || document.documentElement.lang || "en";
  const list = document.getElementById("steps");
  const where = document.getElementById("where");
  const prev = document.getElementById("prev");
  const next = document.getElementById("next");
  let data = null;
  let at = 0;
  function seatName(seat) { return data.seats[seat] || ("#" + (seat + 1)); }
  function faces(node, cards) {
    for (const c of cards) if (typeof c === "string" && c.length === 2) node.append(DonneCards.element(c, lang));
  }
  function describe(ev) {
    const li = document.createElement("li");
    li.dataset.event = ev.event || "";
    const head = document.createElement("span");
    head.className = "text";
    li.append(head);
    if (ev.event === "revealed" && Array.isArray(ev.stacks)) {
      head.textContent = labels.cards_shown;
      const shown = document.createElement("ul");
      shown.className = "shown";
      ev.stacks.forEach(function (stack, seat) {
        if (!Array.isArray(stack) || !stack.length) return;
        const row = document.createElement("li");
        row.dataset.seat = String(seat);
        row.append(document.createTextNode(seatName(seat) + " "));
        faces(row, stack);
        shown.append(row);
      });
      li.append(shown);
      return li;
    }
    head.textContent = (ev.text || ev.event || "…") + " ";
    if (Array.isArray(ev.cards)) faces(li, ev.cards);
    if (typeof ev.card === "string") faces(li, [ev.card]);
    return li;
  }
  function show() {
    list.replaceChildren();
    for (let i = 0; i <= at && i < data.steps.length; i++) {
      for (const ev of data.steps[i]) {
        const li = describe(ev);
        if (i === at) li.classList.add("current");
        list.append(li);
      }
    }
    where.textContent = labels.step_of.replace("{n}", String(at + 1)).replace("{total}", String(data.steps.length));
    prev.disabled = at === 0;
    next.disabled = at >= data.steps.length - 1;
    const cur = list.querySelector(".current");
    if (cur) cur.scrollIntoView({ block: "nearest" });
  }
  prev.addEventListener("click", function () { if (data && at > 0) { at--; show(); } });
  next.addEventListener("click", function () { if (data && at < data.steps.length - 1) { at++; show(); } });
  document.addEventListener("keydown", function (e) {
    if (!data) return;
    if (e.key === "ArrowLeft" && at > 0) { at--; show(); }
    if (e.key === "ArrowRight" && at < data.steps.length - 1) { at++; show(); }
    if (e.key === "Home") { at = 0; show(); }
    if (e.key === "End") { at = data.steps.length - 1; show(); }
  });
  fetch("/api/replay/" + encodeURIComponent(box.dataset.round) + "?lang=" + encodeURIComponent(lang))
    .then(function (r) { return r.json(); })
    .then(function (d) { data = d; at = 0; show(); });
})();

// The replay viewer of /replay/ROUND: fetches /api/replay/ROUND (what a spectator saw) and
// steps through it. Names and texts are set as text, never as HTML.
"use strict";
(function () {
  const box = document.getElementById("replay");
  if (!box) return;
  const labels = JSON.parse(box.dataset.labels);
  const words = JSON.parse(box.dataset.events || "{}");
  const lang = document.documentElement.lang || "en";
  const list = document.getElementById("steps");
  const where = document.getElementById("where");
  let data = null;
  let at = 0;
  function seatName(seat) { return data.seats[seat] || ("#" + (seat + 1)); }
  function describe(ev) {
    const li = document.createElement("li");
    const head = document.createElement("span");
    const word = words[ev.event] || "…";
    let text = word;
    if (typeof ev.seat === "number") text = seatName(ev.seat) + " · " + word;
    if (typeof ev.from === "number" && typeof ev.to === "number") text = seatName(ev.from) + " → " + seatName(ev.to) + " · " + word;
    head.textContent = text + " ";
    li.append(head);
    const cards = Array.isArray(ev.cards) ? ev.cards : [];
    for (const c of cards) if (typeof c === "string" && c.length === 2) li.append(DonneCards.element(c, lang));
    return li;
  }
  function show() {
    list.replaceChildren();
    for (let i = 0; i <= at && i < data.steps.length; i++) {
      for (const ev of data.steps[i]) {
        const li = describe(ev);
        if (i === at) li.className = "current";
        list.append(li);
      }
    }
    where.textContent = labels.step + " " + (at + 1) + " / " + data.steps.length;
    const cur = list.querySelector(".current");
    if (cur) cur.scrollIntoView({ block: "nearest" });
  }
  document.getElementById("prev").addEventListener("click", function () { if (at > 0) { at--; show(); } });
  document.getElementById("next").addEventListener("click", function () { if (at < data.steps.length - 1) { at++; show(); } });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowLeft") document.getElementById("prev").click();
    if (e.key === "ArrowRight") document.getElementById("next").click();
  });
  fetch("/api/replay/" + encodeURIComponent(box.dataset.round)).then(function (r) { return r.json(); })
    .then(function (d) { data = d; at = 0; show(); });
})();

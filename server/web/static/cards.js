// Card faces shared by the play page and the replay viewer. A card code is rank + suit:
// rank 3456789TJQKA2 (T = 10), suit c d h s. The letters printed on ranks (rank_Q: "D" in French)
// and the cards in words for screen readers (card_Qh: "dame de cœur") come from the server's
// catalogs with the page's labels (DonneCards.use); no word is written here. No innerHTML anywhere.
"use strict";
(function () {
  const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
  let words = {};
  function use(labels) { words = labels || {}; }
  function rank(code) { return words["rank_" + code[0]] || (code[0] === "T" ? "10" : code[0]); }
  function suit(code) { return SUITS[code[1]] || "?"; }
  function red(code) { return code[1] === "d" || code[1] === "h"; }
  function label(code) { return words["card_" + code] || rank(code) + suit(code); }
  function element(code, _lang, tag) {
    const el = document.createElement(tag || "span");
    el.className = "card " + (red(code) ? "red" : "black");
    el.dataset.card = code;
    el.setAttribute("aria-label", label(code));
    const top = document.createElement("span");
    top.className = "corner";
    top.textContent = rank(code) + suit(code);
    top.setAttribute("aria-hidden", "true");
    const mid = document.createElement("span");
    mid.className = "pip";
    mid.textContent = suit(code);
    mid.setAttribute("aria-hidden", "true");
    el.append(top, mid);
    return el;
  }
  window.DonneCards = { use: use, element: element, label: label, rank: rank, suit: suit, red: red };
})();

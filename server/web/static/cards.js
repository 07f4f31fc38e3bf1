// Card faces shared by the play page and the replay viewer. A card code is rank + suit:
// rank 3456789TJQKA2 (T = 10), suit c d h s. No innerHTML anywhere: text nodes only.
"use strict";
(function () {
  const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
  const RANKS = { T: "10" };
  const LOCAL_RANKS = { fr: { J: "V", Q: "D", K: "R" } };  // as the server writes them (valet, dame, roi)
  const NAMES = {
    en: { c: "clubs", d: "diamonds", h: "hearts", s: "spades", J: "jack", Q: "queen", K: "king", A: "ace", of: "of" },
    fr: { c: "trèfle", d: "carreau", h: "cœur", s: "pique", J: "valet", Q: "dame", K: "roi", A: "as", of: "de" },
    es: { c: "tréboles", d: "diamantes", h: "corazones", s: "picas", J: "jota", Q: "reina", K: "rey", A: "as", of: "de" },
  };
  function rank(code, lang) { const r = code[0]; return RANKS[r] || (LOCAL_RANKS[lang] || {})[r] || r; }
  function suit(code) { return SUITS[code[1]] || "?"; }
  function red(code) { return code[1] === "d" || code[1] === "h"; }
  function label(code, lang) {
    const n = NAMES[lang] || NAMES.en;
    const r = code[0];
    return (n[r] || rank(code, lang)) + " " + n.of + " " + (n[code[1]] || code[1]);
  }
  function element(code, lang, tag) {
    const el = document.createElement(tag || "span");
    el.className = "card " + (red(code) ? "red" : "black");
    el.dataset.card = code;
    el.setAttribute("aria-label", label(code, lang));
    const top = document.createElement("span");
    top.className = "corner";
    top.textContent = rank(code, lang) + suit(code);
    top.setAttribute("aria-hidden", "true");
    const mid = document.createElement("span");
    mid.className = "pip";
    mid.textContent = suit(code);
    mid.setAttribute("aria-hidden", "true");
    el.append(top, mid);
    return el;
  }
  window.DonneCards = { element: element, label: label, rank: rank, suit: suit, red: red };
})();

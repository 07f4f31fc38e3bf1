// The deal check of the public verify page, done again by the browser itself on the published
// record (Président): the same steps as docs/verify_deal.py (docs/fairness.md), with the
// browser's own SHA-256 and HMAC (crypto.subtle). Each step's result goes beside the server's.
"use strict";
(function () {
  const RANKS = "3456789TJQKA2", SUITS = "cdhs";
  const CODES = [];
  for (let i = 0; i < 52; i++) CODES.push(RANKS[Math.floor(i / 4)] + SUITS[i % 4]);
  const enc = new TextEncoder();

  function cat(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  }
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  function unhex(text) {
    if (typeof text !== "string" || !/^([0-9a-f]{2})+$/i.test(text)) throw new Error("hex");
    return Uint8Array.from(text.match(/../g), (h) => parseInt(h, 16));
  }
  const tagged = (tag) => cat(Uint8Array.of(tag.length), enc.encode(tag));
  async function sha256(data) { return new Uint8Array(await crypto.subtle.digest("SHA-256", data)); }
  async function mac(key, tag, data) {
    const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new Uint8Array(await crypto.subtle.sign("HMAC", k, cat(tagged(tag), data || new Uint8Array(0))));
  }
  const derive = (seed, label) => sha256(cat(seed, enc.encode("/" + label)));
  function u64(n) { const b = new Uint8Array(8); new DataView(b.buffer).setBigUint64(0, BigInt(n)); return b; }

  class Stream {  // SHA-256(seed || u64be(0)), SHA-256(seed || u64be(1)), ...
    constructor(seed) { this.seed = seed; this.counter = 0; this.buf = new Uint8Array(0); this.pos = 0; }
    async bytes(n) {
      while (this.buf.length - this.pos < n) this.buf = cat(this.buf, await sha256(cat(this.seed, u64(this.counter++))));
      this.pos += n;
      return this.buf.slice(this.pos - n, this.pos);
    }
    async below(n) {  // uniform in [0, n): the low bits of ceil(bits/8) bytes, again when >= n
      if (n === 1) return 0;
      const bits = (n - 1).toString(2).length;
      for (;;) {
        const x = (await this.bytes(Math.ceil(bits / 8))).reduce((v, b) => v * 256 + b, 0) % 2 ** bits;
        if (x < n) return x;
      }
    }
  }
  async function shuffled(items, seed) {  // Fisher-Yates from the last position down to 1
    const out = items.slice(), stream = new Stream(seed);
    for (let i = out.length - 1; i > 0; i--) {
      const j = await stream.below(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
  function encode(contributions) {  // u8(seats) || per seat 0x00, or 0x01 || u16be(len) || UTF-8
    const parts = [Uint8Array.of(contributions.length)];
    for (const c of contributions) {
      if (c === null) { parts.push(Uint8Array.of(0)); continue; }
      const b = enc.encode(c);
      parts.push(Uint8Array.of(1, b.length >> 8, b.length & 255), b);
    }
    return cat(...parts);
  }
  async function botContribution(commitment, seat) {
    return "bot:" + hex(await mac(unhex(commitment), "donne/bot-contribution/v1", Uint8Array.of(seat))).slice(0, 32);
  }
  async function presidentHands(seed, dealer, present, seats) {  // one card at a time after the dealer (P3)
    const cards = await shuffled([...Array(52).keys()], seed);
    const after = present.filter((s) => s > dealer).concat(present.filter((s) => s <= dealer));
    const hands = Array.from({ length: seats }, () => []);
    after.forEach((seat, i) => { hands[seat] = cards.filter((_, k) => k % after.length === i).sort((a, b) => a - b); });
    return hands;
  }
  const ids = (codes) => codes.map((c) => CODES.indexOf(c)).sort((a, b) => a - b);

  async function checkPresident(r) {
    const steps = {};
    const commitment = String(r.commitment).toLowerCase();
    const serverSeed = unhex(r.server_seed);
    steps.commitment = hex(await sha256(serverSeed)) === commitment;
    const wrongBots = [];
    for (const s of r.bots) if (r.contributions[s] !== await botContribution(commitment, s)) wrongBots.push(s);
    steps.bots = wrongBots.length === 0;
    const seed = await mac(serverSeed, "donne/president/deal-seed/v1", encode(r.contributions));
    steps.deal_seed = hex(seed) === String(r.deal_seed).toLowerCase();
    if (r.dealer_drawn) steps.dealer = r.present[await new Stream(await derive(seed, "dealer")).below(r.present.length)] === r.dealer;
    const hands = await presidentHands(seed, r.dealer, r.present, r.seats);
    steps.hands = hands.every((h, s) => h.join() === ids(r.hands[s] || []).join());
    return steps;
  }

  async function run() {
    const verdict = document.getElementById("browser-verdict");
    const recordNode = document.getElementById("record");
    if (!verdict || !recordNode) return;
    let steps = null;
    try {
      const record = JSON.parse(recordNode.textContent);
      if (record.game === "president" && window.crypto && crypto.subtle) steps = await checkPresident(record);
    } catch (e) {
      steps = { format: false };
    }
    if (!steps) { verdict.textContent = verdict.dataset.cannot; return; }
    for (const [code, ok] of Object.entries(steps)) {
      const cell = document.querySelector('[data-step="' + code + '"] .mine');
      if (cell) { cell.textContent = ok ? "✔" : "✘"; cell.classList.add(ok ? "good" : "bad"); }
    }
    const ok = Object.values(steps).every(Boolean);
    verdict.textContent = ok ? verdict.dataset.ok : verdict.dataset.bad;
    verdict.classList.add(ok ? "good" : "bad");
  }
  document.addEventListener("DOMContentLoaded", run);
})();

// The play page: the JSON protocol of docs/protocol.md over /ws, one object per frame.
// Plain DOM, no framework; people's text is only ever set with textContent.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const LABELS = window.DonneLabels;
  const params = new URLSearchParams(location.search);
  let lang = pickLang();
  let ws = null;
  let nextId = 1;
  const pending = new Map();
  let me = null; // {name, guest}
  let state = null; // the last state pushed
  let stateAt = 0; // when it came (performance.now())
  let selected = new Set();
  let matchOver = null; // the match_over event of this table's match: each seat's gain (Speculation)
  let roomsTimer = null;

  function pickLang() {
    const asked = (params.get("lang") || localStorage.getItem("donne-lang") || "").slice(0, 2);
    if (LABELS.langs.includes(asked)) return asked;
    for (const l of navigator.languages || [navigator.language || "en"]) {
      const code = (l || "").slice(0, 2).toLowerCase();
      if (LABELS.langs.includes(code)) return code;
    }
    return "en";
  }
  let labels = {};  // this language's labels, from the server's catalogs
  function L(key, vars) {
    let text = labels[key];
    if (Array.isArray(text)) text = text[vars && !singular(vars.n) ? 1 : 0];
    if (typeof text !== "string") text = "";
    if (vars) for (const k of Object.keys(vars)) text = text.replace("{" + k + "}", String(vars[k]));
    return text;
  }
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }
  async function translatePage() {
    labels = await LABELS.load(lang);
    DonneCards.use(labels);
    document.documentElement.lang = lang;
    for (const a of document.querySelectorAll("header nav a")) a.search = "?lang=" + lang;  // the public pages in the same language
    $("lang").value = lang;
    for (const node of document.querySelectorAll("[data-l]")) node.textContent = L(node.dataset.l);
    for (const node of document.querySelectorAll("[data-la]")) node.setAttribute("aria-label", L(node.dataset.la));
    for (const node of document.querySelectorAll("[data-lp]")) node.setAttribute("placeholder", L(node.dataset.lp));
    roundsLabel();
    if (state) drawTable();
  }
  function toast(text) {
    const t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
  }
  function log(text, kind) {
    if (!text) return;
    const list = $("log");
    list.append(el("li", { class: kind || "", text: text }));
    while (list.children.length > 200) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
  }

  // -- the connection -------------------------------------------------------------------------
  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(scheme + "//" + location.host + "/ws");
    ws.onmessage = (ev) => { let m; try { m = JSON.parse(ev.data); } catch (e) { return; } receive(m); };
    ws.onclose = () => {
      for (const p of pending.values()) p.reject(new Error("closed"));
      pending.clear();
      document.body.classList.add("offline");
      toast("✖");
    };
  }
  function send(cmd, args) {
    const id = nextId++;
    const msg = Object.assign({ cmd: cmd, id: id }, args || {});
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve: resolve, reject: reject });
      ws.send(JSON.stringify(msg));
    });
  }
  async function act(cmd, args) {
    const reply = await send(cmd, args);
    if (reply.type === "error") toast(reply.message || reply.code);
    return reply;
  }
  function receive(m) {
    if (m.type === "ok" || m.type === "error") {
      const p = pending.get(m.id);
      if (p) { pending.delete(m.id); p.resolve(m); }
      return;
    }
    if (m.type === "state") { onState(m); return; }
    if (m.type === "event") onEvent(m);
  }
  function onEvent(m) {
    const lobbyNews = ["room_created", "room_closed", "rooms_changed", "seek", "seek_over", "challenge",
      "seek_accepted", "joined", "left", "tournament_opened", "tournament_started", "tournament_ended"];
    if (m.event === "hello") return;
    if (m.event === "notice" && m.code === "resume_code" && m.resume && m.name) keepResumeCode(m.name, m.resume);
    if (m.event === "match_over") { matchOver = m; if (state) drawTable(); }
    if ((m.event === "tell" || m.event === "message") && m.from && !$("tell-to").value) $("tell-to").value = m.from;
    if (m.event === "chat" || m.event === "tell" || m.event === "message") log(m.text, "chat");
    else if (!["room_created", "room_closed", "rooms_changed"].includes(m.event)) log(m.text, "event");
    if (m.event === "seek_started" && m.room) { /* the state follows */ }
    if (lobbyNews.includes(m.event) && !$("lobby").hidden) refreshLobbySoon();
  }

  // -- logging in -----------------------------------------------------------------------------
  // a guest's resume code, kept by the page: logging in again under that name gives it (docs/web.md)
  function resumeKey(name) { return "donne-resume:" + name.trim().toLowerCase(); }
  function resumeCode(name) {
    try { return localStorage.getItem(resumeKey(name)); } catch (e) { return null; }
  }
  function keepResumeCode(name, code) {
    try { localStorage.setItem(resumeKey(name), code); } catch (e) { /* storage refused: the code is in the log */ }
  }
  async function login(ev) {
    ev.preventDefault();
    const name = $("login-name").value.trim();
    const password = $("login-password").value;
    if (!name) return;
    await send("lang", { lang: lang, browser: true });
    const args = { name: name };
    if (password) args.password = password;
    const code = resumeCode(name);  // a guest taking their seat back (the server ignores it for a free name)
    if (code && !password) args.resume = code;
    const reply = await send("login", args);
    await enter(reply);
  }
  async function register() {
    const name = $("login-name").value.trim();
    const password = $("login-password").value;
    if (!name || !password) { $(name ? "login-password" : "login-name").focus(); return; }
    await send("lang", { lang: lang, browser: true });
    await enter(await send("register", { name: name, password: password }));
  }
  async function enter(reply) {
    $("login-password").value = "";
    if (reply.type === "error") { toast(reply.message || reply.code); return; }
    me = { name: reply.name, guest: reply.guest };
    $("me").textContent = reply.name + (reply.guest ? " (" + L("guest") + ")" : "") + " · " + reply.chips + " " + L("chips");
    $("login").hidden = true;
    $("side").hidden = false;
    document.body.classList.add("in");
    const watch = params.get("watch");
    if (reply.room) { showTable(); await send("state"); }
    else if (watch) { const r = await act("watch", { room: watch }); if (r.type === "ok") showTable(); else showLobby(); }
    else showLobby();
  }

  // -- the lobby -------------------------------------------------------------------------------
  function showLobby() {
    state = null;
    $("table").hidden = true;
    $("lobby").hidden = false;
    refreshLobby();
  }
  function showTable() {
    $("lobby").hidden = true;
    $("table").hidden = false;
  }
  function refreshLobbySoon() {
    if (roomsTimer) return;
    roomsTimer = setTimeout(() => { roomsTimer = null; refreshLobby(); }, 300);
  }
  async function refreshLobby() {
    const [rooms, who, seeks] = await Promise.all([send("rooms"), send("who"), send("seeks")]);
    const list = $("rooms");
    list.replaceChildren();
    for (const r of (rooms.rooms || [])) {
      const names = r.players.filter((n) => n).join(", ");
      const sit = el("button", { type: "button", "data-action": "join", text: L("join"), onclick: () => join(r.room) });
      const look = el("button", { type: "button", class: "secondary", "data-action": "watch", text: L("watch"), onclick: () => watchRoom(r.room) });
      list.append(el("li", { "data-room": r.room }, el("span", { text: r.room + " · " + L(r.rules) + " · " + names + " · " + L("status_" + r.status) }),
        r.status !== "over" ? sit : null, look));
    }
    if (!list.children.length) list.append(el("li", { class: "empty", text: L("no_rooms") }));
    const seekList = $("seeks");
    seekList.replaceChildren();
    for (const s of (seeks.seeks || [])) {
      const mine = me && s.name === me.name;
      const toMe = me && s.to === me.name;
      const what = (toMe ? L("challenged_by", { name: s.name }) : s.name) + " · " + L(s.rules) + " · " + s.seats + " " + L("seats");
      seekList.append(el("li", { class: toMe ? "challenge" : "", "data-seek": String(s.seek) }, el("span", { text: what }),
        mine ? null : el("button", { type: "button", "data-action": "accept", text: L("accept"),
          onclick: () => act("accept_seek", { seek: s.seek }).then(afterSeat) }),
        toMe ? el("button", { type: "button", class: "secondary", "data-action": "decline", text: L("decline"),
          onclick: () => act("decline_seek", { seek: s.seek }).then(refreshLobby) }) : null));
    }
    if (!seekList.children.length) seekList.append(el("li", { class: "empty", text: L("no_seeks") }));
    drawTournaments(await send("tournaments"));
    const whoList = $("who");
    whoList.replaceChildren();
    const names = $("who-names");
    names.replaceChildren();
    for (const p of (who.players || [])) {
      const other = !me || p.name !== me.name;
      whoList.append(el("li", { "data-name": p.name }, el("a", { href: "/player/" + encodeURIComponent(p.name), text: p.name }),
        document.createTextNode(p.room ? " · " + p.room : ""),
        other ? el("button", { type: "button", class: "secondary", "data-action": "tell", text: L("tell"), onclick: () => tellTo(p.name) }) : null,
        other ? el("button", { type: "button", class: "secondary", "data-action": "challenge", text: L("challenge"), onclick: () => challenge(p.name) }) : null));
      if (other) names.append(el("option", { value: p.name }));
    }
  }
  // -- tournaments (docs/protocol.md: the tournament_* commands) --------------------------------
  let standingsOf = null;  // the event whose standings are shown under the list
  function minutes(at) { return Math.max(1, Math.ceil((at * 1000 - Date.now()) / 60000)); }
  function tournamentFacts(t) {
    const facts = [L(t.kind === "swiss" ? "tour_swiss" : "tour_arena"), L(t.rules), L("seats_n", { n: t.seats })];
    if (t.phase === "over") facts.push(L("tour_over"));
    else if (t.phase === "waiting") facts.push(L("tour_starts", { n: minutes(t.starts_at) }));
    else if (t.kind === "swiss") facts.push(L("tour_round", { n: t.round, m: t.rounds }));
    else if (typeof t.ends_at === "number") facts.push(L("tour_ends", { n: minutes(t.ends_at) }));
    facts.push(L("tour_entrants", { n: t.entrants }));
    if (t.joined) facts.push(L("tour_joined"));
    return t.id + " · " + facts.join(" · ");
  }
  function drawTournaments(reply) {
    const box = $("tournaments-box");
    box.hidden = reply.type !== "ok";  // a server without tournaments
    if (box.hidden) return;
    const list = $("tournaments");
    list.replaceChildren();
    for (const t of (reply.tournaments || [])) {
      const open = t.phase !== "over";
      list.append(el("li", { "data-tournament": t.id }, el("span", { text: tournamentFacts(t) }),
        open && !t.joined ? el("button", { type: "button", "data-action": "tournament_join", text: L("tour_join"),
          onclick: () => act("tournament_join", { tournament: t.id }).then(refreshLobby) }) : null,
        open && t.joined ? el("button", { type: "button", class: "secondary", "data-action": "tournament_leave",
          text: L("tour_leave"), onclick: () => act("tournament_leave", { tournament: t.id }).then(refreshLobby) }) : null,
        el("button", { type: "button", class: "secondary", "data-action": "tournament_standings", text: L("tour_standings"),
          onclick: () => showStandings(t.id) }),
        t.phase === "running" && t.tables ? el("button", { type: "button", class: "secondary", "data-action": "tournament_watch",
          text: L("watch"), onclick: () => act("tournament_watch", { tournament: t.id }).then(afterSeat) }) : null));
    }
    if (!list.children.length) list.append(el("li", { class: "empty", text: L("no_tournaments") }));
    if (standingsOf) showStandings(standingsOf);
  }
  async function showStandings(tid) {
    const reply = await act("tournament_standings", { tournament: tid });
    const box = $("tournament-standings");
    if (reply.type !== "ok") { standingsOf = null; box.hidden = true; return; }
    standingsOf = tid;
    const head = el("tr", {}, ...["tour_rank", "name", "tour_points", ...(reply.kind === "swiss" ? ["tour_opp"] : []),
      "tour_games", "tour_wins", "tour_notes"].map((k) => el("th", { scope: "col", text: L(k),
        title: k === "tour_opp" ? L("tour_opponents") : null })));
    const body = el("tbody");
    for (const line of (reply.lines || [])) {
      const mine = me && line.name === me.name;
      const notes = [];
      if (line.fire) notes.push(L("tour_fire"));
      if (line.provisional) notes.push(L("tour_provisional"));
      if (line.status === "left") notes.push(L("tour_left"));
      body.append(el("tr", { class: mine ? "mine" : "", "aria-current": mine ? "true" : null },
        el("td", { text: String(line.rank) }), el("th", { scope: "row", text: line.name }), el("td", { text: String(line.points) }),
        reply.kind === "swiss" ? el("td", { text: String(line.opponents) }) : null,
        el("td", { text: String(line.games) }), el("td", { text: String(line.wins) }), el("td", { text: notes.join(", ") })));
    }
    box.replaceChildren(el("table", {}, el("caption", { text: L(reply.final ? "tour_final" : "tour_live", { id: tid }) }),
      el("thead", {}, head), body),
      el("button", { type: "button", class: "secondary", text: L("close"), onclick: () => { standingsOf = null; box.hidden = true; } }));
    box.hidden = false;
  }
  function afterSeat(reply) { if (reply.type === "ok" && reply.room) showTable(); }
  async function join(room) { afterSeat(await act("join", { room: room })); }
  async function watchRoom(room) { afterSeat(await act("watch", { room: room })); }
  function tableArgs() {
    const kind = $("create-kind").value;
    const args = { game: kind === "speculation" ? "speculation" : "president", seats: Number($("create-seats").value),
      bots: Number($("create-bots").value) };
    const rounds = Number($("create-rounds").value);
    if ($("create-rounds").value !== "" && Number.isInteger(rounds) && rounds > 0) args.rounds = rounds;  // empty: the game's usual
    if (kind !== "speculation") args.rules = kind;
    return args;
  }
  async function create(ev) {
    ev.preventDefault();
    afterSeat(await act("create", tableArgs()));
  }
  function roundsLabel() {
    $("create-rounds-label").textContent = L($("create-kind").value === "speculation" ? "deals_count" : "rounds_count");
  }
  function tellTo(name) {
    $("tell-to").value = name;
    $("tell-text").focus();
  }
  async function challenge(name) {
    const args = tableArgs();
    delete args.bots;  // the seats besides the two people are bots
    const r = await act("challenge", Object.assign(args, { name: name }));
    if (r.type === "ok") refreshLobby();
  }
  async function tell(ev) {
    ev.preventDefault();
    const to = $("tell-to").value.trim();
    const text = $("tell-text").value.trim();
    if (!text) { $("tell-text").focus(); return; }
    if (!to) { $("tell-to").focus(); return; }
    const r = await act("tell", { name: to, text: text });
    if (r.type === "ok") $("tell-text").value = "";
  }
  async function reply() {
    const text = $("tell-text").value.trim();
    if (!text) { $("tell-text").focus(); return; }
    const r = await act("reply", { text: text });
    if (r.type === "ok") $("tell-text").value = "";
  }
  async function seek() {
    const r = await act("seek", Object.assign(tableArgs(), { fill: true }));
    if (r.type === "ok") refreshLobby();
  }

  // -- the table -------------------------------------------------------------------------------
  function onState(s) {
    if (!s.room) return;
    const before = state;
    state = s;
    stateAt = performance.now();
    if (!before || before.room !== s.room || handKey(before) !== handKey(s) || before.decision !== s.decision) selected = new Set();
    if (!isOver(s)) matchOver = null;  // a new match (rematch) or another table
    showTable();
    drawTable();
  }
  function singular(n) { return n === 1 || (n === 0 && lang === "fr"); }  // French: 0 and 1 take the singular
  function handKey(s) { return (s.hand || []).join(","); }
  function seatName(i) {
    const seat = state.seats[i];
    return seat ? (seat.name || "#" + (i + 1)) : "#" + (i + 1);
  }
  function drawTable() {
    const s = state;
    if (!s || $("table").hidden) return;
    $("table-title").textContent = s.room + " · " + L(s.rules) + (s.round ? " · " + L(s.game === "speculation" ? "deal" : "round") + " " + s.round : "");
    drawSeats(s);
    drawCenter(s);
    drawHand(s);
    drawActions(s);
    drawPrompt(s);
    drawSeed(s);
    tick();
  }
  function drawSeats(s) {
    const list = $("seats");
    list.replaceChildren();
    s.seats.forEach((seat, i) => {
      const facts = [];
      if (seat.bot) facts.push(L("bot"));
      if (typeof seat.cards === "number") facts.push(L("cards", { n: seat.cards }));
      if (s.game === "speculation" || s.rules === "tdc") if (typeof seat.chips === "number") facts.push(seat.chips + " " + L("chips"));
      if (seat.title) facts.push(L("title_" + seat.title));
      if (typeof seat.score === "number" && s.rules === "classic") facts.push(L("points", { n: seat.score }));
      if (seat.passed) facts.push(L("passed"));
      const li = el("li", { class: "seat" + (s.turn === i ? " turn" : "") + (s.you === i ? " mine" : ""),
        "aria-current": s.turn === i ? "true" : null },
        el("span", { class: "who", text: (seat.name || "—") + (s.you === i ? " (" + L("you") + ")" : "") }),
        el("span", { class: "facts", text: facts.map((f) => f.replace(/ /g, "\u00a0").replace(/-/g, "\u2011")).join(" · ") }));
      if (Array.isArray(seat.faceup) && seat.faceup.length) {
        const row = el("span", { class: "faceup" });
        for (const c of seat.faceup) row.append(DonneCards.element(c, lang));
        if (seat.facedown) row.append(el("span", { class: "facedown", text: "+" + seat.facedown }));
        li.append(row);
      }
      list.append(li);
    });
  }
  function isOver(s) { return s.status === "over" || s.phase === "match_over" || s.over === true; }
  function drawStandings(s, box) {
    // the match's end: everyone's place, by points (classic), by the chips won or lost in the match
    // (Speculation: its match_over event says), else by chips
    const byPoints = s.rules === "classic";
    const changes = matchOver && Array.isArray(matchOver.changes) && matchOver.changes.length === s.seats.length ? matchOver.changes : null;
    const worth = (i) => (byPoints ? s.seats[i].score : changes ? changes[i] : s.seats[i].chips);
    const order = s.seats.map((seat, i) => i).filter((i) => typeof worth(i) === "number")
      .sort((a, b) => worth(b) - worth(a));
    if (!order.length) return;
    const list = el("ol", { class: "standings", "aria-label": L("standings") });
    for (const i of order) {
      const n = worth(i);
      const place = 1 + order.filter((j) => worth(j) > n).length;  // equal scores share a place
      list.append(el("li", { class: s.you === i ? "mine" : "", value: String(place) }, el("span", { class: "who", text: seatName(i) }),
        document.createTextNode(" "), el("span", { class: "worth", "data-n": String(n),
          text: byPoints ? L("points", { n: n }) : (n < 0 ? "−" : changes && n > 0 ? "+" : "") + L("chips_n", { n: Math.abs(n) }) })));
    }
    box.append(el("p", { class: "standings-title", text: L("standings") }), list);
  }
  function drawCenter(s) {
    const box = $("center");
    box.replaceChildren();
    if (isOver(s)) { drawStandings(s, box); return; }
    if (s.game === "speculation") {
      const line = [];
      if (s.trump) line.push(L("trump") + " " + DonneCards.suit("x" + s.trump));
      if (typeof s.pool === "number") line.push(L("pool") + " " + s.pool);
      box.append(el("p", { text: line.join(" · ") }));
      if (s.best && s.best.card) box.append(el("p", {}, document.createTextNode(seatName(s.best.seat) + " "), DonneCards.element(s.best.card, lang)));
      if (s.auction) {
        box.append(el("p", { class: "auction" }, document.createTextNode(L("auction") + L("colon") + seatName(s.auction.seat) + " "),
          DonneCards.element(s.auction.card, lang),
          document.createTextNode(" · " + L("best_bid") + " " + s.auction.best_bid + (s.auction.bidder !== null ? " (" + seatName(s.auction.bidder) + ")" : "")),
          typeof s.auction.deadline === "number" ? clockNode(null, s.auction.deadline) : null));
      }
      for (const o of (s.offers || [])) {
        box.append(el("p", { class: "offer", "data-offer": String(o.offer) },
          document.createTextNode(seatName(o.from) + " → " + seatName(o.to) + L("colon") + L("cards", { n: o.cards }) + ", " + L("price") + " " + o.price),
          typeof o.left === "number" ? clockNode("offer_clock", o.left) : null));
      }
      drawWindow(s, box);
      return;
    }
    drawWindow(s, box);
    const trick = s.trick || [];
    for (const play of trick.slice(-4)) {
      const row = el("div", { class: "play" }, el("span", { class: "by", text: seatName(play.seat) }));
      for (const c of (play.cards || [])) row.append(DonneCards.element(c, lang));
      if (!play.cards || !play.cards.length) row.append(el("span", { class: "passed", text: L("passed") }));
      box.append(row);
    }
    if (s.must) box.append(el("p", { class: "must", text: L("must", { rank: DonneCards.rank(s.must) }) }));
  }
  // clocks beside what they time: each node keeps the seconds it had when the state came
  function clockNode(label, left) {
    const node = el("span", { class: "clock small", role: "timer", "data-left": String(left), "data-label": label || "" });
    drawClock(node, left);
    return node;
  }
  function drawClock(node, left) {
    const label = node.dataset.label ? L(node.dataset.label) + " " : "";
    node.textContent = " " + label + L("seconds", { n: Math.ceil(left) });
    node.classList.toggle("low", left < 4);
  }
  function drawWindow(s, box) {
    if (!s.window || typeof s.window.left !== "number") return;
    const label = s.window.kind === "cut" ? "cut_window" : "trade_window";
    box.append(el("p", { id: "window", class: "window", "data-kind": s.window.kind }, clockNode(label, s.window.left)));
  }
  function myBank(s) {
    const seat = (s.you !== null && s.you !== undefined) ? s.seats[s.you] : null;
    return seat && typeof seat.bank === "number" ? seat.bank : 0;
  }
  function somethingWaitsForMe(s) {
    if (s.decision) return true;
    if (s.window) return true;
    return !!(s.can && (s.can.turn || (s.can.bid !== null && s.can.bid !== undefined) || (s.can.accept || []).length));
  }
  function legalPlays(s) { return (s.legal && s.legal.plays) || []; }
  function playable(s, code) {
    if (s.decision === "give") return true;
    if (s.decision !== "lead" && s.decision !== "follow") return false;
    return legalPlays(s).some((p) => p[0] === code[0]);
  }
  function choice(s) {
    const cards = [...selected];
    if (!cards.length) return null;
    if (s.decision === "give") return cards.length === ((s.legal && s.legal.give) || s.give) ? { cmd: "give", cards: cards } : null;
    if (s.decision !== "lead" && s.decision !== "follow") return null;
    const rank = cards[0][0];
    if (!cards.every((c) => c[0] === rank)) return null;
    return legalPlays(s).some((p) => p[0] === rank && p[1] === cards.length) ? { cmd: "play", cards: cards } : null;
  }
  function drawHand(s) {
    const box = $("hand");
    box.replaceChildren();
    // nobody holds a hand at Speculation: every card lies face down (S4); nor after the match
    box.hidden = s.game === "speculation" || (isOver(s) && !(s.hand || []).length);
    if (box.hidden) return;
    if (s.you === null || s.you === undefined) {
      box.append(el("p", { class: "empty", text: L("spectator_hand") }));
      return;
    }
    // not one's turn: the cards are drawn as they are, only a decision greys those it cannot use
    box.classList.toggle("waiting", !["lead", "follow", "give"].includes(s.decision));
    const hand = s.hand || [];
    hand.forEach((code, i) => {
      const ok = playable(s, code);
      const b = DonneCards.element(code, lang, "button");
      b.type = "button";
      b.disabled = !ok;
      b.setAttribute("aria-pressed", selected.has(code) ? "true" : "false");
      if (selected.has(code)) b.classList.add("selected");
      b.addEventListener("click", () => {
        if (selected.has(code)) selected.delete(code); else selected.add(code);
        drawHand(state); drawActions(state);
        const again = $("hand").querySelector('[data-card="' + code + '"]');
        if (again) again.focus();
      });
      b.addEventListener("keydown", (e) => {
        if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
          const all = [...$("hand").querySelectorAll("button:not([disabled])")];
          const at = all.indexOf(b);
          const next = all[(at + (e.key === "ArrowRight" ? 1 : all.length - 1)) % all.length];
          if (next) next.focus();
          e.preventDefault();
        }
      });
      box.append(b);
    });
  }
  function button(key, onclick, opts) {
    return el("button", Object.assign({ type: "button", "data-action": key, text: L(key), onclick: onclick }, opts || {}));
  }
  function drawActions(s) {
    const had = document.activeElement;
    const focus = had && $("actions").contains(had) ?
      (had.dataset.field ? '[data-field="' + had.dataset.field + '"]' :
        had.dataset.action ? '[data-action="' + had.dataset.action + '"]' + (had.dataset.offer ? '[data-offer="' + had.dataset.offer + '"]' : "") : null) : null;
    drawGameActions(s);
    const bank = myBank(s);
    if (s.status === "playing" && bank > 0 && somethingWaitsForMe(s)) {
      const more = button("extend", () => act("extend"), { class: "secondary" });
      more.textContent = L("extend") + " (" + L("seconds", { n: Math.round(bank) }) + ")";
      $("actions").append(more);
    }
    const again = focus && $("actions").querySelector(focus);
    if (again && !again.disabled) again.focus();  // the keyboard stays where it was
  }
  function drawGameActions(s) {
    const box = $("actions");
    box.replaceChildren();
    if (s.status === "over" || s.phase === "match_over" || s.over === true) {
      if (s.you !== null && s.you !== undefined) box.append(button("rematch", () => act("rematch")));
      box.append(button("lobby_back", leave));
      return;
    }
    if (s.game === "president") {
      const c = choice(s);
      if (s.decision === "lead" || s.decision === "follow") {
        box.append(button("play", () => c && act("play", { cards: c.cards }), { disabled: !c, "aria-keyshortcuts": "P" }));
        if (s.legal && s.legal.pass) box.append(button("pass", () => act("pass"), { "aria-keyshortcuts": "X" }));
      }
      if (s.decision === "give") box.append(button("give", () => c && act("give", { cards: c.cards }), { disabled: !c }));
      if (Array.isArray(s.cut) && s.cut.length) box.append(button("cut", () => act("cut"), { class: "urgent" }));
      return;
    }
    const can = s.can;
    if (!can) return;
    const chips = myChips(s);
    if (can.turn) box.append(button("turn", () => act("turn")));
    if (can.sell) box.append(button("sell", () => act("sell")));
    if (can.keep) box.append(button("keep", () => act("keep")));
    if (can.bid !== null && can.bid !== undefined) {
      // a bid from the least allowed (best bid + 1) to one's chips (S7); anything else cannot be sent
      const amount = numberField("bid_amount", can.bid, can.bid, chips, L("bid"));
      const go = button("bid", () => fieldsValid(amount) && act("bid", { amount: Number(amount.value) }));
      watchFields([amount], go, () => fieldsValid(amount));
      box.append(amount, go);
    }
    if (can.offer && (can.offer_to || []).length) {
      // for 1 to the seller's face-down cards, at a price of 1 to one's chips (S9)
      const to = el("select", { "data-field": "offer_to" });
      for (const seat of can.offer_to) to.append(el("option", { value: String(seat), text: seatName(seat) }));
      if (can.offer_to.map(String).includes(drafts.offer_to)) to.value = drafts.offer_to;
      const facedown = () => (s.seats[Number(to.value)] || {}).facedown || 1;
      const count = numberField("offer_cards", 1, 1, facedown(), L("offer_cards"));
      const price = numberField("offer_price", 1, 1, chips, L("price"));
      const go = button("offer", () => fieldsValid(count, price) &&
        act("offer", { to: Number(to.value), cards: Number(count.value), price: Number(price.value) }));
      to.addEventListener("change", () => { drafts.offer_to = to.value; count.max = String(facedown()); });
      watchFields([count, price], go, () => fieldsValid(count, price), to);
      box.append(el("span", { class: "what", text: L("offer_what") + L("colon").trimEnd() }),
        field(L("to"), to), field(L("offer_cards"), count), field(L("price"), price), go);
    }
    // each answer names the offer it answers: who, how many cards, at what price
    const offerOf = (id) => (s.offers || []).find((o) => o.offer === id);
    const about = (id, seat) => {
      const o = offerOf(id);
      return o ? " (" + seatName(o[seat]) + L("colon") + L("cards", { n: o.cards }) + ", " + L("price") + " " + o.price + ")" : "";
    };
    const answer = (key, id, seat, opts) => {
      const b = button(key, () => act(key, { offer: id }), Object.assign({ "data-offer": String(id) }, opts || {}));
      b.textContent = L(key) + about(id, seat);
      return b;
    };
    for (const id of (can.accept || [])) box.append(answer("accept", id, "from"));
    for (const id of (can.decline || [])) box.append(answer("decline", id, "from", { class: "secondary" }));
    for (const id of (can.withdraw || [])) box.append(answer("withdraw", id, "to", { class: "secondary" }));
  }
  // what a person typed in the action fields outlives the redraws that states cause
  const drafts = {};
  function myChips(s) {
    const seat = (s.you !== null && s.you !== undefined) ? s.seats[s.you] : null;
    return seat && typeof seat.chips === "number" ? seat.chips : 0;
  }
  function numberField(key, value, min, max, label) {
    const kept = Number(drafts[key]);
    const input = el("input", { type: "number", inputmode: "numeric", min: String(min), max: String(max), step: "1",
      value: String(drafts[key] !== undefined && kept >= min && kept <= max ? kept : value),
      "aria-label": label, class: "amount", "data-field": key });
    input.addEventListener("input", () => { drafts[key] = input.value; });
    return input;
  }
  function field(label, control) {
    return el("label", { class: "field" }, el("span", { text: label }), control);
  }
  function fieldsValid(...inputs) {
    return inputs.every((i) => {
      const n = Number(i.value);
      return i.value !== "" && Number.isInteger(n) && n >= Number(i.min) && n <= Number(i.max);
    });
  }
  // the button lights up only for a value the rules allow; Enter in a field presses it
  function watchFields(inputs, go, valid, other) {
    const check = () => { go.disabled = !valid(); };
    for (const i of inputs) {
      i.addEventListener("input", check);
      i.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); if (!go.disabled) go.click(); } });
    }
    if (other) other.addEventListener("change", check);
    check();
  }
  // one's own randomness for the fair deals (the seed command: a standing contribution, counted for the
  // window open now too); only for a seat, until the match ends
  function drawSeed(s) {
    const seated = s.you !== null && s.you !== undefined && !isOver(s);
    $("seed-form").hidden = !seated;
  }
  async function giveSeed(ev) {
    ev.preventDefault();
    const reply = await act("seed", { text: $("seed-text").value });
    if (reply.type !== "ok") return;
    $("seed-status").textContent = typeof reply.round === "number" || typeof reply.round === "string" ?
      L("seed_set_now", { n: reply.round }) : L("seed_set");
  }
  function drawPrompt(s) {
    let text = "";
    if (s.you === null || s.you === undefined) text = L("watching");
    else if (s.status === "waiting") text = L("waiting");
    else if (s.status === "over" || s.phase === "match_over") text = L("over");
    else if (s.decision === "lead") text = L("lead");
    else if (s.decision === "follow") text = L("follow");
    else if (s.decision === "give") text = L("give_now", { n: (s.legal && s.legal.give) || s.give });
    else if (s.decision === "turn" || s.decision === "auction") text = L("your_turn");
    else if (s.turn !== null && s.turn !== undefined) text = L("turn_of", { name: seatName(s.turn) });
    $("prompt").textContent = text;
  }
  function tick() {
    const s = state;
    const clock = $("clock");
    tickSmall();
    if (!s || typeof s.deadline !== "number") { clock.textContent = ""; return; }
    const left = Math.max(0, s.deadline - (performance.now() - stateAt) / 1000);
    clock.textContent = L("seconds", { n: Math.ceil(left) });
    clock.classList.toggle("low", left < 6);
  }
  function tickSmall() {
    const gone = (performance.now() - stateAt) / 1000;
    for (const node of document.querySelectorAll("#center [data-left]")) {
      drawClock(node, Math.max(0, Number(node.dataset.left) - gone));
    }
  }
  async function leave() {
    const reply = await act("leave");
    if (reply.type === "ok" || reply.code === "not_in_room") showLobby();
  }

  // -- wiring ---------------------------------------------------------------------------------
  document.addEventListener("DOMContentLoaded", async () => {
    await translatePage();
    $("lang").addEventListener("change", async () => {
      lang = $("lang").value;
      localStorage.setItem("donne-lang", lang);
      await translatePage();
      if (me) await send("lang", { lang: lang });
      if (me && state) await send("state");
    });
    if (location.protocol !== "https:" && !/^(localhost|127\.|\[::1\])/.test(location.hostname)) {
      // plain HTTP from afar: the server refuses passwords (docs/web.md); guests only
      $("login-password").closest("label").hidden = true;
      $("login-password").disabled = true;
      for (const node of document.querySelectorAll(".account-only")) node.hidden = true;
    }
    $("login-form").addEventListener("submit", login);
    $("register-button").addEventListener("click", register);
    $("tell-form").addEventListener("submit", tell);
    $("seed-form").addEventListener("submit", giveSeed);
    $("reply-button").addEventListener("click", reply);
    $("create-form").addEventListener("submit", create);
    $("create-kind").addEventListener("change", roundsLabel);
    $("seek-button").addEventListener("click", seek);
    $("leave-button").addEventListener("click", leave);
    $("chat-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const text = $("chat-input").value.trim();
      if (!text) return;
      $("chat-input").value = "";
      await act("say", { text: text });
    });
    document.addEventListener("keydown", (e) => {
      if (!state || e.target.closest("input, select, textarea")) return;
      const key = e.key.toLowerCase();
      const target = key === "p" ? "play" : key === "x" ? "pass" : null;
      const b = target && $("actions").querySelector('[data-action="' + target + '"]:not([disabled])');
      if (b) { b.click(); e.preventDefault(); }
    });
    setInterval(tick, 500);
    connect();
  });
})();

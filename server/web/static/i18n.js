// The play page's labels: fetched from the server (/api/i18n/<lang>), which builds them from its
// gettext catalogs (server/web/labels.py, i18n/*/LC_MESSAGES/donne.po). No text lives here.
"use strict";
window.DonneLabels = {
  langs: ["fr", "es", "en"],
  table: {},
  async load(lang) {
    if (this.table[lang]) return this.table[lang];
    const reply = await fetch("/api/i18n/" + encodeURIComponent(lang), { credentials: "same-origin" });
    this.table[lang] = reply.ok ? await reply.json() : {};
    return this.table[lang];
  },
};

"""gettext catalogs of donne (``donne.pot`` and ``<lang>/LC_MESSAGES/donne.po``); see docs/i18n.md."""

"""The text user interface: commands people type, and what they read.

* :mod:`server.text.commands` — :func:`parse_line` (typed line → protocol command);
* :mod:`server.text.render` — :func:`render_state`, :func:`render_event`,
  :func:`render_reply`, alerts and countdowns;
* :mod:`server.text.help` — :func:`help_text` in context;
* :mod:`server.terminal` — :class:`TermStyle` and width-aware string helpers.
"""

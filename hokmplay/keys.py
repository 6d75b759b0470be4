"""The keys of the table (``app.PlayApp``), said in two places: ``hokm play --help`` and the
table's own list (F1), so that a player need not leave the match to learn them (the footer
names only a few: a walkthrough's finding)."""

from __future__ import annotations

KEYS_HELP = """\
keys at the table:
  ←/→ and Enter    choose and make your choice (a card, the trump, keep or
                   discard)
  QH, 10d, S, K    type a card, a suit letter (the Hakem's trump) or K / D
                   (the talon's top card) and Enter; Backspace and Esc edit
                   what was typed
  Space            the talon game: mark or unmark a card to lay aside (Enter
                   lays them)
  ?                a hint at your turn (three of your decisions from the
                   first; once used up, ? again starts three more)
  +                more time, once a turn, while the room's turn limit counts
                   down
  L                leave your seat to a computer player (a second L; Esc
                   stays)
  R                at the end of a match: play again at this table (or join
                   the rematch)
  F1               this list at the table (F1 or Esc goes back to the table)
  Ctrl+C, Ctrl+Q   quit (the seat stays yours: the --token line printed
                   takes it back)"""
"""The keys of the table (QA: ``--help`` named only the arrows, Enter and typing: ``?``,
``+``, ``L``, ``R`` and Space were on no list)."""

"""A hand is drawn in the order in force."""

from __future__ import annotations

from server.presenters.text.draw import sort_hand


def test_sort_hand_follows_the_order_in_force():
    hand = ["2s", "3c", "Kd", "Th", "3d"]
    assert sort_hand(hand) == ["3c", "3d", "Th", "Kd", "2s"]
    assert sort_hand(hand, "reversed") == ["2s", "Kd", "Th", "3c", "3d"]

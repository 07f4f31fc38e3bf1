"""server/people/players.py: a player's key follows its name."""

from server.people.players import Player
from server.storage.names import name_key


def test_a_players_key_is_its_names_key_and_follows_a_new_name():
    player = Player(name="Élodie", guest=True)
    assert player.key == name_key("Élodie") == player.key
    player.name = "Bob"  # logged in to an account of another spelling
    assert player.key == name_key("Bob")

"""The community's records: replays of stored rounds, step by step, as the table saw them."""

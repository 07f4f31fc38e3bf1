"""Running the server: metrics, limits at the edge, log hygiene, the garbage collector."""

"""Front doors: telnet (and raw TCP) and SSH turn bytes into lines for sessions."""

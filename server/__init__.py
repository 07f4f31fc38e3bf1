"""donne's server: transports (telnet, SSH) → sessions → lobby and rooms."""

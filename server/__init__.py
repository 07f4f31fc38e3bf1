"""donne's server: transports (telnet, SSH) → sessions → lobby and rooms."""

import warnings

# asyncssh still names cryptography's DSA classes in its type hints, so importing it warns five
# times ("DSA is deprecated") although donne never offers or accepts DSA keys (ssh-dss is absent
# from every algorithm list, server/transports/ssh.py). Only those warnings, only from asyncssh.
warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")

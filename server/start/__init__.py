"""Start-up and the command line: ``donne serve`` and the operator's other commands."""

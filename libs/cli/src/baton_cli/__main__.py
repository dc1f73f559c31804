"""`python -m baton_cli` runs the `baton` command."""

from baton_cli.main import app

app()

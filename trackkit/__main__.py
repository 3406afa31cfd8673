"""``python -m trackkit``."""

from trackkit.cli.entry import main

main()

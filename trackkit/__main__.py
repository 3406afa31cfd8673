"""``python -m trackkit``."""

from trackkit.entry import main

main()

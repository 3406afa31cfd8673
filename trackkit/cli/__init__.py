"""The ``trackkit`` command line (the only layer that exits the process)."""

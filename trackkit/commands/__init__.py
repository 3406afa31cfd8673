"""One small module per command; :mod:`trackkit.cli` registers them."""

"""One small module per command; :mod:`trackkit.cli.app` registers them."""

"""The shipped tile library and rulesets, as package data.

Installed, this folder is the package ``trackkit.tile_library``; trackkit reads its files with
:mod:`importlib.resources` (``trackkit.tiles.library.library_files``). ``sources/`` holds the fact
files the tile files are built from (``make library``); it is not installed.
"""

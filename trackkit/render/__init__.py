"""Printable drawings of stages and tiles: SVG maps, true-scale print pages, tile sheets.

The only layer that imports svgwrite (and, for PNG/PDF, CairoSVG); nothing in the core
imports it, and commands import it only when they draw. Everything is drawn from the
geometry the stage graph is built from (:mod:`trackkit.geometry`).

Modules
-------
theme
    Colours and font in one dict with readable keys; user overrides are checked.
draw
    One tile: hex, spaces, features (symbols placed by ``<use>``), label, tokens.
svg
    The map of a stage with title block and legend (:func:`svg.render_map`).
pages
    True-scale print pages, assembly overview (:func:`pages.print_pages`).
sheet
    Catalogue sheets of tile faces (:func:`sheet.tile_sheet`).
convert, output
    PNG and multi-page PDF through CairoSVG; atomic writing of every output.
"""

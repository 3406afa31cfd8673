"""Printable drawings of stages and tiles: SVG maps, true-scale print pages, tile sheets.

The only layer that imports svgwrite (and, for PNG/PDF, CairoSVG and pypdf); nothing in the core
imports it, and commands import it only when they draw. Everything is drawn from the
geometry the stage graph is built from (:mod:`trackkit.geometry`).

Modules
-------
theme
    Colours and font in one dict with readable keys; user overrides are checked.
draw
    One tile: hex, spaces, features (symbols placed by ``<use>``), label, tokens.
gt
    A Rallyman: GT piece: every road of its face lane space by lane space, limits, dotted
    lines, the grid and line, the race direction, crossings, bridges, the pit board; a
    space cut by a skew edge drawn whole over both tiles.
svg
    The map of a stage with title block and legend (:func:`svg.render_map`).
pages
    True-scale print pages that hold road, assembly overview with the tile pull list
    (:func:`pages.print_pages`).
heat
    Losses of control (and a GT race's overtakes) per space from a simulation of the stage
    (:func:`heat.read_heat`).
sheet
    Catalogue sheets of tile faces (:func:`sheet.tile_sheet`).
convert, output
    PNG and PDF through CairoSVG (each page its own SVG), pages joined with pypdf;
    atomic writing of every output.
"""

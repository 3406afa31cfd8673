"""Printable drawings of stages and tiles: SVG maps, true-scale print pages, tile sheets.

The only layer that imports svgwrite (and, for PNG/PDF, CairoSVG and pypdf); nothing in the core
imports it, and commands import it only when they draw. Everything is drawn from the
geometry the stage graph is built from (:mod:`trackkit.road.geometry`).

Modules
-------
theme
    Colours and font in one dict with readable keys; user overrides are checked.
draw
    What every drawing is made of: ids, text, symbols placed by ``<use>``, the tile's
    frame, labels, and :class:`~draw.TileArt` (what one tile shows).
tile
    One drawer of a tile for both series (:func:`tile.draw_tile`): hex, spaces, marks,
    label, tokens; the series' :class:`~tile.Look` says what differs.
marks
    What is printed on a road, by kind (limits, kerbs, lines, jumps, fords, climb arrows,
    shortcuts, dotted lines, grid slots, the race direction, the pit board), each drawn
    one way for both series.
dirt
    Where a Rallyman: DIRT road's spaces and marks go (its centre line and units).
gt
    Where a Rallyman: GT piece's spaces and marks go (every road of its face, lane space
    by lane space; a space cut by a skew edge drawn whole over both tiles), and the
    overtakes of a heat map.
tokens
    Tokens where they lie on a tile, or in a row beside the road.
svg
    The map of a stage with title block and legend (:func:`svg.render_map`).
paging
    How a true-scale print is cut into pages: the windows that hold road, their numbers
    and names (:func:`paging.plan_pages`).
pages
    True-scale print pages drawn, and the assembly overview with the tile pull list
    (:func:`pages.print_pages`).
arts
    What each tile of a map shows, read from the layout and the graph (:func:`arts.stage_arts`).
legend
    The legend of a map and the heat map's colour scale, one for both series.
heat
    Losses of control (and a GT race's overtakes) per space from a simulation of the stage
    (:func:`heat.read_heat`).
sheet
    Catalogue sheets of tile faces (:func:`sheet.tile_sheet`).
convert, output
    PNG and PDF through CairoSVG (each page its own SVG), pages joined with pypdf;
    atomic writing of every output.
"""

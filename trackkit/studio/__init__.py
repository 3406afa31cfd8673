"""``trackkit studio``: design a stage in the browser, with the rules checking every move.

A local web page served by trackkit (Starlette, run by uvicorn) for both series. The
server holds the stage as the pydantic model; the page sends edits, never file contents
or paths, and gets back the map (the renderer's own SVG), the findings and the summary.

Modules
-------
engine
    The one adapter to trackkit's core: read, check, draw, race, print, write.
edits
    The edits the page may send (place, rotate, flip, move, delete, tokens, set, fix).
session
    The stage being edited: undo and redo, saving, the file changing on disk.
app
    The web application: the page, its API, the events, the security checks.
server
    Starting it: the address and its token, the browser, file watching.
"""

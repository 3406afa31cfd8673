"""The one catalogue of finding codes. Tests and scripts rely on codes, never on wording.

Codes are grouped: S structure, R rules, I inventory, H hillclimb, T tile data,
P playability (simulation). A code, once published, keeps its meaning.

Examples
--------
>>> CATALOGUE["S105"].name
'tiles-overlap'
>>> finding("S105", "two tiles on hex [0, 0]").severity.value
'error'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trackkit.models.findings import Finding, FixEdit, Location, Severity
from trackkit.models.stage import MAX_TILE_TOKENS

__all__ = ["CATALOGUE", "Code", "finding"]

E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class Code:
    """One entry of the catalogue."""

    code: str
    name: str
    severity: Severity
    fix: str
    editor_fix: str | None = None
    """The fix for a finding about an editor file (Rekee, ``.rgt``), when ``fix`` asks for
    what such a file cannot hold (``kind``, ``road``): ``--kind``, or a native file."""
    follows: bool = False
    """The finding follows from others (its fix says "above"): it is listed after the
    findings of its severity."""


_CODES = [
    # structure
    Code("S100", "empty-stage", E, "List the stage's tiles under 'tiles', start tile first."),
    Code(
        "S101",
        "unknown-tile",
        E,
        "Use a face id from the library ('trackkit tiles' lists them), e.g. 217a.",
    ),
    Code(
        "S102",
        "tiles-do-not-meet",
        E,
        "Place the tile on the previous tile's road end (drop 'at'/'dir' to snap it), or "
        "turn it so its road meets the previous road.",
    ),
    Code(
        "S103",
        "impossible-orientation",
        E,
        "Use 'turn', 'climb' or 'enter' values the face allows ('trackkit tiles show ID').",
    ),
    Code(
        "S104",
        "lane-count-mismatch",
        E,
        "Roads must meet with the same number of lanes (BOARD-1): pick a matching tile.",
    ),
    Code(
        "S105",
        "tiles-overlap",
        E,
        "Two tiles cannot share a hex: change the route or give one tile another 'at'.",
    ),
    Code("S106", "no-start", E, "Begin the stage with a start tile (202a/b, 301a/b)."),
    Code("S107", "no-finish", E, "End the stage with a finish tile (203a/b, 302a/b)."),
    Code("S108", "several-starts", E, "Keep one start tile, at the beginning."),
    Code("S109", "several-finishes", E, "Keep one finish tile, at the end."),
    Code("S110", "start-misplaced", E, "Move the start tile to the beginning of the stage."),
    Code("S111", "finish-misplaced", E, "Move the finish tile to the end of the stage."),
    Code(
        "S113",
        "road-leads-nowhere",
        E,
        "Connect the road end to the next tile, or end the stage with a finish tile.",
    ),
    Code(
        "S114",
        "no-path",
        E,
        "Fix the structural errors above: no chain of legal steps joins start and finish.",
        follows=True,
    ),
    Code(
        "S115",
        "road-into-tile-side",
        W,
        "A road end faces a tile that has no road there: leave a gap or turn that tile.",
    ),
    Code(
        "S116",
        "scenery-not-placed",
        W,
        "Give tiles beside the road an explicit 'at: [q, r]' and 'dir'.",
    ),
    Code(
        "S117",
        "road-breaks",
        E,
        "Put the next tile of the road on the hex this road end faces, turn it so that its "
        "road faces back, or turn this tile so that its road goes on.",
    ),
    Code(
        "S118",
        "tiles-not-driven",
        W,
        "These tiles lie on the map but the road does not run through them: mend the break "
        "reported above (S117), or remove them.",
        follows=True,
    ),
    Code(
        "S120",
        "series-mixed",
        E,
        "Build the stage from one series ('trackkit tiles --series dirt' or '--series gt'), "
        "or say 'ruleset: dirt' or 'ruleset: gt' in the file to drive the other series' "
        "tiles by that ruleset's rules.",
    ),
    Code(
        "S121",
        "series-mixed-allowed",
        N,
        "The file's 'ruleset' allows tiles of the other series: they are checked and drawn "
        "as they are, and driven by the ruleset's rules.",
    ),
    Code(
        "S122",
        "kind-not-for-series",
        E,
        "A Rallyman: DIRT stage is 'kind: rally' or 'hillclimb', a Rallyman: GT track "
        "'kind: circuit' or 'point-to-point': write one of its series' kinds (or leave "
        "'kind' out).",
    ),
    Code(
        "S123",
        "circuit-not-closed",
        E,
        "A circuit is a closed loop: place the tiles so that the last tile's exit meets the "
        "first tile's entry, or write 'kind: point-to-point'.",
        editor_fix="A circuit is a closed loop: place the tiles so that the last tile's exit "
        "meets the first tile's entry, or give --kind point-to-point (an editor file holds no "
        "kind).",
    ),
    Code(
        "S124",
        "no-start-finish-line",
        E,
        "Put a start/finish tile on the track (102a/b, 131a/b, 139a/b, 140b, 143b, 144b): "
        "a circuit needs one, a point-to-point track one at its start and one at its finish.",
    ),
    Code(
        "S125",
        "several-start-finish-lines",
        E,
        "Keep one start/finish line on a circuit (two on a point-to-point track): replace "
        "the others with plain straights.",
    ),
    Code(
        "S126",
        "grid-driven-backwards",
        E,
        "Turn the start/finish tile round (or drive the track the other way): its grid "
        "marks face the way the race runs.",
    ),
    Code(
        "S127",
        "grid-too-small",
        E,
        "Race fewer players, or use a start/finish tile with more grid slots (102a and "
        "139a hold 6 and 12).",
    ),
    Code(
        "S128",
        "skew-edges-do-not-match",
        E,
        "Slanted (skew) road ends meet only their own hand, skewL with skewL and skewR with "
        "skewR, and straight ends only straight ones: pick a tile whose edge matches.",
    ),
    Code(
        "S129",
        "junction-road-not-chosen",
        W,
        "Write 'road: A' (or B, C) on the junction tile to say which of its roads the track "
        "takes ('trackkit tiles show ID' lists them).",
        editor_fix="An editor file cannot say which road of a junction the track takes: to "
        "take another, convert the file to a native stage ('trackkit convert FILE -o "
        "STAGE.yaml') and write the road wanted on the junction tile there ('road: B', a "
        "road the message names).",
    ),
    Code(
        "S130",
        "road-not-on-face",
        E,
        "Name a road of the face that meets the previous tile ('trackkit tiles show ID' "
        "lists the roads and their edges), or leave 'road' out.",
    ),
    Code(
        "S131",
        "laps-too-few",
        E,
        "A race is at least one lap: write 'laps: 1' or more (left out: the ruleset's default, 3).",
    ),
    Code(
        "S132",
        "laps-not-used",
        W,
        "Only a circuit is raced over laps: remove 'laps', or make the track a circuit.",
    ),
    Code(
        "S133",
        "pit-not-beside-road",
        E,
        "Place the pit tile (101) with 'at' and 'dir' next to a tile of the track, beside "
        "its road (not across a road end).",
    ),
    Code(
        "S134",
        "kind-inferred-point-to-point",
        N,
        "Write 'kind: point-to-point' in the stage file (or 'kind: circuit' to check it as a "
        "circuit), or give --kind.",
        editor_fix="Give --kind point-to-point to say so, or --kind circuit to check it as a "
        "circuit (an editor file holds no kind).",
    ),
    Code(
        "S135",
        "road-off-the-track",
        E,
        "A road tile on the map is part of the track: put these tiles on the road the track "
        "drives, or remove them from the map.",
    ),
    Code(
        "S136",
        "unused-road-open",
        N,
        "A road of this tile that the track does not drive ends in the open here: put a tile "
        "there whose road meets it, or use a face without that road.",
    ),
    Code(
        "S140",
        "turn-assumed",
        N,
        "Say which way a bend goes ('turn: left' or 'turn: right', or 'enter: EDGE'): "
        "without it the tile is laid the way the note says.",
    ),
    # rules
    Code(
        "R201",
        "unknown-token",
        E,
        "Use a token trackkit knows: climb (-1/+1), oxygen (1..3), cloud, mud (-1), or the "
        "Copilot track tokens water, jump (1..6), chicane and chicane-limit (1..6).",
    ),
    Code(
        "R202", "token-not-allowed", E, "Put the token on a tile where it can go (see the message)."
    ),
    Code(
        "R203",
        "jump-without-landing",
        W,
        "Leave at least two rows after a jump, or the car lands beyond the stage end.",
    ),
    Code(
        "R204",
        "unsupported-token",
        W,
        "This token is read but not simulated by trackkit yet; the stage is checked without it.",
    ),
    Code(
        "R205",
        "ruleset-not-supported",
        E,
        "Write the ruleset of the stage's tiles ('dirt' or 'gt'), or leave 'ruleset' out: "
        "it is then the series of the tiles.",
    ),
    Code(
        "R206",
        "corner-closed-by-mud",
        E,
        "Mud tokens lowered a corner limit to 0 (CORNER-1): remove a mud token.",
    ),
    Code(
        "R207",
        "track-token-off-road",
        E,
        "Move the token's centre onto a row of the road (in Rekee, drag it onto the road; in a "
        "stage file, change its 'at': [q, r] in tile widths from the tile's centre, in the "
        "tile's own frame), or remove it.",
    ),
    Code(
        "R208",
        "track-token-cannot-go-there",
        E,
        "Move the token to a row of a straight or a slide where nothing else is (see the "
        "message), or remove it.",
    ),
    Code(
        "R209",
        "chicane-without-limit",
        W,
        "Put a chicane-limit token on the row next to the chicane token (that row becomes the "
        "chicane space), or remove the chicane token: alone it changes nothing.",
    ),
    Code(
        "R210",
        "too-many-tokens",
        E,
        f"Remove tokens from the tile: a tile holds at most {MAX_TILE_TOKENS} (only the first "
        f"{MAX_TILE_TOKENS} are played and drawn).",
    ),
    # inventory
    Code(
        "I301",
        "box-not-owned",
        E,
        "Add the tile's box to 'boxes', or replace the tile with one from your boxes.",
    ),
    Code(
        "I302",
        "not-enough-copies",
        E,
        "Both faces of a piece are one piece: use fewer copies or add another box.",
    ),
    Code("I303", "extra-boxes-needed", N, "Without 'boxes', the summary lists what you need."),
    Code(
        "I304",
        "token-box-not-owned",
        E,
        "Add the tokens' box to 'boxes' (Copilot track tokens: dirt-copilot; climb, oxygen and "
        "cloud tokens: dirt-climb), or remove the tokens.",
    ),
    Code(
        "I305",
        "unknown-box",
        E,
        "Name each box as the library does ('trackkit tiles' lists each face's box, e.g. "
        "dirt-core, gt-core).",
    ),
    # hillclimb
    Code(
        "H401",
        "hillclimb-without-climb",
        E,
        "Add a climb tile (325, 326, 418, 419) or a climb token (HILLCLIMB-1).",
    ),
    Code(
        "H402",
        "hillclimb-never-ascends",
        W,
        "A hillclimb usually goes uphill: drive climb tiles 'climb: up' or use -1 tokens.",
    ),
    Code("H403", "climb-in-rally", N, "Climb lines also apply in a rally (CLIMB-1..5)."),
    Code(
        "H404",
        "kind-inferred-hillclimb",
        N,
        "Write 'kind: hillclimb' (or 'kind: rally') in the stage file, or give --kind.",
        editor_fix="Give --kind hillclimb to say so, or --kind rally to check it as a rally "
        "(an editor file holds no kind).",
    ),
    # playability (validate --simulate)
    Code(
        "P601",
        "drivers-cannot-finish",
        E,
        "Bots could not finish within the turn cap: look at where they got stuck.",
    ),
    Code(
        "P602",
        "blocking-spot",
        W,
        "Cars are blocked here again and again: widen the road or ease the corner before.",
    ),
    Code(
        "P603",
        "dangerous-tile",
        W,
        "One tile causes far more losses of control than the rest: ease it or warn players.",
    ),
    Code(
        "P604",
        "start-position-decides",
        W,
        "One start position wins far too often: lengthen the stage before the first corner.",
    ),
    Code(
        "P605",
        "cars-stuck",
        W,
        "Mud or damage left cars no legal way on: put fewer mud tokens on that tile (each "
        "lowers its corner limits by 1), or use a corner with higher limits there.",
    ),
    Code(
        "P606",
        "grid-slot-decides",
        W,
        "One grid slot wins far too often: put a longer straight or a wider first corner "
        "after the start/finish line, so that the field can spread before it.",
    ),
    Code(
        "P607",
        "overtakes",
        N,
        "Where the cars get past each other: straights of three lanes and wide corners "
        "there; a narrow or tight stretch has fewer.",
    ),
    Code(
        "P608",
        "few-overtakes",
        W,
        "The cars keep their places: add a straight before a tight corner (a braking zone) "
        "or a wider (3-4 lane) stretch.",
    ),
    Code(
        "P609",
        "corner-loses-control",
        N,
        "The corner where cars lose control most: a straight before it lets them brake, a "
        "higher limit or no warning triangle eases it.",
    ),
    Code(
        "P610",
        "decided-on-lap-1",
        W,
        "The lap-1 leader nearly always wins: race more laps, or give the circuit places to "
        "overtake (P607).",
    ),
    # tile data
    Code("T501", "space-unreachable", E, "Every space must lie on a path from entry to exit."),
    Code("T502", "limit-out-of-range", E, "Corner and shortcut limits are gears 1..6."),
    Code("T503", "inner-not-below-outer", E, "The inner lane's limit must be below the outer."),
    Code("T504", "climb-line-missing", E, "A climb face has arrows on every line between rows."),
    Code(
        "T505",
        "face-data-uncertain",
        N,
        "How this face's roads are cut into spaces was read from its picture with low "
        "confidence: compare the track with the printed tile, and trust its figures less.",
    ),
]

CATALOGUE: dict[str, Code] = {c.code: c for c in _CODES}


def finding(
    code: str,
    message: str,
    location: Location | None = None,
    *,
    fix: str | None = None,
    edits: Sequence[FixEdit] = (),
) -> Finding:
    """A finding with the catalogue's severity for ``code``, and its fix.

    ``fix`` replaces the catalogue's general fix with one made for this finding (a tile id
    that was probably meant, a rotation that makes two roads meet). ``edits`` are its
    mechanical fixes; a ``fix`` that is a :class:`~trackkit.models.findings.Fix` brings
    its own too.
    """
    entry = CATALOGUE[code]
    return Finding(
        code=code,
        severity=entry.severity,
        message=message,
        location=location or Location(),
        fix=str(fix or entry.fix),
        edits=[*edits, *getattr(fix, "edits", ())],
    )

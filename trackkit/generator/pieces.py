"""What the named boxes hold: the ways to lay each face, the pieces and their copies.

Both faces of a piece are one piece (I302), and a box named twice counts twice, exactly as
:func:`trackkit.checks.inventory.check_inventory` counts them. Each face becomes the
ways a stage file can lay it (a bend turned left or right, a climb face driven uphill);
every way is laid out once with :func:`trackkit.stage.assemble.lay_out` to keep only those the
placement accepts and to learn its road length.

:func:`check_dirt_request` is where an impossible DIRT request stops (a :class:`GenerateError`
naming the option and what would work), before any search.

Examples
--------
>>> from trackkit.generator.request import Request
>>> request, pal = check_dirt_request(Request(boxes=("dirt-core",), tiles=12))
>>> len(pal.starts), len(pal.finishes), pal.max_tiles
(2, 2, 31)
>>> check_dirt_request(Request(boxes=("dirt-core",), par=300))[0].tiles  # about 24 s a tile
12
>>> sorted({w.key for w in pal.middles if w.face.number == 217})
['217a left', '217a right', '217b left', '217b right']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Literal

from trackkit.formats.suggest import unknown_box
from trackkit.generator.request import GenerateError, Request
from trackkit.generator.score import SECONDS_PER_TILE, face_risk
from trackkit.models.stage import Kind, Stage, StageTile, TileToken
from trackkit.models.tile import FaceKind, RoadShape, TileFace
from trackkit.stage.assemble import Series, lay_out
from trackkit.tiles.library import TileLibrary, default_library

__all__ = [
    "Palette",
    "Piece",
    "Way",
    "box_list",
    "check_boxes",
    "check_dirt_request",
    "palette",
    "series_boxes",
]

#: A cardboard piece: (box, catalogue number).
Piece = tuple[str, int]

#: Road shapes whose way through is named by the way it turns (``turn: left|right``).
_TURNING = (RoadShape.BEND, RoadShape.HAIRPIN, RoadShape.KINK, RoadShape.DOUBLE_HAIRPIN)


@dataclass(frozen=True, slots=True, eq=False)
class Way:
    """One way to lay a face: the face and the orientation its stage-file line gives it."""

    face: TileFace
    turn: Literal["left", "right"] | None = None
    climb: Literal["up", "down"] | None = None
    length_mm: float = 0.0
    """Length of its road along the centre line as laid out (``Layout.road_length``)."""
    risk: float = 0.0
    """Its share of the difficulty measure (:func:`trackkit.generator.score.face_risk`)."""
    enter: int | None = None
    """GT: the ``enter`` edge the stage-file line names (None: ``turn`` or the default)."""
    road: str | None = None
    """GT: the ``road`` the stage-file line names (None: the road the placement takes)."""
    drives: tuple[str, int] | None = None
    """GT: the road driven and its local entry edge, whatever the line names."""
    bend: int = 0
    """GT: how far the heading turns across the tile, in 60 degree steps (positive
    toward the next of :data:`trackkit.road.hexgrid.DIRECTIONS`; 0 on a straight). Round a
    circuit that does not cross itself they add up to 6 or -6."""
    again: bool = False
    """GT: the piece driven a second time, on another of its roads (a crossing): no new
    piece, and the search puts it where the first visit lies."""
    key: str = field(init=False, compare=False, repr=False)
    """``217a left``, ``418a up``, ``205a``, ``141b enter 2``, ``141b road B from 5
    again``: the face and its orientation (the search asks for it very often)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self._key())

    def _key(self) -> str:
        if self.again and self.drives is not None:
            return f"{self.face.id} road {self.drives[0]} from {self.drives[1]} again"
        how: list[str] = [self.turn or self.climb or ""]
        if self.enter is not None:
            how.append(f"enter {self.enter}")
        if self.road is not None:
            how.append(f"road {self.road}")
        words = " ".join(h for h in how if h)
        return f"{self.face.id} {words}" if words else self.face.id

    @property
    def piece(self) -> Piece:
        """The piece this face is printed on."""
        return (self.face.box, self.face.number)

    @property
    def line(self) -> str | None:
        """``start`` or ``finish`` for a face with that line (``start`` for a GT
        start/finish line), else None."""
        road = self.face.road
        if road is None and self.face.layout is not None:
            return "start" if self.face.layout.start_finish else None
        return road.start_finish.kind if road and road.start_finish else None

    @property
    def is_climb(self) -> bool:
        """Whether the face carries climb arrows (CLIMB-1)."""
        road = self.face.road
        return road is not None and road.climb is not None

    def tile(self, tokens: tuple[TileToken, ...] = ()) -> StageTile:
        """The stage-file line of this way (auto-snapped onto the tile before)."""
        return StageTile(
            tile=self.face.id,
            turn=self.turn,
            climb=self.climb,
            enter=self.enter,
            road=self.road,
            tokens=list(tokens),
        )

    def probe(self) -> StageTile:
        """The line that lays this way on its own, placed by hand (``at``/``dir``): its
        entry and road named outright for a GT piece driven again."""
        if self.again and self.drives is not None:
            return StageTile(tile=self.face.id, enter=self.drives[1], road=self.drives[0])
        return self.tile()


@dataclass(frozen=True, slots=True)
class Palette:
    """The faces a request may use, by role, and the copies of each piece."""

    boxes: tuple[str, ...]
    starts: tuple[Way, ...]
    finishes: tuple[Way, ...]
    middles: tuple[Way, ...]
    """Ways of every road face with no start or finish line (climb faces in a hillclimb)."""
    fillers: tuple[TileFace, ...]
    """Scenery faces (fillers, BOARD-3) of the boxes."""
    copies: dict[Piece, int] = field(default_factory=dict)
    """Pieces owned: copies per box times the times the box is named."""
    set_aside: int = 0
    """Climb pieces a rally leaves in the box (they are The Climb's hillclimb tiles)."""

    @property
    def middle_pieces(self) -> int:
        """Pieces that can be laid between the start and the finish."""
        return sum(self.copies[p] for p in {w.piece for w in self.middles})

    @property
    def climb_pieces(self) -> int:
        """Pieces with climb faces."""
        return sum(self.copies[p] for p in {w.piece for w in self.middles if w.is_climb})

    @property
    def filler_pieces(self) -> int:
        """Scenery pieces owned."""
        return sum(self.copies[p] for p in {(f.box, f.number) for f in self.fillers})

    @property
    def max_tiles(self) -> int:
        """The longest stage the pieces make: a start, every other piece, a finish."""
        return 2 + self.middle_pieces

    def surfaces(self) -> dict[str, int]:
        """Per surface, how many owned pieces have a road face of that surface."""
        out: dict[str, set[Piece]] = {}
        for way in (*self.starts, *self.finishes, *self.middles):
            out.setdefault(way.face.surface.value, set()).add(way.piece)
        return {s: sum(self.copies[p] for p in ps) for s, ps in sorted(out.items())}


#: Per series: the box a message names as an example, and what it says of a box of the
#: other series (``{box}``; ``{known}``: this series' boxes).
_BOXES_SAID = {
    "dirt": (
        "dirt-core",
        "{box} is a Rallyman: GT box: add --ruleset gt for a GT track (from GT boxes only), "
        "or name DIRT boxes: {known}",
    ),
    "gt": (
        "gt-core",
        "{box} is a Rallyman: DIRT box, and --ruleset gt builds GT tracks from the GT boxes "
        "({known}): name those, or leave --ruleset gt out for a DIRT stage",
    ),
}


def series_boxes(library: TileLibrary, series: Series) -> list[str]:
    """The boxes of ``library`` holding faces of ``series`` (``dirt`` or ``gt``).

    >>> series_boxes(default_library(), "gt")[:2]
    ['gt-adrenaline', 'gt-championship']
    """
    return [b for b in library.boxes() if any(f.series == series for f in library.in_box(b))]


def check_boxes(boxes: tuple[str, ...], library: TileLibrary, series: Series) -> None:
    """Refuse an empty list of boxes, an unknown box or a box of the other series.

    Raises
    ------
    GenerateError
        For ``--boxes``, naming the boxes of ``series``.

    Examples
    --------
    >>> check_boxes(("gt-core",), default_library(), "dirt")
    Traceback (most recent call last):
    ...
    trackkit.generator.request.GenerateError: --boxes: gt-core is a Rallyman: GT box: add \
--ruleset gt for a GT track (from GT boxes only), or name DIRT boxes: dirt-climb, \
dirt-copilot, dirt-core, dirt-monte-carlo
    """
    mine = series_boxes(library, series)
    known = ", ".join(mine)
    example, other = _BOXES_SAID[series]
    if not boxes:
        raise GenerateError("--boxes", f"name the boxes you own, e.g. --boxes {example} ({known})")
    for box in boxes:
        unknown = unknown_box(box, library)
        if unknown is not None:
            raise GenerateError("--boxes", f"{unknown} (the {series.upper()} boxes: {known})")
        if box not in mine:
            raise GenerateError("--boxes", other.format(box=box, known=known))


def _ways(face: TileFace, kind: Kind) -> list[Way]:
    """The orientations worth trying for a face (checked by laying them out)."""
    road = face.road
    if road is None:
        return []
    if road.start_finish is not None:
        return [Way(face)]
    if road.climb is not None:
        # a hillclimb climbs: every climb face is driven uphill (HILLCLIMB-1, H402)
        return [Way(face, climb="up")] if kind is Kind.HILLCLIMB else []
    if road.shape in _TURNING:
        return [Way(face, turn="left"), Way(face, turn="right")]
    return [Way(face)]


def _laid(ways: list[Way], start: Way | None, library: TileLibrary) -> list[Way]:
    """The ways the placement accepts (no finding), each with its road length."""
    out = []
    for way in ways:
        tiles = [way.tile()] if start is None or way is start else [start.tile(), way.tile()]
        layout = lay_out(Stage(format="trackkit-stage/1", tiles=tiles), library)
        if layout.findings or not layout.chain or layout.chain[-1].road is None:
            continue
        length = round(layout.road_length(layout.chain[-1]), 3)
        out.append(Way(way.face, way.turn, way.climb, length, face_risk(way.face)))
    return out


def palette(boxes: tuple[str, ...], kind: Kind, library: TileLibrary | None = None) -> Palette:
    """What ``boxes`` hold for a stage of ``kind``.

    Raises
    ------
    GenerateError
        An unknown box or a GT box.
    """
    lib = library or default_library()
    check_boxes(boxes, lib, "dirt")
    named = Counter(boxes)
    faces = [f for box in sorted(named) for f in lib.in_box(box) if f.series == "dirt"]
    copies = {(f.box, f.number): f.copies * named[f.box] for f in faces}
    road = [f for f in faces if f.kind is FaceKind.ROAD and f.road is not None]
    ways = [w for f in road for w in _ways(f, kind)]
    lined = [w for w in ways if w.line is not None]
    starts = _laid([w for w in lined if w.line == "start"], None, lib)
    finishes = [w for w in lined if w.line == "finish"]
    middles = [w for w in ways if w.line is None]
    probe = starts[0] if starts else None
    climbs = {(f.box, f.number) for f in road if f.road is not None and f.road.climb is not None}
    return Palette(
        boxes=tuple(boxes),
        starts=tuple(starts),
        finishes=tuple(_laid(finishes, probe, lib)),
        middles=tuple(_laid(middles, probe, lib)),
        fillers=tuple(f for f in faces if f.kind is FaceKind.SCENERY),
        copies=copies,
        set_aside=0 if kind is Kind.HILLCLIMB else sum(copies[p] for p in climbs),
    )


def box_list(boxes: tuple[str, ...]) -> str:
    """``your boxes (dirt-climb, dirt-core)``: the subject of a sentence that says hold.

    >>> box_list(("dirt-core", "dirt-climb", "dirt-core"))
    'your boxes (dirt-climb, dirt-core)'
    """
    return f"your boxes ({', '.join(sorted(set(boxes)))})"


def check_dirt_request(
    request: Request, library: TileLibrary | None = None
) -> tuple[Request, Palette]:
    """The DIRT request with its size settled, and the palette of its boxes, once the
    request is known to be possible (:func:`trackkit.generator.series.check_request` picks
    this check or the GT one, :func:`trackkit.generator.gt_pieces.check_gt_request`).

    A request with neither ``tiles`` nor ``length_mm`` gets 12 tiles, or with ``par``
    about ``par / SECONDS_PER_TILE`` (:data:`trackkit.generator.score.SECONDS_PER_TILE`),
    within what the boxes hold.

    Raises
    ------
    GenerateError
        Naming the option at fault and what would work: GT options, unknown or GT boxes,
        no start and finish tiles, a hillclimb without climb tiles, more tiles than the
        boxes hold, a road length out of reach, a surface the boxes do not hold (or not
        enough of it), tokens or fillers the boxes do not hold.
    """
    gt_only = (
        ("--laps", request.laps is not None),
        ("--players", request.players is not None),
        ("--pit", request.pit),
        ("--crossings", bool(request.crossings)),
    )
    for option, given in gt_only:
        if given:
            raise GenerateError(
                option, "is a Rallyman: GT option: add --ruleset gt (and GT boxes), or leave it out"
            )
    if request.kind.series != "dirt":
        raise GenerateError(
            "--kind",
            f"{request.kind.value} is a Rallyman: GT track: add --ruleset gt, or use --kind "
            "rally or hillclimb",
        )
    pal = palette(request.boxes, request.kind, library)
    owned = box_list(request.boxes)
    if not pal.starts or not pal.finishes:
        raise GenerateError(
            "--boxes",
            f"a stage needs a start and a finish tile, and {owned} hold none: add dirt-core "
            "or dirt-monte-carlo",
        )
    hill = request.kind is Kind.HILLCLIMB
    if hill and not pal.climb_pieces:
        raise GenerateError(
            "--kind",
            f"a hillclimb needs a climb tile (HILLCLIMB-1, 325, 326, 418, 419), and {owned} "
            "hold none: add --boxes dirt-climb, or use --kind rally",
        )
    request = _sized(request, pal)
    _check_size(request, pal)
    _check_surfaces(request, pal)
    _check_tokens(request, pal)
    if request.fillers:
        have = pal.filler_pieces
        if not have:
            raise GenerateError(
                "--fillers",
                f"fillers are the scenery tiles 902-905 of dirt-copilot, and {owned} hold "
                "none: add --boxes dirt-copilot, or leave --fillers out",
            )
        if request.fillers > have:
            raise GenerateError(
                "--fillers", f"{owned} hold {have} filler pieces: use --fillers {have} or fewer"
            )
    return request, pal


def _sized(request: Request, pal: Palette) -> Request:
    """12 tiles, or as many as the par time asks for, when no size is given."""
    if request.tiles is not None or request.length_mm is not None:
        return request
    tiles = 12
    if request.par is not None:
        tiles = round(request.par / SECONDS_PER_TILE)
    least = 3 if request.kind is Kind.HILLCLIMB else 2
    return replace(request, tiles=max(least, min(pal.max_tiles, tiles)))


def _check_size(request: Request, pal: Palette) -> None:
    hill = request.kind is Kind.HILLCLIMB
    least = 3 if hill else 2
    what = "a start, a climb tile and a finish" if hill else "a start and a finish tile"
    if request.tiles is not None and request.length_mm is not None:
        raise GenerateError("--length-mm", "give --tiles or --length-mm, not both")
    if request.tiles is not None:
        if request.tiles < least:
            raise GenerateError("--tiles", f"a stage has at least {what}: use --tiles {least}+")
        if request.tiles > pal.max_tiles:
            kept = (
                f" (and {pal.set_aside} climb pieces, kept for hillclimbs)" if pal.set_aside else ""
            )
            raise GenerateError(
                "--tiles",
                f"{box_list(request.boxes)} hold {pal.max_tiles} road pieces for a "
                f"{request.kind.value}{kept}: a start, a finish and {pal.middle_pieces} "
                f"others; use --tiles {pal.max_tiles} or fewer, or name another box",
            )
    if request.length_mm is not None:
        shortest = min(w.length_mm for w in pal.starts) + min(w.length_mm for w in pal.finishes)
        if hill:
            shortest += min(w.length_mm for w in pal.middles if w.is_climb)
        longest_of: dict[Piece, float] = {}
        for w in pal.middles:
            longest_of[w.piece] = max(longest_of.get(w.piece, 0.0), w.length_mm)
        longest = (
            max(w.length_mm for w in pal.starts)
            + max(w.length_mm for w in pal.finishes)
            + sum(pal.copies[p] * mm for p, mm in longest_of.items())
        )
        if not shortest <= request.length_mm <= longest:
            raise GenerateError(
                "--length-mm",
                f"{box_list(request.boxes)} make roads of {shortest:.0f} to {longest:.0f} mm "
                f"for a {request.kind.value}: ask for a length in that range",
            )
    if request.count < 1 or request.candidates < 1 or request.finalists < 1:
        raise GenerateError("--count", "ask for at least one stage, candidate and finalist")


def _check_surfaces(request: Request, pal: Palette) -> None:
    held = pal.surfaces()
    tiles = request.tiles or 12
    for surface, share in request.surfaces:
        if share <= 0:
            continue
        have = held.get(surface, 0)
        if not have:
            where = {"asphalt": "dirt-monte-carlo or dirt-climb", "snow": "dirt-monte-carlo"}
            raise GenerateError(
                "--surface",
                f"{box_list(request.boxes)} hold no {surface} tiles (they hold "
                f"{', '.join(held)}): add {where.get(surface, 'dirt-core')}, or ask for "
                f"{', '.join(held)}",
            )
        if request.length_mm is None and share * tiles > have + 0.5:
            raise GenerateError(
                "--surface",
                f"{surface}={share:g} of {tiles} tiles is {share * tiles:.0f} tiles, and the "
                f"boxes hold {have} pieces with a {surface} face: ask for "
                f"{surface}={have / tiles:.2f} or less",
            )


def _check_tokens(request: Request, pal: Palette) -> None:
    if not request.tokens:
        return
    if "dirt-climb" not in request.boxes:
        raise GenerateError(
            "--tokens",
            "climb, oxygen and cloud tokens come with The Climb: add --boxes dirt-climb, or "
            "leave --tokens out",
        )
    tiles = request.tiles or 12
    middle = tiles - 2
    if request.kind is Kind.HILLCLIMB:
        room = {"climb": middle - 1, "oxygen": middle, "cloud": middle}
    else:
        room = {"climb": middle, "oxygen": middle, "cloud": middle}
    for kind, count in request.tokens:
        if request.length_mm is None and count > room[kind]:
            where = "tiles without climb arrows" if kind == "climb" else "tiles"
            raise GenerateError(
                "--tokens",
                f"{kind}={count}: a tile holds one {kind} token (R202), and a stage of "
                f"{tiles} tiles has {max(room[kind], 0)} {where} between its start and its "
                f"finish: ask for {kind}={max(room[kind], 1)} or more tiles",
            )

"""The simulation report: what ``trackkit simulate`` says of many races on a stage.

One :class:`SimReport` serves both series: what both ask of races (the settings, finish
rate, losses of control and where, blocked turns, where cars stalled, rounds, the stage's
tiles) in its own fields, what only DIRT races give (stage times per driver and overall,
wins by start position and their test, a hillclimb's best of 3, a rally's stages) in
:attr:`SimReport.dirt`, what only GT races give (places, wins by grid slot, laps led,
overtakes, pit stops, weather, gaps) in :attr:`SimReport.gt`. Each driver's figures are
a :class:`DriverFigures` with its per-series part in the same way.

Its JSON (:meth:`~trackkit.models.base.SeriesModel.to_json`, what ``simulate --format
json`` prints) is the flat document of DESIGN.md; :meth:`SimReport.model_validate` reads
such a document back (``render --heat`` reads one from a file).

Examples
--------
>>> dist = {"n": 0, "mean": None, "p10": None, "p50": None, "p90": None}
>>> report = SimReport.model_validate({
...     "settings": {"players": 1, "races": 0, "seed": 1, "cars": ["dirt"],
...                  "bots": ["cautious"], "hillclimb": False, "max_rounds": 200},
...     "finish_rate": 0.0, "time": {"overall": dist, "drivers": []},
...     "loss_of_control": {"per_race": 0.0, "by_tile": {}, "by_space": {}},
...     "blocked_turns": {"total": 0, "by_space": {}}, "stuck": {}, "stuck_spots": [],
...     "wins_by_start_position": {"1": 0.0}, "outright_wins_by_start_position": {"1": 0},
...     "tied_races": 0, "start_position_test": {"test": "binomial", "alpha": 0.01,
...     "min_races": 20, "groups": []}, "rounds": dist})
>>> report.dirt.tied_races, report.gt is None, report.settings.dirt.hillclimb
(0, True, False)
>>> list(report.to_json())[:3]
['settings', 'finish_rate', 'time']
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, JsonValue

from trackkit.models.base import SeriesModel, StrictModel

__all__ = [
    "Blocked",
    "DashboardUse",
    "DirtDriver",
    "DirtSettings",
    "DirtSimPart",
    "Distribution",
    "DriverFigures",
    "Gaps",
    "GtDriver",
    "GtSettings",
    "GtSimPart",
    "HillclimbFigures",
    "LossOfControl",
    "Overtakes",
    "PerRace",
    "PitStops",
    "PositionGroup",
    "SimReport",
    "SimSettings",
    "StageTiles",
    "StartPositionTest",
    "StuckCount",
    "TileCount",
    "TimeFigures",
    "WeatherChanges",
]


class Distribution(StrictModel):
    """A distribution of figures over the races: how many, their mean and percentiles."""

    n: int = Field(description="How many figures.")
    mean: float | None = Field(description="Their mean (None: no figure).")
    p10: float | None = Field(description="The 10th percentile (linear interpolation).")
    p50: float | None = Field(description="The median.")
    p90: float | None = Field(description="The 90th percentile.")


class TileCount(StrictModel):
    """How often something happened on one tile."""

    tile: str = Field(description="Face id of the tile ('?': not known).")
    count: int = Field(description="How many times in all the races.")
    per_race: float = Field(description="How many times per race.")


class DirtSettings(StrictModel):
    """The settings only DIRT races have."""

    hillclimb: bool = Field(description="A hillclimb: each driver's best of 3 attempts.")


class GtSettings(StrictModel):
    """The settings only GT races have."""

    laps: int | None = Field(description="Laps of a race (None: a point-to-point track).")
    point_to_point: bool = Field(description="The track is raced once, start to finish.")
    weather: str | None = Field(description="The weather at the start (dry or rain).")
    grid: str = Field(description="drawn (the seed draws the grid) or given.")
    gt: Literal[True] = Field(default=True, description="Marks a GT document.")


class SimSettings(SeriesModel):
    """How the races were run."""

    _PARTS: ClassVar[tuple[str, ...]] = ("dirt", "gt")
    _ORDER: ClassVar[dict[str, tuple[str, ...]]] = {
        "dirt": ("players", "races", "seed", "cars", "bots", "hillclimb", "max_rounds"),
        "gt": (
            *("players", "races", "seed", "cars", "bots", "laps", "point_to_point"),
            *("weather", "grid", "max_rounds", "gt"),
        ),
    }

    players: int = Field(description="Drivers in each race.")
    races: int = Field(description="Races run.")
    seed: int = Field(description="The seed of the run (race i: its own seed from it).")
    cars: list[str] = Field(description="Each driver's car, in words.")
    bots: list[str] = Field(description="Each driver's bot.")
    max_rounds: int = Field(description="The round cap of a race.")
    dirt: DirtSettings | None = Field(default=None, description="DIRT races' settings.")
    gt: GtSettings | None = Field(default=None, description="GT races' settings.")


class DashboardUse(StrictModel):
    """A dashboard a driver drove, and in how many attempts."""

    dashboard: str = Field(description="The dashboard in a few words.")
    attempts: int = Field(description="Attempts driven with it.")
    layout: dict[str, JsonValue] = Field(description="The dashboard as a car file writes it.")


class DirtDriver(SeriesModel):
    """What only a DIRT driver's figures have."""

    _GIVEN: ClassVar[frozenset[str]] = frozenset({"attempts_finished"})

    time: Distribution = Field(description="Its stage times (a hillclimb: best of 3), s.")
    dashboards: list[DashboardUse] = Field(description="The dashboards it drove, most used first.")
    attempts_finished: float | None = Field(
        default=None, description="A hillclimb: attempts finished per race (absent otherwise)."
    )


class GtDriver(StrictModel):
    """What only a GT driver's figures have."""

    wins: int = Field(description="Races won.")
    place: Distribution = Field(description="Its places at the finish.")
    laps_led_per_race: float | None = Field(description="Laps led per race (None: no laps).")
    overtakes_per_race: float = Field(description="Cars it passed per race.")
    losses_per_race: float = Field(description="Its losses of control per race.")
    gear_00_per_race: float = Field(description="Times per race it ended in gear 00.")
    pit_stops_per_race: float = Field(description="Its pit stops per race.")


class DriverFigures(SeriesModel):
    """One driver's figures over the races."""

    _PARTS: ClassVar[tuple[str, ...]] = ("dirt", "gt")
    _ORDER: ClassVar[dict[str, tuple[str, ...]]] = {
        "dirt": (
            *("name", "car", "bot", "finish_rate", "time", "dnf", "dashboards"),
            "attempts_finished",
        ),
        "gt": (
            *("name", "car", "bot", "finish_rate", "wins", "place", "laps_led_per_race"),
            *("overtakes_per_race", "losses_per_race", "gear_00_per_race"),
            *("pit_stops_per_race", "dnf"),
        ),
    }

    name: str = Field(description="The driver's name.")
    car: str = Field(description="Its car, in words.")
    bot: str = Field(description="Its bot.")
    finish_rate: float = Field(description="Share of the races it finished.")
    dnf: dict[str, int] = Field(
        description="Races it did not finish, by reason: stuck (no legal way on, ever) or "
        "round cap (still racing at the cap)."
    )
    dirt: DirtDriver | None = Field(default=None, description="A DIRT driver's figures.")
    gt: GtDriver | None = Field(default=None, description="A GT driver's figures.")


class TimeFigures(StrictModel):
    """DIRT stage times."""

    overall: Distribution = Field(description="Every driver's stage times, s.")
    drivers: list[DriverFigures] = Field(description="Each driver's figures.")


class LossOfControl(SeriesModel):
    """Losses of control and where they happened (the step that broke the limit)."""

    _GIVEN: ClassVar[frozenset[str]] = frozenset({"gear_00_per_race"})

    per_race: float = Field(description="Losses of control per race (a rally: all its stages).")
    gear_00_per_race: float | None = Field(
        default=None, description="GT: times per race a car ended in gear 00 (absent in DIRT)."
    )
    by_tile: dict[str, TileCount] = Field(description="By tile number in driving order.")
    by_space: dict[str, int] = Field(description="By space id.")


class Blocked(StrictModel):
    """Turns a car could not move for the cars in its way."""

    total: int = Field(description="Blocked turns in all the races.")
    by_space: dict[str, int] = Field(description="By space id.")


class StuckCount(StrictModel):
    """A spot where cars got stuck for good (no legal way on, ever)."""

    tile_index: int = Field(description="Tile number in driving order.")
    tile: str = Field(description="Face id of the tile.")
    space: str = Field(description="The space ('start': at the start).")
    cause: str = Field(description="Why, in words.")
    count: int = Field(description="Cars stuck there in all the races.")


class PositionGroup(StrictModel):
    """One set of drivers alike (same car and bot) tested for a start position's edge."""

    car: str = Field(description="Their car.")
    bot: str = Field(description="Their bot.")
    start_positions: list[int] = Field(description="Their start positions.")
    won_alone: dict[str, int] = Field(description="Races each position won alone.")
    tied: int = Field(description="Races they tied (left out of the test).")
    most: str = Field(description="The position with the most wins.")
    most_wins: int = Field(description="Its wins.")
    races: int = Field(description="Races one of them won alone.")
    positions: int = Field(description="Positions compared (k).")
    compared: int = Field(description="Positions the Bonferroni correction counts.")
    p_value: float = Field(description="The corrected p-value of the one-sided binomial test.")
    significant: bool = Field(description="p below alpha over min_races races or more.")


class StartPositionTest(StrictModel):
    """Does a start position win more than chance? (P604 reads it)."""

    test: str = Field(description="The test, in words.")
    alpha: float = Field(description="Its significance level.")
    min_races: int = Field(description="Races a significant result needs.")
    groups: list[PositionGroup] = Field(description="Each set of two or more drivers alike.")


class StageTiles(StrictModel):
    """The stage raced, named by its tiles (``render --heat`` checks it)."""

    tiles: list[str] = Field(description="Face ids in driving order.")


class HillclimbFigures(StrictModel):
    """A hillclimb's times."""

    best_of_attempts: Distribution = Field(description="Each driver's best of 3 attempts, s.")


class DirtSimPart(SeriesModel):
    """What only DIRT races give."""

    _GIVEN: ClassVar[frozenset[str]] = frozenset({"hillclimb", "stages"})

    time: TimeFigures = Field(description="Stage times overall and per driver.")
    stuck_spots: list[StuckCount] = Field(description="Where cars got stuck for good.")
    wins_by_start_position: dict[str, float] = Field(
        description="Wins by start position (TURN-1), a tied race's win shared."
    )
    outright_wins_by_start_position: dict[str, int] = Field(
        description="Races each start position won alone."
    )
    tied_races: int = Field(description="Races whose best time was shared.")
    start_position_test: StartPositionTest = Field(description="The start positions' test.")
    hillclimb: HillclimbFigures | None = Field(
        default=None, description="A hillclimb's best of 3 (absent otherwise)."
    )
    stages: list[SimReport] | None = Field(
        default=None, description="A rally: each stage's own report (absent otherwise)."
    )


class Overtakes(StrictModel):
    """GT overtakes and where they happened."""

    total: int = Field(description="Overtakes in all the races.")
    per_race: float = Field(description="Per race.")
    per_lap: float | None = Field(
        description="Per lap the leaders drove (None: a point-to-point track)."
    )
    laps_driven: int = Field(description="The laps the leaders began, all races together.")
    by_lap: dict[str, int] = Field(description="By lap (empty: no laps).")
    by_tile: dict[str, TileCount] = Field(description="By tile number in driving order.")
    by_space: dict[str, int] = Field(description="By space id.")


class PerRace(StrictModel):
    """How often something happened per race."""

    per_race: float = Field(description="Per race.")


class PitStops(StrictModel):
    """GT pit stops."""

    per_race: float = Field(description="Pit stops per race.")
    by_space: dict[str, int] = Field(description="By space id.")


class WeatherChanges(StrictModel):
    """GT weather changes."""

    per_race: float = Field(description="Changes per race.")
    races_with_a_change: int = Field(description="Races with at least one.")


class Gaps(StrictModel):
    """GT gaps at the finish, in rounds."""

    to_second: Distribution = Field(description="From the winner to the second car.")
    to_last: Distribution = Field(description="From the winner to the last car.")


class GtSimPart(StrictModel):
    """What only GT races give."""

    drivers: list[DriverFigures] = Field(description="Each driver's figures.")
    wins_by_grid_slot: dict[str, int] = Field(description="Races won from each grid slot.")
    win_rate_by_grid_slot: dict[str, float] = Field(description="Win rate of each grid slot.")
    laps_led: dict[str, float | None] | None = Field(
        description="Laps led per race by driver name (None: a point-to-point track)."
    )
    decided_on_lap_1: float | None = Field(
        description="Share of the races with a winner where the lap-1 leader won (None: "
        "not asked: no winner, one lap or none, one car)."
    )
    overtakes: Overtakes = Field(description="Overtakes and where.")
    pit_stops: PitStops = Field(description="Pit stops.")
    weather_changes: WeatherChanges = Field(description="Weather changes.")
    yellow_flags: PerRace = Field(description="Yellow flags.")
    winner_rounds: Distribution = Field(description="Rounds the winner took.")
    gaps: Gaps = Field(description="Gaps at the finish.")


class SimReport(SeriesModel):
    """The report of many races on a stage (``simulate --format json``)."""

    _PARTS: ClassVar[tuple[str, ...]] = ("dirt", "gt")
    _GIVEN: ClassVar[frozenset[str]] = frozenset({"stage"})
    _ORDER: ClassVar[dict[str, tuple[str, ...]]] = {
        "dirt": (
            *("settings", "finish_rate", "time", "loss_of_control", "blocked_turns", "stuck"),
            *("stuck_spots", "wins_by_start_position", "outright_wins_by_start_position"),
            *("tied_races", "start_position_test", "rounds", "stage", "hillclimb", "stages"),
        ),
        "gt": (
            *("settings", "finish_rate", "drivers", "wins_by_grid_slot"),
            *("win_rate_by_grid_slot", "laps_led", "decided_on_lap_1", "overtakes"),
            *("loss_of_control", "pit_stops", "weather_changes", "yellow_flags"),
            *("blocked_turns", "rounds", "winner_rounds", "gaps", "stuck", "stage"),
        ),
    }

    settings: SimSettings = Field(description="How the races were run.")
    finish_rate: float = Field(description="Share of the drivers who finished.")
    loss_of_control: LossOfControl = Field(description="Losses of control and where.")
    blocked_turns: Blocked = Field(description="Blocked turns and where.")
    stuck: dict[str, int] = Field(
        description="Where the cars that did not finish stopped ('start', GT 'grid': never moved)."
    )
    rounds: Distribution = Field(description="Rounds a race took.")
    stage: StageTiles | None = Field(
        default=None, description="The stage raced (absent for a rally's combined report)."
    )
    dirt: DirtSimPart | None = Field(default=None, description="What only DIRT races give.")
    gt: GtSimPart | None = Field(default=None, description="What only GT races give.")

    @property
    def drivers(self) -> list[DriverFigures]:
        """Each driver's figures, whichever the series."""
        if self.gt is not None:
            return self.gt.drivers
        return self.dirt.time.drivers if self.dirt is not None else []

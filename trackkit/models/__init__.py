"""pydantic data models: tiles, stages, tokens, findings, cars, and the results of both
series: the stage summary (:class:`StageSummary`, ``validate``) and the simulation report
(:class:`SimReport`, ``simulate``)."""

from trackkit.models.car import CarFile, Column, FixedDashboard, UnlimitedLayout
from trackkit.models.findings import Finding, Location, Severity
from trackkit.models.simreport import SimReport
from trackkit.models.stage import Kind, Stage, StageTile, TileToken, TokenKind
from trackkit.models.summary import StageSummary
from trackkit.models.tile import (
    ChicaneSection,
    Climb,
    CornerLane,
    CornerSection,
    Danger,
    FaceKind,
    Ford,
    HazardMark,
    Jump,
    Road,
    RoadShape,
    RowRef,
    Section,
    Shortcut,
    SlideSection,
    StartFinish,
    StraightSection,
    Surface,
    TileFace,
    TileSet,
    Turn,
)

__all__ = [
    "CarFile",
    "ChicaneSection",
    "Climb",
    "Column",
    "CornerLane",
    "CornerSection",
    "Danger",
    "FaceKind",
    "Finding",
    "FixedDashboard",
    "Ford",
    "HazardMark",
    "Jump",
    "Kind",
    "Location",
    "Road",
    "RoadShape",
    "RowRef",
    "Section",
    "Severity",
    "Shortcut",
    "SimReport",
    "SlideSection",
    "Stage",
    "StageSummary",
    "StageTile",
    "StartFinish",
    "StraightSection",
    "Surface",
    "TileFace",
    "TileSet",
    "TileToken",
    "TokenKind",
    "Turn",
    "UnlimitedLayout",
]

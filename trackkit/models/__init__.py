"""pydantic data models: tiles, stages, tokens, findings, cars, and the results of both
series: the stage summary (:class:`StageSummary`, ``validate``) and the simulation report
(:class:`SimReport`, ``simulate``).

Names are imported on first use (as in :mod:`trackkit`), so that importing one model module
(``trackkit.models.findings``) does not build every model of the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trackkit.lazy import lazy_exports

_EXPORTS = {
    "CarFile": "trackkit.models.car",
    "ChicaneSection": "trackkit.models.tile",
    "Climb": "trackkit.models.tile",
    "Column": "trackkit.models.car",
    "CornerLane": "trackkit.models.tile",
    "CornerSection": "trackkit.models.tile",
    "Danger": "trackkit.models.tile",
    "FaceKind": "trackkit.models.tile",
    "Finding": "trackkit.models.findings",
    "FixedDashboard": "trackkit.models.car",
    "Ford": "trackkit.models.tile",
    "HazardMark": "trackkit.models.tile",
    "Jump": "trackkit.models.tile",
    "Kind": "trackkit.models.stage",
    "Location": "trackkit.models.findings",
    "Road": "trackkit.models.tile",
    "RoadShape": "trackkit.models.tile",
    "RowRef": "trackkit.models.tile",
    "Section": "trackkit.models.tile",
    "Severity": "trackkit.models.findings",
    "Shortcut": "trackkit.models.tile",
    "SimReport": "trackkit.models.simreport",
    "SlideSection": "trackkit.models.tile",
    "Stage": "trackkit.models.stage",
    "StageSummary": "trackkit.models.summary",
    "StageTile": "trackkit.models.stage",
    "StartFinish": "trackkit.models.tile",
    "StraightSection": "trackkit.models.tile",
    "Surface": "trackkit.models.tile",
    "TileFace": "trackkit.models.tile",
    "TileSet": "trackkit.models.tile",
    "TileToken": "trackkit.models.stage",
    "TokenKind": "trackkit.models.stage",
    "Turn": "trackkit.models.tile",
    "UnlimitedLayout": "trackkit.models.car",
}

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

if TYPE_CHECKING:
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


__getattr__ = lazy_exports("trackkit.models", _EXPORTS)

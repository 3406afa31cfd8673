"""Car files (``format: trackkit-car/1``): a printed dashboard or an Unlimited one, as data.

A car file holds one dashboard (DASH-1): either ``fixed``, one column of dice per surface
like the printed DIRT and R5 cards, or ``unlimited``, The Climb's board of 17 spaces
(DASH-3, DASH-4) written space by space. The model checks types and sizes; the rules of
the board (tokens from the right, one gear token per value, ...) are checked by
:func:`trackkit.rules.cars.car_problems`, which names the space.

Examples
--------
>>> car = CarFile.model_validate({
...     "format": "trackkit-car/1", "name": "Snow climber",
...     "unlimited": {"top": [None, "asphalt", "snow"], "right": ["gear-6", "boost"],
...                   "left": ["gear-1", "gear-2", "gear-3", "gear-4", "gear-5", "brake"]}})
>>> car.unlimited.top[2], len(car.unlimited.left), car.fixed is None
('snow', 6, True)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from trackkit.models.base import StrictModel, empty_list

__all__ = [
    "CAR_FORMAT",
    "EQUIPMENT",
    "REGION_SIZES",
    "TRACK_TYPES",
    "CarFile",
    "Column",
    "Equipment",
    "FixedDashboard",
    "TrackType",
    "UnlimitedLayout",
]

CAR_FORMAT = "trackkit-car/1"

#: The surfaces a track-type token can show (DASH-3), in the order reports list them.
TRACK_TYPES = ("gravel", "asphalt", "snow")
TrackType = Literal["gravel", "asphalt", "snow"]

#: Equipment tokens of an Unlimited dashboard (DASH-4): a gear die of one value, a brake,
#: coast or boost die, puncture-proof tyres, the SISU token.
EQUIPMENT = (
    "gear-1",
    "gear-2",
    "gear-3",
    "gear-4",
    "gear-5",
    "gear-6",
    "brake",
    "coast",
    "boost",
    "tyres",
    "sisu",
)
Equipment = Literal[
    "gear-1",
    "gear-2",
    "gear-3",
    "gear-4",
    "gear-5",
    "gear-6",
    "brake",
    "coast",
    "boost",
    "tyres",
    "sisu",
]

#: Spaces per region of the Unlimited board (DASH-3 DEFAULT): 3 + 2 + 2 + 10 = 17.
REGION_SIZES = {"top": 3, "right": 2, "middle": 2, "left": 10}


class Column(StrictModel):
    """One surface column of a dashboard: the dice a car has per turn there (DASH-1)."""

    gears: list[Annotated[int, Field(ge=1, le=6)]] = Field(
        max_length=6, description="Gear dice available, by value (1..6, each at most once)."
    )
    brake: int = Field(ge=0, le=16, description="Brake dice per turn (MOVE-4).")
    coast: int = Field(ge=0, le=16, description="Coast (or leader) dice per turn (MOVE-3).")
    boost: int = Field(ge=0, le=16, description="Boost dice per turn (MOVE-5).")
    danger_limit: int = Field(
        ge=1, le=17, description="Danger results that make a loss of control (TURN-6)."
    )

    @field_validator("gears")
    @classmethod
    def _distinct(cls, gears: list[int]) -> list[int]:
        if len(set(gears)) != len(gears):
            raise ValueError("a gear value is listed twice: each gear die has its own value")
        return gears


class FixedDashboard(StrictModel):
    """A printed dashboard: a column per surface (DASH-1), as the DIRT and R5 cards."""

    gravel: Column = Field(description="The dice on gravel tiles.")
    asphalt: Column = Field(description="The dice on asphalt tiles.")
    snow: Column = Field(description="The dice on snow tiles.")


Space = Equipment | None
TopSpace = TrackType | Equipment | None


class UnlimitedLayout(StrictModel):
    """The 17 spaces of an Unlimited dashboard (DASH-3, DASH-4), region by region.

    Each list gives its spaces in order; ``null`` (or a list shorter than the region) is an
    empty space, and every empty space adds one to the danger limit (DASH-4).
    """

    top: list[TopSpace] = Field(
        min_length=3,
        max_length=3,
        description="The top row, left to right: one track-type token (gravel, asphalt, "
        "snow) per surface of the stage, the car's best surface in the right space, the "
        "next to its left, a third in the left space (DASH-3); a space no token needs may "
        "hold equipment or stay empty (null).",
    )
    right: list[Space] = Field(
        default_factory=empty_list,
        max_length=2,
        description="The 2 spaces under the right token: they work on its surface only.",
    )
    middle: list[Space] = Field(
        default_factory=empty_list,
        max_length=2,
        description="The 2 spaces under the middle token: on its surface and the right one's.",
    )
    left: list[Space] = Field(
        default_factory=empty_list,
        max_length=10,
        description="The 10 spaces under and left of the left token: on every surface.",
    )


class CarFile(StrictModel):
    """A car: its name and one dashboard, fixed (printed columns) or Unlimited (The Climb)."""

    format: Literal["trackkit-car/1"] = Field(description="File format marker.")
    name: str = Field(
        min_length=1, max_length=60, description="Name of the car, as reports show it."
    )
    description: str | None = Field(
        default=None, max_length=500, description="Free text: what the car is built for."
    )
    fixed: FixedDashboard | None = Field(
        default=None,
        description="A printed dashboard: the dice and danger limit per surface (DASH-1).",
    )
    unlimited: UnlimitedLayout | None = Field(
        default=None, description="An Unlimited dashboard, space by space (DASH-3, DASH-4)."
    )

    @model_validator(mode="after")
    def _one_dashboard(self) -> CarFile:
        if (self.fixed is None) == (self.unlimited is None):
            raise ValueError("a car file gives exactly one dashboard: 'fixed' or 'unlimited'")
        return self

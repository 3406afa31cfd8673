"""Generator benchmarks (issue 13 targets; run with ``make bench``).

- valid candidate stages of 12 tiles a second without simulation (target >= 10): each one
  built by the search, laid out, validated and scored (``--races 0``), on one core, for
  dirt-core, dirt-core + dirt-monte-carlo, and a dirt-core + dirt-climb hillclimb;
- a full ``trackkit generate --count 3`` with simulation (the defaults: 24 candidates, 3
  finalists of 30 races each per stage), wall time on one core (target < 60 s), run as a
  user runs it (a new process); with ``--jobs 2`` beside it, and a hillclimb's (whose
  races have three runs each).

``python benchmarks/generate.py --gt`` gives the same figures for Rallyman: GT circuits
(``--ruleset gt``): valid 12-tile circuits a second without races for each box that has
a start/finish tile and the combinations players own (:data:`GT_COMBINATIONS`; each the
first run of its process, so
the placement answers are asked as a user's run asks them), and a full
``trackkit generate --ruleset gt --boxes gt-core --count 3`` with GT races (the defaults:
24 candidates, 6 finalists of 30 races of 3 laps, four GT bots) on one core and with
``--jobs 2``.

``python benchmarks/generate.py --calibrate [N]`` instead races N random roads of 12 tiles
(default 60 per box set) and fits the per-tile risk of the difficulty measure again
(least squares), printing it beside :data:`trackkit.generator.score.RISK`.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trackkit.generator import Request, generate
from trackkit.generator.decorate import stage_of, token_plan
from trackkit.generator.pieces import Way
from trackkit.generator.request import Difficulty
from trackkit.generator.score import RISK, Aim
from trackkit.generator.search import ChainGoal, Placer, build_road
from trackkit.generator.series import check_request
from trackkit.models.stage import Kind, TileToken
from trackkit.models.tile import ChicaneSection, CornerSection
from trackkit.sim.simulate import simulate_files


def bench_candidates(request: Request) -> tuple[float, int]:
    """Valid candidates per second for ``request`` (no races), and how many were built."""
    start = time.perf_counter()
    generation = generate(request)
    seconds = time.perf_counter() - start
    built = generation.stats["candidates"]
    return built / seconds, built


def bench_cli(
    count: int = 3, jobs: int = 1, extra: tuple[str, ...] = (), boxes: tuple[str, ...] = ()
) -> float:
    """Wall seconds of ``trackkit generate --count N`` with the default simulation."""
    exe = Path(sys.executable).with_name("trackkit")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trackkit"]
    with tempfile.TemporaryDirectory() as tmp:
        args = ["generate", *(a for b in boxes or ("dirt-core",) for a in ("--boxes", b))]
        args += ["--count", str(count), "--jobs", str(jobs)]
        args += extra
        start = time.perf_counter()
        done = subprocess.run([*cmd, *args, "-o", tmp], capture_output=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"generate failed:\n{done.stdout.decode()}{done.stderr.decode()}")
    return seconds


def main() -> None:
    """Print the figures."""
    cases = [
        ("dirt-core", Request(boxes=("dirt-core",), tiles=12, candidates=100, races=0)),
        (
            "dirt-core + dirt-monte-carlo, gravel=0.5",
            Request(
                boxes=("dirt-core", "dirt-monte-carlo"),
                tiles=12,
                surfaces=(("gravel", 0.5),),
                candidates=100,
                races=0,
            ),
        ),
        (
            "dirt-core + dirt-climb hillclimb, oxygen=2,cloud",
            Request(
                boxes=("dirt-core", "dirt-climb"),
                tiles=12,
                kind=Kind.HILLCLIMB,
                tokens=(("cloud", 1), ("oxygen", 2)),
                candidates=100,
                races=0,
            ),
        ),
    ]
    for label, request in cases:
        rate, built = bench_candidates(request)
        print(f"valid 12-tile candidates/s, {label}: {rate:.0f} ({built} built; target >= 10)")
    one = bench_cli(jobs=1)
    print(
        f"trackkit generate --boxes dirt-core --count 3 (simulated), 1 core: {one:.1f} s "
        "(target < 60 s)"
    )
    two = bench_cli(jobs=2)
    print(f"  the same with --jobs 2: {two:.1f} s")
    hill = bench_cli(extra=("--boxes", "dirt-climb", "--kind", "hillclimb", "--tokens", "oxygen=2"))
    print(
        f"  a hillclimb (dirt-core + dirt-climb, oxygen=2: three runs a race), 1 core: {hill:.1f} s"
    )


# --- calibration of the difficulty measure ----------------------------------------------

FEATURES = (
    "snow",
    "asphalt",
    "jump",
    "ford",
    "corner",
    "corner_gears",
    "climb",
    "cloud",
    "climb_token",
    "oxygen",
)


def _features(ways: list[Way], tokens: dict[int, list[TileToken]]) -> list[float]:
    """Per-tile means of what the risk counts."""
    out = dict.fromkeys(FEATURES, 0.0)
    for way in ways:
        road = way.face.road
        assert road is not None
        out["snow"] += way.face.surface.value == "snow"
        out["asphalt"] += way.face.surface.value == "asphalt"
        out["jump"] += len(road.jumps)
        out["ford"] += len(road.fords)
        out["climb"] += road.climb is not None
        for s in road.sections:
            if isinstance(s, CornerSection | ChicaneSection):
                limit = s.outer.limit if isinstance(s, CornerSection) else s.limit
                out["corner"] += 1
                out["corner_gears"] += 6 - limit
    for toks in tokens.values():
        for t in toks:
            key = {"cloud": "cloud", "climb": "climb_token", "oxygen": "oxygen"}[t.token]
            out[key] += 1
    return [out[k] / len(ways) for k in FEATURES]


def calibrate(per_set: int = 60) -> None:
    """Race random roads and fit the per-tile risk; print it beside the one in use."""
    import numpy as np  # installed with shapely; only the calibration needs it

    sets: list[tuple[tuple[str, ...], Kind]] = [
        (("dirt-core",), Kind.RALLY),
        (("dirt-monte-carlo",), Kind.RALLY),
        (("dirt-core", "dirt-monte-carlo"), Kind.RALLY),
        (("dirt-core", "dirt-climb"), Kind.HILLCLIMB),
        (("dirt-core", "dirt-monte-carlo", "dirt-climb"), Kind.HILLCLIMB),
    ]
    rng = random.Random(2024)
    rows: list[list[float]] = []
    rates: list[float] = []
    for boxes, kind in sets:
        for n in range(per_set):
            level = list(Difficulty)[n % 3]
            request, pal = check_request(
                Request(boxes=boxes, tiles=12, kind=kind, difficulty=level)
            )
            climbs = (1, pal.climb_pieces) if kind is Kind.HILLCLIMB else (0, 0)
            road = build_road(
                pal, ChainGoal(tiles=12, climbs=climbs), Aim.of(request, pal), rng, Placer()
            )
            asked = []
            if kind is Kind.HILLCLIMB:
                asked = [(k, c) for k in ("oxygen", "cloud", "climb") if (c := rng.randrange(3))]
            tokens = token_plan(road.ways, asked, rng)
            stage = stage_of(road.ways, name="calibration", kind=kind, boxes=boxes, tokens=tokens)
            doc, _ = simulate_files(
                [stage],
                ["calibration"],
                players=3,
                races=24,
                seed=n + 1,
                cars=("dirt",),
                bots=("cautious", "aggressive", "planner"),
            )
            runs = 3 if kind is Kind.HILLCLIMB else 1
            rates.append(doc.loss_of_control.per_race / 3 / runs / 12 * 10)
            rows.append(_features(road.ways, tokens))
        print(f"raced {per_set} roads of {' + '.join(boxes)} ({kind.value})", file=sys.stderr)
    x = np.array(rows)
    y = np.array(rates)
    a = np.c_[x, np.ones(len(y))]
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    pred = a @ coef
    r2 = 1 - float(((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum())
    now = {
        "snow": RISK["snow"],
        "asphalt": RISK["asphalt"],
        "jump": RISK["jump"],
        "ford": RISK["ford"],
        "corner": RISK["corner"],
        "corner_gears": RISK["corner_per_gear_below_6"],
        "climb": RISK["climb"],
        "cloud": RISK["cloud"],
        "climb_token": RISK["climb_token"],
        "oxygen": RISK["oxygen"],
    }
    print(f"{len(y)} roads, R^2 {r2:.2f}; fitted (in use)")
    for name, c in zip([*FEATURES, "base"], coef, strict=True):
        used = RISK["base"] if name == "base" else now[name]
        print(f"  {name:13s} {c:+.3f} ({used:+.2f})")


#: The GT boxes alone and together, as players own them (Championship and Adrenaline
#: alone hold no start/finish tile: they fail at once, as Team Challenge alone does).
GT_COMBINATIONS: tuple[tuple[str, ...], ...] = (
    ("gt-core",),
    ("gt-world-tour",),
    ("gt-team-challenge",),
    ("gt-core", "gt-championship"),
    ("gt-core", "gt-world-tour"),
    ("gt-core", "gt-adrenaline"),
    ("gt-core", "gt-team-challenge"),
    ("gt-core", "gt-championship", "gt-world-tour"),
    ("gt-world-tour", "gt-championship"),
    ("gt-world-tour", "gt-adrenaline"),
    ("gt-world-tour", "gt-team-challenge"),
    ("gt-core", "gt-championship", "gt-world-tour", "gt-team-challenge", "gt-adrenaline"),
)


def _gt_rate(boxes: tuple[str, ...]) -> str:
    """Valid 12-tile circuits a second for ``boxes``, in a new process (cold caches), or
    how long the refusal took."""
    code = (
        "import time\n"
        "from trackkit.generator import GenerateError, Request, generate\n"
        f"r = Request(boxes={boxes!r}, ruleset='gt', tiles=12, candidates=100, races=0)\n"
        "t = time.perf_counter()\n"
        "try:\n"
        "    g = generate(r)\n"
        "except GenerateError as e:\n"
        "    s = time.perf_counter() - t\n"
        "    print(f'refused in {s:.2f} s ({str(e)[:70]}...)')\n"
        "else:\n"
        "    s = time.perf_counter() - t\n"
        "    n = g.stats['candidates']\n"
        "    print(f'{n / s:.0f} ({n} built in {s:.1f} s)')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    return done.stdout.decode().strip()


def main_gt() -> None:
    """Print the GT figures."""
    for boxes in GT_COMBINATIONS:
        print(f"valid 12-tile circuits/s, {' + '.join(boxes)}: {_gt_rate(boxes)} (target >= 10)")
    gt = ("--ruleset", "gt")
    one = bench_cli(jobs=1, extra=gt, boxes=("gt-core",))
    print(
        f"trackkit generate --ruleset gt --boxes gt-core --count 3 (raced), 1 core: {one:.1f} s "
        "(target < 60 s)"
    )
    two = bench_cli(jobs=2, extra=gt, boxes=("gt-core",))
    print(f"  the same with --jobs 2: {two:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
    elif len(sys.argv) >= 2 and sys.argv[1] == "--gt":
        main_gt()
    elif len(sys.argv) >= 2 and sys.argv[1] == "--calibrate":
        calibrate(int(sys.argv[2]) if len(sys.argv) > 2 else 60)
    else:
        main()

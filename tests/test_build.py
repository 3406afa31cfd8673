"""Which build runs: the pure package, or the opt-in compiled build (``trackkit.build``)."""

from __future__ import annotations

import os

from typer.testing import CliRunner

from trackkit import __version__
from trackkit.build import build_name, compiled
from trackkit.cli.app import app


def test_version_says_which_build_runs() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"trackkit {__version__} ({build_name()} build)"
    assert build_name() == ("compiled" if compiled() else "pure")


def test_the_suite_runs_the_build_it_was_asked_to() -> None:
    # make test runs the checkout's own modules (the editable install): a compiled module
    # left beside them would shadow its source. make compiled-check says compiled: its tests
    # must not pass on pure modules because build/compiled failed to come first on the path.
    assert build_name() == os.environ.get("TRACKKIT_EXPECT_BUILD", "pure")

"""``trackkit studio`` in a real browser: headless Chromium driven by Selenium.

The page is opened on a real server (uvicorn, in a thread), and a stage is built by
clicking as a designer would: a five-tile DIRT stage, a hillclimb, a GT circuit; a
finding appears and goes away, a fix is applied, the stage is raced and saved, and the
saved file is compared with the one expected. Screenshots at 1366x768 and 1920x1080 go to
``$TRACKKIT_SCREENSHOTS`` (default: a temporary folder).

Debian's ``chromium`` and ``chromium-driver`` packages are needed (``make test`` installs
them when run as root); without them these tests are skipped, unless
``TRACKKIT_REQUIRE_BROWSER`` is set (``.ci/run``), when they fail. ``-m "not browser"``
leaves them out of a quick inner loop.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from stagekit import GT_OVAL

# one worker (and so one browser) runs them all under xdist's --dist loadgroup (make test)
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("studio-browser")]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
HOW = (
    "the browser tests need Debian's chromium and chromium-driver packages "
    "(as root: apt-get install chromium chromium-driver; 'make test' does it) and selenium "
    "(pip install -e '.[dev]')"
)
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
]
WAIT = 15.0


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return HOW
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        return HOW
    return None


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    why = _missing()
    if why is not None:
        if os.environ.get("TRACKKIT_REQUIRE_BROWSER"):
            pytest.fail(why)
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="trackkit-chromium-")
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    d.set_script_timeout(WAIT)
    screen(d, 1366, 768)
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screen(d: Any, width: int, height: int) -> None:
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TRACKKIT_SCREENSHOTS")
    if given:
        Path(given).mkdir(parents=True, exist_ok=True)
        return Path(given)
    return tmp_path_factory.mktemp("screenshots")


@dataclass
class Running:
    """A studio served on a free port of 127.0.0.1."""

    url: str
    token: str
    session: Any
    path: Path | None

    def state(self) -> dict[str, Any]:
        base = self.url.split("/?")[0]
        with urllib.request.urlopen(f"{base}/api/state?token={self.token}", timeout=10) as res:
            return json.loads(res.read())  # type: ignore[no-any-return]


@pytest.fixture
def studio(driver: Any) -> Iterator[Callable[..., Running]]:
    """Start studios for a test; each is stopped after it."""
    import uvicorn

    from trackkit.studio.app import create_app, local_hosts
    from trackkit.studio.server import open_studio

    servers: list[tuple[Any, threading.Thread]] = []

    def start(path: Path | None, series: str = "dirt") -> Running:
        ready = open_studio(path, series=series, host="127.0.0.1", port=0)  # type: ignore[arg-type]
        box: list[uvicorn.Server] = []
        app = create_app(
            ready.session,
            token=ready.token,
            hosts=local_hosts(ready.port),
            closing=lambda: bool(box) and box[0].should_exit,
        )
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
        server = uvicorn.Server(config)
        box.append(server)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [ready.sock]}, daemon=True)
        thread.start()
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.02)
        servers.append((server, thread))
        return Running(ready.url, ready.token, ready.session, path)

    yield start
    driver.get("about:blank")  # the page's event stream ends with it
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)


# --- driving the page ----------------------------------------------------------------


def wait(d: Any, test: Callable[[], Any], what: str) -> Any:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        value = test()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def revision(d: Any) -> int:
    return int(d.execute_script("return document.body.dataset.revision || '-1'"))


def open_page(d: Any, running: Running) -> None:
    d.get("about:blank")
    d.get(running.url)
    wait(d, lambda: d.execute_script("return document.body.dataset.ready === '1'"), "the page")


def changed(d: Any, before: int) -> None:
    wait(d, lambda: revision(d) > before, "the page to update")


def answers(d: Any) -> int:
    return int(d.execute_script("return document.body.dataset.answers || '0'"))


def answered(d: Any, before: int) -> None:
    wait(d, lambda: answers(d) > before, "the server's answer")


def click(d: Any, css: str) -> None:
    """Click the element ``css`` names, once it is shown (found again if the page redrew
    it meanwhile)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        el = wait(d, lambda: _shown(d, css), css)
        try:
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
            el.click()
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError(f"{css} kept being redrawn")


def _shown(d: Any, css: str) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        found = [e for e in d.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]
    except StaleElementReferenceException:
        return None
    return found[0] if found else None


def pick(d: Any, face: str) -> None:
    """Find a face in the palette by its id and click it: it goes on the road end."""
    from selenium.webdriver.common.by import By

    box = d.find_element(By.ID, "f-id")
    box.clear()
    box.send_keys(face)
    before = revision(d)
    click(d, f'[data-face="{face}"]')
    changed(d, before)


def press(d: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    before = revision(d)
    ActionChains(d).send_keys(key).perform()
    changed(d, before)


def select_tile(d: Any, svg_id: str) -> None:
    d.execute_script(
        "document.getElementById(arguments[0])"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}))",
        svg_id,
    )
    wait(d, lambda: _shown(d, "#selection"), "the selected tile's panel")


def findings(d: Any) -> list[str]:
    return d.execute_script(  # type: ignore[no-any-return]
        "return [...document.querySelectorAll('#findings .finding')].map(e => e.dataset.code)"
    )


def status(d: Any) -> str:
    return d.execute_script("return document.getElementById('status').textContent")  # type: ignore[no-any-return]


def shot(d: Any, shots: Path, name: str) -> None:
    for width, height in ((1366, 768), (1920, 1080)):
        screen(d, width, height)
        time.sleep(0.3)
        d.save_screenshot(str(shots / f"{name}-{width}x{height}.png"))
    screen(d, 1366, 768)


def no_page_errors(d: Any) -> None:
    severe = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe


# --- the tests -----------------------------------------------------------------------


def test_build_a_dirt_stage_by_clicking_and_save_it(
    driver: Any, studio: Callable[..., Running], tmp_path: Path, shots: Path
) -> None:
    # rule: BOARD-1, BOARD-3 (tiles snap onto the road; a start first, a finish last)
    d = driver
    path = tmp_path / "new-stage.yaml"
    running = studio(path)
    open_page(d, running)
    assert d.execute_script("return document.querySelectorAll('.target.end').length") == 1
    for face in ("202a", "205a", "217a", "206a"):
        pick(d, face)
    assert "S107" in findings(d)  # no finish yet: the finding is there
    assert "error" in status(d)
    pick(d, "203a")
    assert "S107" not in findings(d) and findings(d) == []  # ... and gone
    assert status(d).startswith("valid")
    assert d.execute_script("return document.querySelectorAll('#map-svg g.tile').length") == 5
    shot(d, shots, "dirt-stage")
    before = answers(d)
    click(d, "#save")
    answered(d, before)
    wait(d, lambda: not _shown(d, "#dirty"), "the saved mark")
    assert path.read_text("utf-8") == (
        "format: trackkit-stage/1\n"
        "name: Untitled stage\n"
        "ruleset: dirt\n"
        "tiles:\n"
        "- tile: 202a\n"
        "- tile: 205a\n"
        "- tile: 217a\n"
        "  turn: left\n"
        "- tile: 206a\n"
        "- tile: 203a\n"
    )
    no_page_errors(d)


STAGE = """\
# A stage with a tile placed by hand the wrong way round.
format: trackkit-stage/1
name: Hand placed
tiles:
  - tile: 202a        # start
  - tile: 205a
    at: [1, 0]
    dir: 1            # turned away: S102
  - tile: 203a        # finish
"""


def test_a_finding_is_shown_on_the_map_and_its_fix_applied(
    driver: Any, studio: Callable[..., Running], tmp_path: Path, shots: Path
) -> None:
    # rule: BOARD-1 (roads meet edge to edge)
    d = driver
    path = tmp_path / "hand.yaml"
    path.write_text(STAGE, encoding="utf-8")
    running = studio(path)
    open_page(d, running)
    assert "S102" in findings(d)
    click(d, '#findings .finding[data-code="S102"]')
    wait(d, lambda: d.execute_script("return document.querySelector('.mark-hex') !== null"), "mark")
    assert d.execute_script("return document.querySelector('.selected-hex') !== null")
    shot(d, shots, "finding")
    before = revision(d)
    click(d, '#findings .finding[data-code="S102"] .apply')
    changed(d, before)
    assert "S102" not in findings(d) and status(d).startswith("valid")
    before = answers(d)
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(d).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()
    answered(d, before)
    fixed = running.state()["tiles"][1]["dir"]
    assert path.read_text("utf-8") == STAGE.replace("dir: 1 ", f"dir: {fixed} ")
    no_page_errors(d)


def test_a_hillclimb_with_a_token_raced_and_printed(
    driver: Any, studio: Callable[..., Running], tmp_path: Path, shots: Path
) -> None:
    # rule: HILLCLIMB-1, CLIMB-7 (a climb tile makes a hillclimb; oxygen 1..3)
    d = driver
    path = tmp_path / "climb.yaml"
    running = studio(path)
    open_page(d, running)
    for face in ("202a", "418a", "205a", "203a"):
        pick(d, face)
    assert findings(d) == ["H402", "H404"]  # the climb tile is driven downhill
    select_tile(d, "tile-2")
    press(d, "r")  # ... the other way round: uphill
    assert findings(d) == ["H404"]
    before = revision(d)
    click(d, '#findings .finding[data-code="H404"] .apply')
    changed(d, before)
    assert findings(d) == []
    select_tile(d, "tile-3")
    click(d, "#sel-tokens summary")
    d.execute_script("document.getElementById('token-kind').value = 'oxygen'")
    d.find_element("id", "token-value").send_keys("2")
    before = revision(d)
    click(d, "#token-add")
    changed(d, before)
    assert running.state()["tiles"][2]["tokens"] == [{"token": "oxygen", "value": 2}]
    # race it: the report and the heat map come back
    click(d, '.tab[data-tab="race"]')
    races = d.find_element("id", "r-races")
    races.clear()
    races.send_keys("6")
    click(d, "#simulate")
    wait(
        d,
        lambda: d.execute_script("return document.getElementById('sim-report').textContent"),
        "report",
    )
    report = d.execute_script("return document.getElementById('sim-report').textContent")
    assert report.startswith("6 races") and "hillclimb" in report
    assert d.execute_script("return document.querySelector('#map-svg .heat-scale') !== null")
    shot(d, shots, "race")
    click(d, "#heat-close")
    href = d.execute_script("return document.querySelector('[data-paper=a4]').href")
    with urllib.request.urlopen(href, timeout=30) as res:
        assert res.read(4) == b"%PDF"
    click(d, "#save")
    wait(d, lambda: path.exists(), "the saved file")
    text = path.read_text("utf-8")
    assert "kind: hillclimb" in text and "tokens: [{token: oxygen, value: 2}]" in text
    no_page_errors(d)


def test_build_a_gt_circuit_by_clicking_and_turning_bends(
    driver: Any, studio: Callable[..., Running], tmp_path: Path, shots: Path
) -> None:
    # rule: BOARD-3 (a GT circuit is a closed lap)
    d = driver
    path = tmp_path / "oval.rekee.json"
    running = studio(path, "gt")
    open_page(d, running)
    for spec in GT_OVAL:
        pick(d, spec["tile"])
        last = running.state()["tiles"][-1]
        if spec.get("turn") and last["turn"] != spec["turn"]:
            select_tile(d, last_svg(running))
            press(d, "r")  # the bend the other way round
    assert status(d).startswith("valid"), findings(d)
    assert d.execute_script("return document.querySelectorAll('.target.end').length") == 0
    shot(d, shots, "gt-circuit")
    click(d, "#save")
    wait(d, lambda: path.exists(), "the saved file")
    doc = json.loads(path.read_text("utf-8"))
    assert [t["id"] for t in doc["tiles"]] == [s["tile"] for s in GT_OVAL]
    from trackkit.checks.pipeline import validate
    from trackkit.formats import load_stage

    assert validate(load_stage(path)).valid
    no_page_errors(d)


def last_svg(running: Running) -> str:
    return str(running.state()["tiles"][-1]["svg"])


def test_the_page_follows_the_file_edited_elsewhere_and_escapes_names(
    driver: Any, studio: Callable[..., Running], tmp_path: Path
) -> None:
    d = driver
    path = tmp_path / "watched.yaml"
    path.write_text(STAGE, encoding="utf-8")
    running = studio(path)
    open_page(d, running)
    before = revision(d)
    hostile = "<img src=x onerror=alert(1)> & <b>bold</b>"
    path.write_text(STAGE.replace("Hand placed", json.dumps(hostile)), encoding="utf-8")
    changed(d, before)  # file watching: the page updates without a reload
    name = d.execute_script("return document.getElementById('stage-name').textContent")
    assert name == hostile  # shown as text
    assert (
        d.execute_script("return document.querySelectorAll('img[src=x], #stage-name *').length")
        == 0
    )
    # hovering a space tells what it is
    d.execute_script(
        "const s = document.querySelector('#map-svg [data-node]');"
        "const r = s.getBoundingClientRect();"
        "s.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.x + r.width / 2,"
        " clientY: r.y + r.height / 2}))"
    )
    tip = wait(d, lambda: _shown(d, "#tooltip"), "the tooltip")
    assert tip.text.startswith("space 1:")
    no_page_errors(d)

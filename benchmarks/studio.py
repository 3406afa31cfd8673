"""``trackkit studio`` benchmark (issue 21; run with ``make bench``; no network).

Target on the 2-core reference machine: a stage of 30 tiles updates within 150 ms of the
click. An edit is a tile turned (the page's R key) on a 30-tile DIRT stage and a 30-tile
GT circuit: the server applies it, validates the stage, draws the map, and answers with
the map, the findings and the summary. Measured three ways, median of the runs:

- server: the edit in-process (:meth:`trackkit.studio.session.Session.edit`), wall and CPU
  seconds (on a machine others keep busy, the CPU figure is the one to compare);
- HTTP: ``POST /api/edit`` to a real server (uvicorn on 127.0.0.1), answer read and parsed;
- page (when Chromium and chromedriver are installed): from the key press in headless
  Chromium to the page drawn again (map, findings and summary in place), as the page
  measures it itself (``document.body.dataset.updateMs``).
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import gt_circuit, zigzag_stage

TILES = 30
TARGET_S = 0.150
RUNS = 21


def _stage_file(folder: Path, data: dict[str, Any], name: str) -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _times(
    work: Callable[[int], Any], runs: int, clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    times = []
    for i in range(runs):
        start = clock()
        work(i)
        times.append(clock() - start)
    return times


def _turn(i: int) -> dict[str, Any]:
    """The i-th edit: tile 10 turned one way, then back."""
    return {"op": "rotate", "tile": 10, "steps": 1 if i % 2 == 0 else -1}


def bench_server(path: Path, runs: int = RUNS, *, cpu: bool = False) -> list[float]:
    """Seconds for the session to apply an edit and make the new view (``cpu``: the CPU
    seconds of this process, which other programs on a busy machine do not inflate)."""
    from trackkit.studio.session import Session

    session = Session(path)
    session.edit(_turn(0))  # warm caches: faces cut into spaces once per process
    session.edit(_turn(1))
    clock = time.process_time if cpu else time.perf_counter
    return _times(lambda i: session.edit(_turn(i)), runs, clock)


class _Server:
    """A studio served by uvicorn in a thread, for the HTTP and page figures."""

    def __init__(self, path: Path) -> None:
        import uvicorn

        from trackkit.studio.app import create_app, local_hosts
        from trackkit.studio.server import open_studio

        self.studio = open_studio(path, host="127.0.0.1", port=0)
        box: list[uvicorn.Server] = []
        app = create_app(
            self.studio.session,
            token=self.studio.token,
            hosts=local_hosts(self.studio.port),
            watch=False,
            closing=lambda: bool(box) and box[0].should_exit,
        )
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        box.append(self.server)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.studio.sock]}, daemon=True
        )
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.studio.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def bench_http(server: _Server, runs: int = RUNS) -> list[float]:
    """Seconds from sending ``POST /api/edit`` to the answer read and parsed."""

    def work(i: int) -> None:
        req = urllib.request.Request(
            f"{server.base}/api/edit",
            data=json.dumps(_turn(i)).encode(),
            headers={"Content-Type": "application/json", "X-Studio-Token": server.studio.token},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=30) as res:
            json.loads(res.read())

    work(0)
    work(1)
    return _times(work, runs)


def bench_page(server: _Server, runs: int = RUNS) -> list[float] | None:
    """Seconds from the key press that turns a tile to the page drawn again, in headless
    Chromium (None when Chromium or chromedriver is not installed)."""
    chromium, driver_exe = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_exe is None:
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="trackkit-bench-")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ):
        opts.add_argument(flag)
    d = webdriver.Chrome(service=Service(driver_exe), options=opts)
    try:
        d.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1366, "height": 768, "deviceScaleFactor": 1, "mobile": False},
        )
        d.get(server.studio.url)
        while not d.execute_script("return document.body.dataset.ready === '1'"):
            time.sleep(0.05)
        svg_id = server.studio.session.view()["tiles"][10]["svg"]
        d.execute_script(
            "document.getElementById(arguments[0]).dispatchEvent("
            "new MouseEvent('click', {bubbles: true}))",
            svg_id,
        )
        times = []
        for i in range(runs + 2):
            before = int(d.execute_script("return document.body.dataset.revision"))
            key = "r" if i % 2 == 0 else "R"
            d.execute_script(
                "document.dispatchEvent(new KeyboardEvent('keydown', "
                "{key: arguments[0], shiftKey: arguments[0] === 'R', bubbles: true}))",
                key,
            )
            while int(d.execute_script("return document.body.dataset.revision")) <= before:
                time.sleep(0.005)
            if i >= 2:  # the first two warm the page
                times.append(int(d.execute_script("return document.body.dataset.updateMs")) / 1000)
        return times
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    """Run the studio benchmark and print the figures against the target."""
    with tempfile.TemporaryDirectory() as tmp:
        stages = [
            (f"DIRT stage, {TILES} tiles", _stage_file(Path(tmp), zigzag_stage(TILES), "d.json")),
            (f"GT circuit, {TILES} tiles", _stage_file(Path(tmp), gt_circuit(TILES), "g.json")),
        ]
        for label, path in stages:
            rows: list[tuple[str, list[float] | None]] = [
                ("server: edit -> validated map, findings, summary", bench_server(path)),
                ("server, CPU time of the same", bench_server(path, cpu=True)),
            ]
            server = _Server(path)
            try:
                rows.append(("HTTP: POST /api/edit -> answer parsed", bench_http(server)))
                rows.append(("page: key press -> page drawn (Chromium)", bench_page(server)))
            finally:
                server.stop()
            for name, times in rows:
                if times is None:
                    print(f"studio, {label}, {name}: skipped (no chromium/chromedriver)")
                    continue
                median = statistics.median(times)
                verdict = "ok" if median < TARGET_S else "SLOW"
                print(
                    f"studio, {label}, {name}: median {median * 1000:.0f} ms, best "
                    f"{min(times) * 1000:.0f} ms (target < {TARGET_S * 1000:.0f} ms) {verdict}"
                )


if __name__ == "__main__":
    main()

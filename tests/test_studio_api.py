"""``trackkit studio``'s web API, through Starlette's test client: every edit, undo and redo,
saving and conflicts, racing, printing, exporting, bad requests, and the guard (token,
Host and Origin checks, body cap, escaping)."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from stagekit import GT_OVAL, REPO
from starlette.testclient import TestClient

from trackkit.studio.app import MAX_BODY, create_app, local_hosts
from trackkit.studio.session import EventHub, Session

PORT = 8420
BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "test-token-0123456789abcdef"
AUTH = {"X-Studio-Token": TOKEN}


def client_for(session: Session) -> TestClient:
    app = create_app(session, token=TOKEN, hosts=local_hosts(PORT), watch=False)
    return TestClient(app, base_url=BASE)


@pytest.fixture
def new_dirt() -> Iterator[TestClient]:
    with client_for(Session(None, series="dirt")) as client:
        yield client


def post(client: TestClient, path: str, body: Any = None, **kw: Any) -> Any:
    res = client.post(path, json=body, headers={**AUTH, **kw.pop("headers", {})}, **kw)
    assert res.status_code == 200, res.text
    return res.json()


def edit(client: TestClient, **body: Any) -> dict[str, Any]:
    return post(client, "/api/edit", body)  # type: ignore[no-any-return]


def refused(client: TestClient, path: str, body: Any, status: int = 400) -> str:
    res = client.post(path, json=body, headers=AUTH)
    assert res.status_code == status, res.text
    return str(res.json()["error"])


def codes(view: dict[str, Any]) -> list[str]:
    return [f["code"] for f in view["findings"]]


def build(client: TestClient, *faces: str) -> dict[str, Any]:
    view: dict[str, Any] = {}
    for face in faces:
        view = edit(client, op="place", face=face, end="exit")
    return view


# --- the guard -----------------------------------------------------------------------


def test_every_request_needs_the_token(new_dirt: TestClient) -> None:
    for path in ("/", "/static/studio.js", "/api/state", "/api/faces", "/api/face/202a.svg"):
        assert new_dirt.get(path).status_code == 403
        assert new_dirt.get(path, params={"token": "wrong"}).status_code == 403
        assert new_dirt.get(path, params={"token": TOKEN}).status_code == 200
    assert new_dirt.post("/api/edit", json={"op": "delete", "tile": 0}).status_code == 403
    page = new_dirt.get("/", params={"token": TOKEN}).text
    assert f'content="{TOKEN}"' in page and f"studio.js?token={TOKEN}" in page


def test_a_foreign_host_is_refused_dns_rebinding(new_dirt: TestClient) -> None:
    for host in ("evil.example", f"evil.example:{PORT}", "127.0.0.1:9999"):
        res = new_dirt.get("/api/state", headers={**AUTH, "Host": host})
        assert res.status_code == 403, host
    for host in (f"localhost:{PORT}", f"127.0.0.1:{PORT}", f"[::1]:{PORT}"):
        assert new_dirt.get("/api/state", headers={**AUTH, "Host": host}).status_code == 200


def test_cross_site_requests_are_refused(new_dirt: TestClient) -> None:
    body = {"op": "place", "face": "202a", "end": "exit"}
    bad = new_dirt.post("/api/edit", json=body, headers={**AUTH, "Origin": "http://evil.example"})
    assert bad.status_code == 403
    bad = new_dirt.post("/api/edit", json=body, headers={**AUTH, "Sec-Fetch-Site": "cross-site"})
    assert bad.status_code == 403
    assert new_dirt.get("/api/state", headers=AUTH).json()["stage"]["tiles"] == 0
    ok = new_dirt.post("/api/edit", json=body, headers={**AUTH, "Origin": BASE})
    assert ok.status_code == 200 and ok.json()["stage"]["tiles"] == 1


def test_request_bodies_are_capped(new_dirt: TestClient) -> None:
    big = b'{"op": "set", "field": "name", "value": "' + b"x" * MAX_BODY + b'"}'
    res = new_dirt.post(
        "/api/edit", content=big, headers={**AUTH, "Content-Type": "application/json"}
    )
    assert res.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        for _ in range(5):
            yield b" " * (MAX_BODY // 2)

    res = new_dirt.post("/api/edit", content=chunks(), headers=AUTH)
    assert res.status_code == 413
    assert new_dirt.get("/api/state", headers=AUTH).status_code == 200  # the server goes on


def test_answers_carry_a_content_security_policy(new_dirt: TestClient) -> None:
    for res in (
        new_dirt.get("/", params={"token": TOKEN}),
        new_dirt.get("/api/state", headers=AUTH),
        new_dirt.get("/api/state"),  # a refusal too
    ):
        assert "script-src 'self'" in res.headers["content-security-policy"]
        assert res.headers["x-frame-options"] == "DENY"


def test_bad_requests_get_a_message_and_the_server_goes_on(new_dirt: TestClient) -> None:
    res = new_dirt.post("/api/edit", content=b"{not json", headers=AUTH)
    assert res.status_code == 400 and "not JSON" in res.json()["error"]
    assert "op" in refused(new_dirt, "/api/edit", {"op": "explode"})
    # the page sends edits, never paths or file contents
    assert "path" in refused(new_dirt, "/api/edit", {"op": "delete", "tile": 0, "path": "/etc/x"})
    assert "unknown tile" in refused(
        new_dirt, "/api/edit", {"op": "place", "face": "999z", "end": "exit"}
    )
    assert "no tile 4" in refused(new_dirt, "/api/edit", {"op": "delete", "tile": 3})
    assert "nothing to undo" in refused(new_dirt, "/api/undo", None)
    assert "laps" in refused(new_dirt, "/api/edit", {"op": "set", "field": "laps", "value": "many"})
    assert new_dirt.get("/api/state", headers=AUTH).json()["revision"] == 0


def test_hostile_names_are_escaped_in_the_map(new_dirt: TestClient) -> None:
    build(new_dirt, "202a", "203a")
    view = edit(new_dirt, op="set", field="name", value="<script>alert(1)</script>&")
    assert view["stage"]["name"] == "<script>alert(1)</script>&"  # data: the page shows it as text
    assert "<script" not in view["svg"] and "&lt;script&gt;" in view["svg"]
    page = new_dirt.get("/", params={"token": TOKEN}).text
    assert "alert(1)" not in page  # the page holds no stage data, only its own script
    assert "innerHTML" not in new_dirt.get("/static/studio.js", params={"token": TOKEN}).text


# --- edits ---------------------------------------------------------------------------


def test_a_five_tile_dirt_stage_built_by_placing_faces(new_dirt: TestClient) -> None:
    # rule: BOARD-1, BOARD-3 (tiles snap onto the road; a start first, a finish last)
    view = edit(new_dirt, op="place", face="202a", end="exit")
    # rule: BOARD-3 (no finish yet: the road leads nowhere)
    assert codes(view) == ["S107", "S113"] and next(t["kind"] for t in view["targets"]) == "end"
    view = build(new_dirt, "205a", "217a", "206a")
    assert codes(view) == ["S107", "S113"]
    view = build(new_dirt, "203a")
    assert view["summary"]["valid"] and view["stage"]["tiles"] == 5
    assert [t["face"] for t in view["tiles"]] == ["202a", "205a", "217a", "206a", "203a"]
    assert not [t for t in view["targets"] if t["kind"] == "end"]  # start and finish: no open end
    assert view["svg"].count('class="tile ') == 5
    assert view["summary"]["lines"][0].startswith("5 tiles")


def test_a_gt_circuit_closes_by_placing_faces() -> None:
    # rule: BOARD-3 (a GT circuit is a closed lap)
    with client_for(Session(None, series="gt")) as client:
        view: dict[str, Any] = {}
        for spec in GT_OVAL:
            view = edit(client, op="place", face=spec["tile"], end="exit")
            placed = view["tiles"][-1]
            if spec.get("turn") and placed["turn"] != spec["turn"]:
                view = edit(client, op="rotate", tile=placed["tile"], steps=1)
                assert view["tiles"][-1]["turn"] == spec["turn"]
        assert view["summary"]["valid"], codes(view)
        assert view["stage"]["series"] == "gt" and view["stage"]["circuit"]
        assert not [t for t in view["targets"] if t["kind"] == "end"]  # the lap is closed


def test_place_before_the_first_tile(new_dirt: TestClient) -> None:
    build(new_dirt, "205a", "203a")
    view = edit(new_dirt, op="place", face="202a", end="entry")
    assert [t["face"] for t in view["tiles"]][:3] == ["202a", "205a", "203a"]
    assert view["summary"]["valid"], codes(view)


def test_rotate_a_snapped_bend_takes_the_other_way(new_dirt: TestClient) -> None:
    view = build(new_dirt, "202a", "217a")
    before = view["tiles"][1]["dir"]
    view = edit(new_dirt, op="rotate", tile=1, steps=1)
    after = view["tiles"][1]
    assert after["dir"] != before and not after["explicit"]  # still snapped, entered the other way
    assert [t["hex"] for t in view["tiles"]][1] == [1, 0]


def test_rotate_a_tile_placed_by_hand_turns_it_on_its_hex(new_dirt: TestClient) -> None:
    build(new_dirt, "202a", "203a")
    view = edit(new_dirt, op="place", face="902a", at=[1, 1])
    scenery = view["tiles"][2]
    assert scenery["role"] == "beside" and scenery["dir"] == 0
    view = edit(new_dirt, op="rotate", tile=2, steps=-1)
    assert view["tiles"][2]["dir"] == 5 and view["tiles"][2]["hex"] == [1, 1]


def test_flip_move_delete_and_tokens(new_dirt: TestClient) -> None:
    build(new_dirt, "202a", "205a", "203a")
    view = edit(new_dirt, op="flip", tile=1)
    assert view["tiles"][1]["face"] == "205b"
    view = edit(new_dirt, op="move", tile=1, to=[4, 4])
    assert view["tiles"][1]["hex"] == [4, 4] and "S102" in codes(view)
    view = post(new_dirt, "/api/undo")
    assert view["tiles"][1]["hex"] == [1, 0] and view["redo"] == "move 205b"
    view = edit(new_dirt, op="add_token", tile=1, token="water")
    assert view["tiles"][1]["tokens"] == [{"token": "water"}]
    view = edit(new_dirt, op="add_token", tile=1, token="oxygen", value=7)
    assert "R202" in codes(view)  # rule: CLIMB-7 (oxygen is 1, 2 or 3)
    view = edit(new_dirt, op="remove_token", tile=1, index=1)
    assert "R202" not in codes(view) and len(view["tiles"][1]["tokens"]) == 1
    view = edit(new_dirt, op="delete", tile=1)
    assert [t["face"] for t in view["tiles"]] == ["202a", "203a"] and view["summary"]["valid"]


def test_set_the_stage_keys(new_dirt: TestClient) -> None:
    build(new_dirt, "202a", "418a", "203a")
    view = edit(new_dirt, op="set", field="name", value="Col")
    assert view["stage"]["name"] == "Col"
    assert "H404" in codes(view)  # rule: HILLCLIMB-1 (a climb tile: raced as a hillclimb)
    view = edit(new_dirt, op="set", field="kind", value="rally")
    assert view["stage"]["kind"] == "rally" and "H404" not in codes(view)
    view = edit(new_dirt, op="set", field="boxes", value=["dirt-core"])
    assert "I301" in codes(view) and view["copies"]["202a"] == 0  # 418 is from The Climb
    view = edit(new_dirt, op="set", field="boxes", value=None)
    assert view["stage"]["boxes"] is None and view["copies"] is None


def test_apply_a_findings_fix_then_undo_and_redo(new_dirt: TestClient) -> None:
    # rule: BOARD-1 (roads meet edge to edge)
    build(new_dirt, "202a", "205a", "203a")
    edit(new_dirt, op="move", tile=1, to=[1, 0])  # placed by hand, where it was
    view = edit(new_dirt, op="rotate", tile=1, steps=1)  # ... then turned away
    (miss,) = [f for f in view["findings"] if f["code"] == "S102" and f["edits"]][:1]
    assert miss["edits"][0]["values"]["at"] == [1, 0]
    fixed = edit(new_dirt, op="fix", edit=miss["edits"][0])
    assert fixed["summary"]["valid"] and fixed["undo"] == miss["edits"][0]["label"]
    back = post(new_dirt, "/api/undo")
    assert "S102" in codes(back)
    again = post(new_dirt, "/api/redo")
    assert codes(again) == codes(fixed) and again["redo"] is None


def test_a_finding_shows_where_it_is(new_dirt: TestClient) -> None:
    view = build(new_dirt, "202a", "205a")
    (s107,) = [f for f in view["findings"] if f["code"] == "S107"]
    assert s107["mark"]["svg"] == "tile-2" and len(s107["mark"]["corners"]) == 6
    assert all(n.startswith(("1:", "2:")) for n in view["spaces"])
    space = view["spaces"]["1:1.1L"]
    assert space["tile"] == 1 and "lane 1" in space["lane"] and "BOARD-3" in space["rules"][0]


# --- files ---------------------------------------------------------------------------

STAGE = """\
# my stage: comments stay
format: trackkit-stage/1
name: Mine            # the name
tiles:
  - tile: 202a        # start
  - tile: 205a
"""


def test_save_writes_the_file_in_its_format_keeping_comments(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(STAGE, encoding="utf-8")
    with client_for(Session(path)) as client:
        view = edit(client, op="place", face="203a", end="exit")
        assert view["dirty"] and view["summary"]["valid"]
        view = post(client, "/api/save")
        assert not view["dirty"] and view["notes"] == ["saved mine.yaml"]
    assert path.read_text(encoding="utf-8") == STAGE + "  - tile: 203a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.yaml"]  # nothing else written


def test_a_new_file_named_at_start_is_created_by_save(tmp_path: Path) -> None:
    path = tmp_path / "new.rekee.json"
    with client_for(Session(path, series="dirt")) as client:
        assert client.get("/api/state", headers=AUTH).json()["format"] == "rekee"
        build(client, "202a", "205a", "203a")
        post(client, "/api/save")
    doc = json.loads(path.read_text("utf-8"))
    assert [t["id"] for t in doc["tiles"]] == ["202a", "205a", "203a"]


def test_a_stage_without_a_file_is_exported_not_saved(new_dirt: TestClient, tmp_path: Path) -> None:
    build(new_dirt, "202a", "205a", "203a")
    assert "no file" in refused(new_dirt, "/api/save", None)
    res = new_dirt.get("/api/export", params={"format": "rekee", "token": TOKEN})
    assert res.status_code == 200 and "attachment" in res.headers["content-disposition"]
    assert [t["id"] for t in json.loads(res.text)["tiles"]] == ["202a", "205a", "203a"]
    res = new_dirt.get("/api/export", params={"format": "rgt", "token": TOKEN})
    assert '"TuileId": "205A"' in res.text
    res = new_dirt.get("/api/export", params={"format": "yaml", "token": TOKEN})
    assert yaml.safe_load(res.text)["tiles"][1] == {"tile": "205a"}
    bad = new_dirt.get("/api/export", params={"format": "../../etc", "token": TOKEN})
    assert bad.status_code == 400


def test_print_returns_the_true_scale_pdf(new_dirt: TestClient) -> None:
    build(new_dirt, "202a", "205a", "203a")
    res = new_dirt.get("/api/print", params={"paper": "a4", "token": TOKEN})
    assert res.status_code == 200 and res.content.startswith(b"%PDF")
    assert res.headers["content-type"] == "application/pdf"
    assert new_dirt.get("/api/print", params={"paper": "a9", "token": TOKEN}).status_code == 400


def test_print_draws_the_users_tile_size(new_dirt: TestClient) -> None:
    # the studio prints as 'trackkit print' does: at the size of 'trackkit config tile-size'
    from pypdf import PdfReader

    from trackkit.config import Settings, save_settings

    build(new_dirt, "202a", "205a", "217a", "206a", "203a")

    def pages() -> int:
        res = new_dirt.get("/api/print", params={"paper": "a4", "token": TOKEN})
        assert res.status_code == 200
        return len(PdfReader(io.BytesIO(res.content)).pages)

    standard = pages()
    save_settings(Settings(tile_size=400.0))
    assert pages() > standard  # larger tiles take more sheets


def test_a_file_changed_on_disk_is_a_conflict_on_save(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(STAGE, encoding="utf-8")
    with client_for(Session(path)) as client:
        edit(client, op="place", face="203a", end="exit")
        elsewhere = STAGE.replace("Mine", "Theirs")
        path.write_text(elsewhere, encoding="utf-8")
        res = client.post("/api/save", json={}, headers=AUTH)
        assert res.status_code == 409 and res.json()["conflict"]
        assert path.read_text("utf-8") == elsewhere  # not written over
        view = post(client, "/api/reload")
        assert view["stage"]["name"] == "Theirs" and not view["dirty"]
        assert view["undo"] == "reload mine.yaml"
        view = post(client, "/api/undo")  # back to my edit: keep it and save over theirs
        path.write_text(elsewhere + "# again\n", encoding="utf-8")
        assert client.post("/api/save", json={}, headers=AUTH).status_code == 409
        post(client, "/api/keep")
        post(client, "/api/save")
    assert yaml.safe_load(path.read_text("utf-8"))["tiles"][-1] == {"tile": "203a"}


def test_the_page_follows_the_file_edited_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(STAGE, encoding="utf-8")
    session = Session(path)
    path.write_text(STAGE + "  - tile: 203a\n", encoding="utf-8")
    session.disk_changed()  # what the file watcher calls
    view = session.view()
    assert view["summary"]["valid"] and not view["dirty"] and view["disk"] == "same"
    session.edit({"op": "set", "field": "name", "value": "here"})
    path.write_text(STAGE, encoding="utf-8")
    session.disk_changed()
    assert session.view()["disk"] == "changed" and session.view()["stage"]["name"] == "here"
    path.write_text("not: [a stage", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot reload"):
        session.reload()
    assert session.view()["stage"]["name"] == "here"


def test_the_studio_opens_every_format_the_cli_reads() -> None:
    for name in (
        "col-de-turini.yaml",
        "col-de-turini.rekee.json",
        "hillclimb-pikes.rgt",
        "gt-figure-eight.rekee.json",
        "broken-stage.yaml",
    ):
        view = Session(REPO / "examples" / name).view()
        assert view["tiles"] and view["svg"].startswith("<svg"), name
    assert Session(REPO / "examples" / "hillclimb-pikes.rgt").view()["format"] == "rgt"


def test_an_unusable_file_is_refused_at_start(tmp_path: Path) -> None:
    from trackkit.errors import InputError

    bad = tmp_path / "bad.yaml"
    bad.write_text("tiles: [", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.yaml"):
        Session(bad)
    with pytest.raises(InputError, match="format"):
        Session(tmp_path / "stage.txt")


# --- racing --------------------------------------------------------------------------


def wait_for_simulation(client: TestClient) -> dict[str, Any]:
    for _ in range(600):
        sim = client.get("/api/simulation", headers=AUTH).json()
        if not sim["running"]:
            return sim  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError("the simulation did not end")


def test_simulate_races_in_the_background_and_draws_the_heat_map(new_dirt: TestClient) -> None:
    assert "error" in refused(new_dirt, "/api/simulate", {"races": 5})  # no stage yet
    build(new_dirt, "202a", "205a", "217a", "206a", "203a")
    assert "races" in refused(new_dirt, "/api/simulate", {"races": 10**6})
    assert "bot" in refused(new_dirt, "/api/simulate", {"races": 5, "bots": ["robot"]})
    status = post(new_dirt, "/api/simulate", {"races": 5, "seed": 3})
    assert status["total"] == 5
    sim = wait_for_simulation(new_dirt)
    assert sim["error"] is None and sim["ready"] and not sim["stale"]
    assert sim["text"].startswith("5 races, 4 drivers, seed 3")
    assert "heat-scale" in sim["svg"]
    edit(new_dirt, op="set", field="name", value="changed")
    assert new_dirt.get("/api/simulation", headers=AUTH).json()["stale"]


# --- events --------------------------------------------------------------------------


def test_events_reach_every_page_from_any_thread() -> None:
    hub = EventHub()

    async def main() -> list[tuple[str, Any]]:
        q1, q2 = hub.subscribe(), hub.subscribe()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, hub.publish, "state", {"revision": 3})
        got = [await asyncio.wait_for(q.get(), 2) for q in (q1, q2)]
        hub.unsubscribe(q1)
        assert hub.pages == 1
        return got

    assert asyncio.run(main()) == [("state", {"revision": 3})] * 2


def test_a_change_is_an_event() -> None:
    session = Session(None)
    seen: list[tuple[str, Any]] = []
    session.events.publish = lambda event, data: seen.append((event, data))  # type: ignore[method-assign]
    session.edit({"op": "place", "face": "202a", "end": "exit"})
    assert seen == [("state", {"revision": 1})]


# --- the command ---------------------------------------------------------------------


def test_the_command_prints_its_address_serves_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    path = tmp_path / "mine.yaml"
    path.write_text(STAGE, encoding="utf-8")
    cmd = [sys.executable, "-m", "trackkit", "studio", str(path), "--no-open", "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
        assert lines[0].strip() == f"trackkit studio: {path}"
        address = lines[1].split("open ", 1)[1].strip()
        assert address.startswith("http://127.0.0.1:") and "/?token=" in address
        state = address.replace("/?token=", "/api/state?token=")
        for _ in range(50):
            try:
                with urllib.request.urlopen(state, timeout=5) as res:
                    assert json.loads(res.read())["stage"]["name"] == "Mine"
                break
            except urllib.error.URLError:
                time.sleep(0.1)
        else:
            raise AssertionError("the studio did not answer")
        with pytest.raises(urllib.error.HTTPError) as refused_:
            urllib.request.urlopen(address.split("?")[0] + "api/state", timeout=5)
        assert refused_.value.code == 403
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=20) == 130  # Ctrl-C, as every trackkit command ends on it
        assert proc.stderr is not None
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert path.read_text("utf-8") == STAGE  # nothing saved, nothing written


def test_the_command_refuses_an_unusable_file_and_warns_of_an_open_host(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from trackkit.cli.app import app

    bad = tmp_path / "bad.yaml"
    bad.write_text("tiles: [", encoding="utf-8")
    result = CliRunner().invoke(app, ["studio", str(bad), "--no-open", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "bad.yaml" in result.output and "other machines" in result.output


def test_the_token_is_random_and_the_default_address_this_machine_only(tmp_path: Path) -> None:
    import inspect

    from trackkit.cli.commands.studio import studio
    from trackkit.studio.app import new_token
    from trackkit.studio.server import open_studio

    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and all(len(t) >= 32 for t in tokens)
    assert inspect.signature(studio).parameters["host"].default == "127.0.0.1"
    ready = open_studio(None, port=0)
    try:
        assert ready.sock.getsockname()[0] == "127.0.0.1"
        assert ready.url.startswith("http://127.0.0.1:") and ready.token in ready.url
    finally:
        ready.sock.close()

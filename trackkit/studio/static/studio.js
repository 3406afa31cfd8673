// trackkit studio: the page. Plain JavaScript, no build step, no CDN.
// The server holds the stage; this page sends edits and shows what comes back. Every text
// that comes from the stage or its file is put in the page as text (textContent), never as
// markup; the map is the renderer's own SVG, whose texts the renderer has escaped.
"use strict";

(() => {
  const TOKEN = document.querySelector('meta[name="studio-token"]').content;
  const SVGNS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);

  const state = {
    view: null,
    faces: [],
    bots: [],
    armed: null, // a face picked in the palette, waiting for a hex
    target: null, // the road end or hex chosen for the next face
    selected: null, // the selected tile's place in the stage's list
    moving: false,
    mark: null, // the finding shown on the map
    viewBox: null,
    base: null,
    fitted: true,
    heat: false,
    seriesSet: false,
    sim: null,
    lastUpdateMs: null,
    notes: null,
  };

  // --- talking to the server ----------------------------------------------------------

  function url(path, params = {}) {
    const q = new URLSearchParams({ ...params, token: TOKEN });
    return `${path}?${q}`;
  }

  let answers = 0;
  async function api(method, path, body) {
    const opts = { method, headers: { "X-Studio-Token": TOKEN } };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    if (method === "POST") document.body.dataset.answers = String(++answers);
    let data;
    try {
      data = await res.json();
    } catch (e) {
      data = { error: `the server answered ${res.status}` };
    }
    if (!res.ok) {
      const err = new Error((data && data.error) || `error ${res.status}`);
      err.status = res.status;
      err.data = data;
      throw err;
    }
    return data;
  }

  // Edits in flight: the change they make comes back in their answer, so the event that
  // announces it does not fetch the view a second time (see listen()).
  let inflight = 0;
  let announced = -1;

  async function send(path, body) {
    const started = performance.now();
    inflight += 1;
    try {
      const view = await api("POST", path, body);
      show(view);
      state.lastUpdateMs = Math.round(performance.now() - started);
      document.body.dataset.updateMs = String(state.lastUpdateMs);
      return view;
    } catch (err) {
      if (err.status === 409) {
        showBanner("changed", err.message);
      } else {
        toast(err.message, true);
      }
      return null;
    } finally {
      inflight -= 1;
      if (!inflight && state.view && announced > state.view.revision) refresh();
    }
  }

  async function refresh() {
    try {
      show(await api("GET", "/api/state"));
    } catch (err) {
      toast(err.message, true);
    }
  }

  const edit = (e) => send("/api/edit", e);

  // --- small helpers ------------------------------------------------------------------

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  }

  function svgEl(tag, attrs = {}) {
    const node = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  const points = (corners) => corners.map((p) => p.join(",")).join(" ");

  let toastTimer = null;
  function toast(text, error = false) {
    const t = $("toast");
    t.textContent = text;
    t.className = error ? "toast error" : "toast";
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (t.hidden = true), error ? 6000 : 3000);
  }

  const typing = () => {
    const a = document.activeElement;
    return a && (a.tagName === "INPUT" || a.tagName === "SELECT" || a.tagName === "TEXTAREA");
  };

  // --- showing a view -----------------------------------------------------------------

  function show(view) {
    const first = state.view === null;
    state.view = view;
    if (first && !state.seriesSet && (view.stage.tiles || view.stage.ruleset)) {
      $("f-series").value = view.stage.series;
      state.seriesSet = true;
    }
    if (state.selected !== null && !view.tiles.some((t) => t.tile === state.selected)) {
      state.selected = null;
    }
    if (state.mark !== null && state.mark >= view.findings.length) state.mark = null;
    showBar(view);
    if (!state.heat) renderMap();
    renderFindings(view);
    renderSummary(view);
    renderStageForm(view);
    renderRaceForm(view);
    renderPalette();
    renderSelection();
    renderSim(view.sim);
    if (view.disk === "same" || view.disk === "none") $("banner").hidden = true;
    else showBanner(view.disk);
    const notes = JSON.stringify([view.revision, view.notes]);
    if (notes !== state.notes) for (const note of view.notes || []) toast(note);
    state.notes = notes;
    document.body.dataset.revision = String(view.revision);
  }

  function showBar(view) {
    $("stage-name").textContent = view.stage.name;
    const file = view.file ? `${view.file} · ${view.format}` : `new stage · not saved to a file`;
    $("file-name").textContent = file;
    $("dirty").hidden = !view.dirty;
    const s = view.summary;
    const status = $("status");
    status.className = "status " + (s.valid ? "ok" : "bad");
    status.textContent = s.valid
      ? `valid${s.warnings ? ` · ${s.warnings} warning${s.warnings > 1 ? "s" : ""}` : ""}`
      : `${s.errors} error${s.errors > 1 ? "s" : ""}`;
    $("undo").disabled = !view.undo;
    $("undo").title = view.undo ? `Undo ${view.undo} (Ctrl+Z)` : "Nothing to undo";
    $("redo").disabled = !view.redo;
    $("redo").title = view.redo ? `Redo ${view.redo} (Ctrl+Shift+Z)` : "Nothing to redo";
    const saved = view.file !== null;
    $("save").hidden = !saved;
    $("download").hidden = saved;
    $("download").href = url("/api/export", { format: "yaml" });
    document.title = `${view.dirty ? "● " : ""}${view.stage.name} — trackkit studio`;
  }

  function showBanner(disk, message) {
    const name = (state.view && state.view.file) || "the file";
    const texts = {
      changed: `${name} changed on disk (edited elsewhere). Reload it (undo takes it back), or keep your version: Save then writes over it.`,
      missing: `${name} is gone from disk (deleted or moved). Save writes it again.`,
      unreadable: `${name} on disk cannot be read as a stage now; your version here is kept.`,
    };
    $("banner-text").textContent = message || texts[disk] || "";
    $("banner-reload").hidden = disk !== "changed";
    $("banner-keep").hidden = disk !== "changed";
    $("banner").hidden = false;
  }

  // --- the map ------------------------------------------------------------------------

  function chosenTarget() {
    const targets = state.view ? state.view.targets : [];
    if (state.target) {
      const t = targets.find((x) =>
        state.target.kind === "end"
          ? x.kind === "end" && x.end === state.target.end
          : x.kind === "free" && x.hex[0] === state.target.hex[0] && x.hex[1] === state.target.hex[1]
      );
      if (t) return t;
    }
    return targets.find((x) => x.kind === "end" && x.end === "exit") || null;
  }

  function extent(base, targets) {
    let [x0, y0, w, h] = base;
    let x1 = x0 + w;
    let y1 = y0 + h;
    for (const t of targets) {
      if (t.kind !== "end") continue;
      for (const [x, y] of t.corners) {
        x0 = Math.min(x0, x - 30);
        y0 = Math.min(y0, y - 30);
        x1 = Math.max(x1, x + 30);
        y1 = Math.max(y1, y + 30);
      }
    }
    // a stage of a few tiles is not blown up to fill the screen: at least 4 tiles wide
    const least = 4 * 240;
    if (x1 - x0 < least) {
      const grow = (least - (x1 - x0)) / 2;
      x0 -= grow;
      x1 += grow;
    }
    if (y1 - y0 < least * 0.6) {
      const grow = (least * 0.6 - (y1 - y0)) / 2;
      y0 -= grow;
      y1 += grow;
    }
    return [x0, y0, x1 - x0, y1 - y0];
  }

  function renderMap() {
    const view = state.view;
    const box = $("map");
    const doc = new DOMParser().parseFromString(view.svg, "image/svg+xml");
    const svg = document.importNode(doc.documentElement, true);
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    svg.id = "map-svg";
    const base = svg.getAttribute("viewBox").split(/[\s,]+/).map(Number);
    state.base = extent(base, view.targets);
    const overlay = svgEl("g", { id: "studio-overlay" });
    svg.append(overlay);
    box.replaceChildren(svg);
    if (!view.tiles.length) {
      box.append(
        el("div", {
          class: "empty-hint",
          text: "A new stage. Click a tile in the palette to lay the first one on the green hex.",
        })
      );
    }
    if (state.fitted || !state.viewBox) state.viewBox = state.base.slice();
    applyViewBox();
    drawOverlay();
  }

  function applyViewBox() {
    const svg = $("map-svg");
    if (svg && state.viewBox) svg.setAttribute("viewBox", state.viewBox.map((v) => v.toFixed(2)).join(" "));
  }

  function drawOverlay() {
    const svg = $("map-svg");
    if (!svg) return;
    const overlay = svg.querySelector("#studio-overlay");
    overlay.replaceChildren();
    svg.querySelectorAll(".mark-space").forEach((n) => n.classList.remove("mark-space"));
    const view = state.view;
    const chosen = chosenTarget();
    const size = 240;
    for (const t of view.targets) {
      const cls = ["target", t.kind];
      if (chosen && t.kind === chosen.kind && t.hex[0] === chosen.hex[0] && t.hex[1] === chosen.hex[1]) {
        cls.push("chosen");
      }
      const poly = svgEl("polygon", {
        points: points(t.corners),
        class: cls.join(" "),
        "data-target": t.kind === "end" ? t.end : "free",
        "data-hex": t.hex.join(","),
      });
      overlay.append(poly);
      if (t.kind === "end") {
        const cx = t.corners.reduce((a, p) => a + p[0], 0) / t.corners.length;
        const cy = t.corners.reduce((a, p) => a + p[1], 0) / t.corners.length;
        const label = svgEl("text", {
          x: cx,
          y: cy + size * 0.06,
          "text-anchor": "middle",
          "font-size": size * 0.17,
          class: "target-label",
        });
        label.textContent = "+";
        overlay.append(label);
      }
    }
    if (state.selected !== null) {
      const tile = view.tiles.find((t) => t.tile === state.selected);
      if (tile) overlay.append(svgEl("polygon", { points: points(tile.corners), class: "selected-hex" }));
    }
    if (state.mark !== null) {
      const mark = view.findings[state.mark].mark;
      if (mark.corners) overlay.append(svgEl("polygon", { points: points(mark.corners), class: "mark-hex" }));
      if (mark.edge) {
        const [x1, y1, x2, y2] = mark.edge;
        overlay.append(svgEl("line", { x1, y1, x2, y2, class: "mark-edge" }));
      }
      if (mark.node) {
        const node = svg.querySelector(`[data-node="${CSS.escape(mark.node)}"]`);
        if (node) node.classList.add("mark-space");
      }
    }
    $("map").classList.toggle("placing", state.armed !== null);
    $("map").classList.toggle("moving", state.moving);
  }

  function svgPoint(svg, clientX, clientY) {
    const pt = svg.createSVGPoint();
    pt.x = clientX;
    pt.y = clientY;
    return pt.matrixTransform(svg.getScreenCTM().inverse());
  }

  function zoom(factor, cx, cy) {
    const [x, y, w, h] = state.viewBox;
    if (cx === undefined) {
      cx = x + w / 2;
      cy = y + h / 2;
    }
    const nw = w * factor;
    if (nw < 200 || nw > 40000) return;
    state.viewBox = [cx - (cx - x) * factor, cy - (cy - y) * factor, nw, h * factor];
    state.fitted = false;
    applyViewBox();
  }

  function fit() {
    state.fitted = true;
    if (state.base) state.viewBox = state.base.slice();
    applyViewBox();
  }

  function centreOn(corners) {
    if (!corners || !state.viewBox) return;
    const xs = corners.map((p) => p[0]);
    const ys = corners.map((p) => p[1]);
    const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
    const cy = (Math.min(...ys) + Math.max(...ys)) / 2;
    const svg = $("map-svg");
    if (!svg) return;
    // the part of the view box the screen shows (the box is fitted into it whole)
    const r = svg.getBoundingClientRect();
    const [x, y, w, h] = state.viewBox;
    const k = Math.max(w / r.width, h / r.height);
    const sw = r.width * k;
    const sh = r.height * k;
    const sx = x - (sw - w) / 2;
    const sy = y - (sh - h) / 2;
    const inside =
      Math.min(...xs) >= sx && Math.max(...xs) <= sx + sw && Math.min(...ys) >= sy && Math.max(...ys) <= sy + sh;
    if (inside) return;
    state.viewBox = [cx - w / 2, cy - h / 2, w, h];
    state.fitted = false;
    applyViewBox();
  }

  function tileOfSvg(id) {
    const tiles = state.view.tiles.filter((t) => t.svg === id);
    const first = tiles.find((t) => !t.again) || tiles[0];
    return first ? first.tile : null;
  }

  function onTarget(poly) {
    const kind = poly.dataset.target === "free" ? "free" : "end";
    const hex = poly.dataset.hex.split(",").map(Number);
    const t = state.view.targets.find(
      (x) => x.kind === kind && x.hex[0] === hex[0] && x.hex[1] === hex[1]
    );
    if (!t) return;
    if (state.moving && state.selected !== null) {
      state.moving = false;
      edit({ op: "move", tile: state.selected, to: t.hex });
      return;
    }
    if (state.armed) {
      const face = state.armed;
      state.armed = null;
      state.target = t.kind === "end" ? { kind: "end", end: t.end } : null;
      placeAt(face, t);
      return;
    }
    state.target = t.kind === "end" ? { kind: "end", end: t.end } : { kind: "free", hex: t.hex };
    state.selected = null;
    hint();
    drawOverlay();
    renderSelection();
  }

  function placeAt(face, t) {
    if (t.kind === "end") return edit({ op: "place", face, end: t.end });
    return edit({ op: "place", face, at: t.hex });
  }

  function setupMap() {
    const box = $("map");
    let drag = null;
    box.addEventListener("mousedown", (e) => {
      const svg = $("map-svg");
      if (!svg || e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, box: state.viewBox.slice(), moved: false, svg };
    });
    window.addEventListener("mousemove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 5) return;
      drag.moved = true;
      const [x, y, w, h] = drag.box;
      const r = drag.svg.getBoundingClientRect();
      const k = Math.max(w / r.width, h / r.height);
      state.viewBox = [x - dx * k, y - dy * k, w, h];
      state.fitted = false;
      applyViewBox();
    });
    window.addEventListener("mouseup", () => {
      if (drag && drag.moved) {
        drag.suppress = true;
        setTimeout(() => (drag = null), 0);
      } else {
        drag = null;
      }
    });
    box.addEventListener("click", (e) => {
      if (drag && drag.suppress) return;
      const poly = e.target.closest(".target");
      if (poly) return onTarget(poly);
      const g = e.target.closest("g.tile");
      if (g && g.id) {
        const n = tileOfSvg(g.id);
        if (n !== null) {
          if (state.moving) return;
          state.selected = n;
          state.armed = null;
          renderSelection();
          renderPalette();
          drawOverlay();
          return;
        }
      }
      state.selected = null;
      state.moving = false;
      renderSelection();
      drawOverlay();
    });
    box.addEventListener(
      "wheel",
      (e) => {
        const svg = $("map-svg");
        if (!svg) return;
        e.preventDefault();
        const p = svgPoint(svg, e.clientX, e.clientY);
        zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
      },
      { passive: false }
    );
    box.addEventListener("mousemove", (e) => {
      const node = e.target.closest("[data-node]");
      const tip = $("tooltip");
      box.querySelectorAll(".hover-space").forEach((n) => n !== node && n.classList.remove("hover-space"));
      if (!node || state.heat || !state.view) {
        tip.hidden = true;
        return;
      }
      node.classList.add("hover-space");
      const facts = state.view.spaces[node.dataset.node];
      if (!facts) {
        tip.hidden = true;
        return;
      }
      const head = el("div", {},
        el("b", { text: `space ${node.dataset.node}` }),
        ` · tile ${facts.tile} (${facts.face}) · ${facts.lane}` +
          (facts.limit !== null && facts.limit !== undefined ? ` · limit ${facts.limit}` : "")
      );
      const kinds = { lane: "lane space", slide: "slide space", shortcut: "shortcut space", full: "road-wide space" };
      const what = kinds[facts.kind] || `${facts.kind} space`;
      const sub = el("div", { class: "muted", text: `${what} · ${facts.surface} · ${facts.danger} danger` });
      const rules = el("ul");
      for (const r of facts.rules) rules.append(el("li", { text: r }));
      tip.replaceChildren(head, sub);
      if (facts.rules.length) tip.append(rules);
      const r = $("board").getBoundingClientRect();
      tip.hidden = false;
      const x = Math.min(e.clientX - r.left + 16, r.width - tip.offsetWidth - 8);
      const y = Math.min(e.clientY - r.top + 16, r.height - tip.offsetHeight - 8);
      tip.style.left = `${Math.max(4, x)}px`;
      tip.style.top = `${Math.max(4, y)}px`;
    });
    box.addEventListener("mouseleave", () => ($("tooltip").hidden = true));
    $("zoom-in").addEventListener("click", () => zoom(1 / 1.25));
    $("zoom-out").addEventListener("click", () => zoom(1.25));
    $("zoom-fit").addEventListener("click", fit);
  }

  // --- findings and summary -----------------------------------------------------------

  function renderFindings(view) {
    const list = $("findings");
    list.replaceChildren();
    if (!view.findings.length) {
      list.append(el("li", { class: "none", text: "No findings: the stage is legal." }));
    }
    view.findings.forEach((f, i) => {
      const item = el(
        "li",
        { class: `finding ${f.severity}${state.mark === i ? " active" : ""}`, "data-code": f.code },
        el("div", { class: "head" },
          el("span", { class: "code", text: f.code }),
          el("span", { class: "where", text: f.where })),
        el("div", { class: "message", text: f.message }),
        el("div", { class: "fix", text: f.fix })
      );
      if (f.edits.length) {
        const row = el("div", { class: "apply-row" });
        for (const e of f.edits) {
          row.append(
            el("button", {
              type: "button",
              class: "apply",
              text: `Apply: ${e.label}`,
              onclick: (ev) => {
                ev.stopPropagation();
                state.mark = null;
                edit({ op: "fix", edit: e });
              },
            })
          );
        }
        item.append(row);
      }
      item.addEventListener("click", () => markFinding(i));
      list.append(item);
    });
  }

  function markFinding(i) {
    state.mark = state.mark === i ? null : i;
    const f = state.view.findings[i];
    if (state.mark !== null && f.mark.tile !== undefined) state.selected = f.mark.tile;
    if (state.heat) closeHeat();
    renderFindings(state.view);
    renderSelection();
    drawOverlay();
    if (state.mark !== null) centreOn(f.mark.corners);
  }

  function renderSummary(view) {
    const s = view.summary;
    const verdict = $("verdict");
    verdict.replaceChildren(
      el("span", { class: `chip ${s.valid ? "ok" : "error"}`, text: s.valid ? "legal" : "not legal yet" }),
      el("span", { class: "chip error", text: `${s.errors} error${s.errors === 1 ? "" : "s"}` }),
      el("span", { class: "chip warning", text: `${s.warnings} warning${s.warnings === 1 ? "" : "s"}` }),
      el("span", { class: "chip info", text: `${view.stage.kind}` })
    );
    const list = $("summary");
    list.replaceChildren();
    for (const line of s.lines) list.append(el("li", { text: line }));
  }

  // --- the stage's own keys -----------------------------------------------------------

  function renderStageForm(view) {
    const st = view.stage;
    const keep = (id, value) => {
      const input = $(id);
      if (document.activeElement !== input) input.value = value === null || value === undefined ? "" : value;
    };
    keep("s-name", st.name);
    keep("s-author", st.author);
    const kinds = st.series === "gt" ? ["circuit", "point-to-point"] : ["rally", "hillclimb"];
    const kind = $("s-kind");
    kind.replaceChildren(el("option", { value: "", text: `not given (checked as ${st.kind})` }));
    for (const k of kinds) kind.append(el("option", { value: k, text: k }));
    if (st.kind_given && !kinds.includes(st.kind_given)) {
      kind.append(el("option", { value: st.kind_given, text: st.kind_given }));
    }
    kind.value = st.kind_given || "";
    $("s-laps-row").hidden = st.series !== "gt";
    keep("s-laps", st.laps);
    $("s-ruleset").value = st.ruleset || "";
    const editor = view.format === "rekee" || view.format === "rgt";
    $("s-editor-note").hidden = !editor;
    $("s-editor-note").textContent = editor
      ? `A ${view.format === "rekee" ? "Rekee" : ".rgt"} file holds tiles and tokens only: the kind, ruleset, laps and boxes set here are checked, but Save cannot keep them (Export as trackkit YAML does).`
      : "";
    renderBoxes(view);
  }

  function renderBoxes(view) {
    const boxes = [...new Set(state.faces.map((f) => f.box))].sort();
    const owned = view.stage.boxes || [];
    const holder = $("s-boxes");
    if (holder.contains(document.activeElement)) return;
    holder.replaceChildren();
    for (const box of boxes) {
      const n = owned.filter((b) => b === box).length;
      holder.append(
        el("span", { text: box }),
        el("input", {
          type: "number",
          min: "0",
          max: "9",
          value: String(n),
          "data-box": box,
          "aria-label": `copies of ${box}`,
          onchange: () => {
            const list = [];
            holder.querySelectorAll("input[data-box]").forEach((input) => {
              const count = Math.max(0, Math.min(9, parseInt(input.value, 10) || 0));
              for (let i = 0; i < count; i++) list.push(input.dataset.box);
            });
            edit({ op: "set", field: "boxes", value: list.length ? list : null });
          },
        })
      );
    }
  }

  function setupStageForm() {
    const onChange = (id, field, read) =>
      $(id).addEventListener("change", () => edit({ op: "set", field, value: read($(id).value) }));
    onChange("s-name", "name", (v) => v);
    onChange("s-author", "author", (v) => v);
    onChange("s-kind", "kind", (v) => v || null);
    onChange("s-laps", "laps", (v) => (v === "" ? null : parseInt(v, 10)));
    onChange("s-ruleset", "ruleset", (v) => v || null);
  }

  // --- the palette --------------------------------------------------------------------

  async function loadFaces() {
    const data = await api("GET", "/api/faces");
    state.faces = data.faces;
    state.bots = data.bots;
    const boxes = [...new Set(state.faces.map((f) => f.box))].sort();
    for (const b of boxes) $("f-box").append(el("option", { value: b, text: b }));
    const shapes = [...new Set(state.faces.flatMap((f) => f.shapes))].sort();
    for (const s of shapes) $("f-shape").append(el("option", { value: s, text: s }));
    const bots = $("r-bots");
    for (const b of state.bots) {
      bots.append(el("label", {}, el("input", { type: "checkbox", value: b, checked: "checked" }), b));
    }
  }

  function shownFaces() {
    const q = $("f-id").value.trim().toLowerCase();
    const series = $("f-series").value;
    const box = $("f-box").value;
    const shape = $("f-shape").value;
    const surface = $("f-surface").value;
    const limit = $("f-limit").value;
    const owned = $("f-owned").checked && state.view && state.view.copies;
    return state.faces.filter(
      (f) =>
        (!q || f.id.toLowerCase().includes(q)) &&
        (!series || f.series === series) &&
        (!box || f.box === box || Object.keys(f.also_in).includes(box)) &&
        (!shape || f.shapes.includes(shape)) &&
        (!surface || f.surface === surface) &&
        (!limit || f.limits.includes(parseInt(limit, 10))) &&
        (!owned || state.view.copies[f.id] !== undefined)
    );
  }

  let paletteKey = null;
  function renderPalette() {
    const holder = $("faces");
    const faces = shownFaces();
    const copies = state.view ? state.view.copies : null;
    const key = JSON.stringify([faces.map((f) => f.id), copies, state.armed]);
    hint();
    if (key === paletteKey) return;
    paletteKey = key;
    holder.replaceChildren();
    if (!faces.length) holder.append(el("div", { class: "none-found", text: "No face passes these filters." }));
    for (const f of faces) {
      const item = el(
        "button",
        {
          type: "button",
          class: `face${state.armed === f.id ? " armed" : ""}`,
          "data-face": f.id,
          title: `${f.id} · ${f.box} · ${f.surface} · ${f.shapes.join(", ")}${f.corners.length ? " · " + f.corners.join(" ") : ""}`,
        },
        el("img", { src: url(`/api/face/${encodeURIComponent(f.id)}.svg`), alt: f.id, loading: "lazy", draggable: "false" }),
        el("span", { class: "id", text: f.id })
      );
      if (copies) {
        const left = copies[f.id];
        if (left === undefined) item.classList.add("empty");
        else item.append(el("span", { class: `left${left <= 0 ? " none" : ""}`, text: `×${left}` }));
      }
      item.addEventListener("click", (e) => pickFace(f, e.shiftKey));
      holder.append(item);
    }
  }

  function hint() {
    const t = chosenTarget();
    let text = "";
    if (state.moving) text = "click an empty hex to move the tile there";
    else if (state.armed) text = `click a road end or an empty hex for ${state.armed}`;
    else if (t && t.kind === "end") text = t.end === "exit" ? "click a face: it goes on the green road end" : "click a face: it goes before the first tile";
    else if (t && t.kind === "free") text = "click a face for the chosen hex";
    else text = "click a face, then a hex";
    $("palette-hint").textContent = text;
  }

  function pickFace(face, arm) {
    const t = chosenTarget();
    if (state.moving) state.moving = false;
    if (!arm && t && (t.kind === "free" || face.road)) {
      if (t.kind === "free") state.target = null;
      placeAt(face.id, t);
      return;
    }
    state.armed = state.armed === face.id ? null : face.id;
    state.selected = null;
    renderSelection();
    renderPalette();
    drawOverlay();
  }

  function setupPalette() {
    for (const id of ["f-id", "f-series", "f-box", "f-shape", "f-surface", "f-limit", "f-owned"]) {
      $(id).addEventListener("input", renderPalette);
      $(id).addEventListener("change", () => {
        if (id === "f-series") state.seriesSet = true;
        renderPalette();
      });
    }
  }

  // --- the selected tile --------------------------------------------------------------

  function renderSelection() {
    const panel = $("selection");
    const view = state.view;
    const tile = view && state.selected !== null ? view.tiles.find((t) => t.tile === state.selected) : null;
    if (!tile) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const name = tile.index ? `tile ${tile.index} · ${tile.face}` : tile.face;
    $("sel-name").textContent = name;
    const how = { road: tile.explicit ? "placed by hand" : "snapped onto the road", beside: "beside the road", undriven: "not driven" };
    $("sel-where").textContent = `hex [${tile.hex.join(", ")}], dir ${tile.dir} · ${how[tile.role]}`;
    const list = $("sel-token-list");
    list.replaceChildren();
    tile.tokens.forEach((tok, i) => {
      const text = tok.value !== undefined ? `${tok.token} ${tok.value}` : tok.token;
      list.append(
        el("span", { class: "token-chip" }, text,
          el("button", {
            type: "button",
            title: "Remove the token",
            text: "×",
            onclick: () => edit({ op: "remove_token", tile: tile.tile, index: i }),
          }))
      );
    });
    $("sel-flip").disabled = !(state.faces.find((f) => f.id === tile.face) || {}).other;
    $("sel-tokens-label").textContent = tile.tokens.length ? `Tokens (${tile.tokens.length})` : "Tokens";
  }

  function act(op, extra = {}) {
    if (state.selected === null) return;
    edit({ op, tile: state.selected, ...extra });
  }

  function setupSelection() {
    $("sel-rotl").addEventListener("click", () => act("rotate", { steps: -1 }));
    $("sel-rotr").addEventListener("click", () => act("rotate", { steps: 1 }));
    $("sel-flip").addEventListener("click", () => act("flip"));
    $("sel-delete").addEventListener("click", () => act("delete"));
    $("sel-move").addEventListener("click", startMove);
    $("token-add").addEventListener("click", () => {
      const value = $("token-value").value;
      act("add_token", { token: $("token-kind").value, value: value === "" ? null : parseInt(value, 10) });
    });
  }

  function startMove() {
    if (state.selected === null) return;
    state.moving = true;
    state.armed = null;
    hint();
    drawOverlay();
  }

  // --- racing -------------------------------------------------------------------------

  function renderRaceForm(view) {
    const gt = view.stage.series === "gt";
    $("r-weather-row").hidden = !gt;
    $("r-laps-row").hidden = !(gt && view.stage.circuit);
    $("simulate").disabled = !view.summary.valid || view.sim.running;
    $("simulate").title = view.summary.valid ? "Race the stage with bots" : "Fix the errors first";
  }

  function renderSim(sim) {
    state.sim = sim;
    $("sim-stop").hidden = !sim.running;
    $("sim-progress").hidden = !sim.running;
    if (sim.running) {
      $("sim-progress").max = sim.total || 1;
      $("sim-progress").value = sim.done;
      $("sim-status").textContent = `racing: ${sim.done} of ${sim.total} races`;
    } else if (sim.error) {
      $("sim-status").textContent = `simulation: ${sim.error}`;
    } else if (sim.ready) {
      $("sim-status").textContent = sim.stale
        ? "The stage changed since these races: simulate again to see it as it is."
        : "";
    }
    $("sim-heat").hidden = !sim.ready;
    $("simulate").disabled = sim.running || !(state.view && state.view.summary.valid);
  }

  async function simulate() {
    const bots = [...$("r-bots").querySelectorAll("input:checked")].map((i) => i.value);
    const num = (id) => ($(id).value === "" ? null : parseInt($(id).value, 10));
    const body = {
      races: num("r-races") || 100,
      players: num("r-players") || 4,
      seed: num("r-seed") || 0,
      bots: bots.length ? bots : state.bots.slice(0, 1),
    };
    if (state.view.stage.series === "gt") {
      body.weather = $("r-weather").value || null;
      if (state.view.stage.circuit) body.laps = num("r-laps");
    }
    $("sim-report").textContent = "";
    try {
      const sim = await api("POST", "/api/simulate", body);
      renderSim(sim);
    } catch (err) {
      toast(err.message, true);
    }
  }

  async function simulationDone() {
    const sim = await api("GET", "/api/simulation");
    renderSim(sim);
    if (sim.text) {
      $("sim-report").textContent = sim.text;
      state.heatSvg = sim.svg;
      state.heatRevision = sim.revision;
      showHeat();
    }
  }

  function showHeat() {
    if (!state.heatSvg) return;
    state.heat = true;
    const doc = new DOMParser().parseFromString(state.heatSvg, "image/svg+xml");
    const svg = document.importNode(doc.documentElement, true);
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.id = "map-svg";
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    $("map").replaceChildren(svg);
    state.viewBox = svg.getAttribute("viewBox").split(/[\s,]+/).map(Number);
    const stale = state.view && state.heatRevision !== state.view.revision;
    const gt = state.view && state.view.stage.series === "gt";
    $("heat-text").textContent = stale
      ? "Heat map of the stage as it was raced (it has changed since)"
      : gt
        ? "Heat map: losses of control per race, rings where cars overtake"
        : "Heat map: losses of control per race";
    $("heat-note").hidden = false;
    $("selection").hidden = true;
  }

  function closeHeat() {
    state.heat = false;
    $("heat-note").hidden = true;
    state.fitted = true;
    renderMap();
    renderSelection();
  }

  // --- events from the server ---------------------------------------------------------

  function listen() {
    const events = new EventSource(url("/api/events"));
    events.addEventListener("state", (e) => {
      const data = JSON.parse(e.data);
      announced = Math.max(announced, data.revision);
      if (inflight) return; // the edit's own answer brings it
      if (!state.view || data.revision !== state.view.revision) refresh();
    });
    events.addEventListener("disk", () => refresh());
    events.addEventListener("progress", (e) => {
      const p = JSON.parse(e.data);
      if (state.sim) renderSim({ ...state.sim, running: true, done: p.done, total: p.total });
    });
    events.addEventListener("sim", () => simulationDone());
    events.addEventListener("hello", (e) => {
      const data = JSON.parse(e.data);
      if (state.view && data.revision !== state.view.revision) refresh();
    });
  }

  // --- keys and buttons ---------------------------------------------------------------

  function setupKeys() {
    document.addEventListener("keydown", (e) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === "s") {
        e.preventDefault();
        save();
        return;
      }
      if (typing()) return;
      if (mod && e.key.toLowerCase() === "z") {
        e.preventDefault();
        send(e.shiftKey ? "/api/redo" : "/api/undo");
        return;
      }
      if (mod && e.key.toLowerCase() === "y") {
        e.preventDefault();
        send("/api/redo");
        return;
      }
      if (mod || e.altKey) return;
      if (e.key === "Escape") {
        state.armed = null;
        state.moving = false;
        state.selected = null;
        state.target = null;
        state.mark = null;
        renderPalette();
        renderSelection();
        renderFindings(state.view);
        drawOverlay();
      } else if (e.key === "r" || e.key === "R") {
        act("rotate", { steps: e.shiftKey ? -1 : 1 });
      } else if (e.key === "f" || e.key === "F") {
        act("flip");
      } else if (e.key === "m" || e.key === "M") {
        startMove();
      } else if (e.key === "Delete" || e.key === "Backspace") {
        act("delete");
      } else if (e.key === "+" || e.key === "=") {
        zoom(1 / 1.25);
      } else if (e.key === "-") {
        zoom(1.25);
      } else if (e.key === "0") {
        fit();
      } else {
        return;
      }
      e.preventDefault();
    });
  }

  function save(force = false) {
    if (!state.view || state.view.file === null) return;
    send("/api/save", { force });
  }

  function setupBar() {
    $("undo").addEventListener("click", () => send("/api/undo"));
    $("redo").addEventListener("click", () => send("/api/redo"));
    $("save").addEventListener("click", () => save());
    $("banner-reload").addEventListener("click", () => send("/api/reload"));
    $("banner-keep").addEventListener("click", () => send("/api/keep"));
    for (const a of document.querySelectorAll("[data-export]")) a.href = url("/api/export", { format: a.dataset.export });
    for (const a of document.querySelectorAll("[data-paper]")) a.href = url("/api/print", { paper: a.dataset.paper });
    for (const menu of document.querySelectorAll("details.menu")) {
      menu.addEventListener("click", (e) => {
        if (e.target.closest("a")) menu.open = false;
      });
    }
    document.addEventListener("click", (e) => {
      for (const menu of document.querySelectorAll("details.menu")) if (!menu.contains(e.target)) menu.open = false;
    });
    for (const tab of document.querySelectorAll(".tab")) {
      tab.addEventListener("click", () => {
        for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t === tab);
        for (const b of document.querySelectorAll(".tab-body")) b.hidden = b.dataset.body !== tab.dataset.tab;
        $("main").classList.toggle("racing", tab.dataset.tab === "race");
      });
    }
    $("simulate").addEventListener("click", simulate);
    $("sim-stop").addEventListener("click", () => api("POST", "/api/simulate/stop").catch(() => {}));
    $("sim-heat").addEventListener("click", showHeat);
    $("heat-close").addEventListener("click", closeHeat);
  }

  async function start() {
    setupBar();
    setupMap();
    setupPalette();
    setupSelection();
    setupStageForm();
    setupKeys();
    try {
      await loadFaces();
      show(await api("GET", "/api/state"));
      listen();
      document.body.dataset.ready = "1";
    } catch (err) {
      toast(`cannot start: ${err.message}`, true);
    }
  }

  start();
})();

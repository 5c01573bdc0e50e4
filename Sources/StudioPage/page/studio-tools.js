"use strict";

// ---- Points and rects dragged on the canvas. Handles sit at the value in canvas points
// (percent of the canvas, so they follow the image's size); a drag shows the value as it
// goes and saves once, when the pointer is released. Values are whole points. A layer with a
// transform (its own or a group's) has its handles where its points are drawn at the frame shown:
// through its placement (GET /api/placements, cairo's six numbers), and a drag is taken back
// through it, so the value moves under the pointer.
function pointValue(value) {
  return Array.isArray(value) && value.length === 2 && value.every((n) => typeof n === "number") ? value : null;
}

function rectValue(value) {
  return value && typeof value === "object" && !Array.isArray(value) &&
    ["x", "y", "width", "height"].every((key) => typeof value[key] === "number") ? value : null;
}

// Whole points, kept inside the parameter's range.
function roundPoint(n, p) {
  n = Math.round(n);
  if (p.min !== null) n = Math.max(n, p.min);
  if (p.max !== null) n = Math.min(n, p.max);
  return n;
}

// Builds the handles when the set of point and rect parameters changes; otherwise moves
// them, so the handle under the pointer is never replaced.
function renderHandles() {
  if (state.pointDrag) return;
  const job = state.job;
  const items = [];
  if (job && job.job && job.valid) {
    const written = template();
    (job.layers || []).forEach((layer, index) => {
      // Only the selected layer's handles (all layers' when none is): many layers' piled up are unreadable.
      if (state.selected !== null && state.selected !== undefined && index !== state.selected) return;
      if (locked(index)) return;
      for (const p of layer.parameters || []) {
        if (p.kind !== "point" && p.kind !== "rect") continue;
        const path = paramPath(layer, p.name);
        // A value each variant fills in is not the template's to drag.
        if (binding(written, path) !== null) continue;
        const given = layer.params[p.name];
        const value = given !== undefined ? given : p.default;
        if (p.kind === "point" ? pointValue(value) : rectValue(value)) {
          items.push({ name: layer.path + ".params." + p.name, p, path, value, layer: index });
        }
      }
    });
  }
  const layout = JSON.stringify([job && job.job ? [job.job.width, job.job.height] : null, items.map((item) => [item.name, item.p.kind])]);
  if (layout !== state.handleLayout) {
    state.handleLayout = layout;
    state.handles = new Map();
    $("handles").textContent = "";
    for (const item of items) state.handles.set(item.name, buildHandle(item));
  }
  for (const item of items) {
    const handle = state.handles.get(item.name);
    [handle.layer, handle.value] = [item.layer, item.value];
  }
  placeHandles();
}

// Puts the handles where their layers are drawn at the frame shown (a frame change needs nothing else),
// asking for the placements of that frame when a layer with a transform has handles.
function placeHandles() {
  if (state.pointDrag || !state.handles) return;
  let placed = false;
  for (const handle of state.handles.values()) {
    handle.map = placementOf(handle.layer);
    handle.show(handle.value);
    placed = placed || state.job.layers[handle.layer].placed;
  }
  if (placed && state.placementsFrame !== state.frame + ":" + state.job.version) loadPlacements();
}

// The placement of layer `index` at the frame shown: [xx, yx, xy, yy, x0, y0]; the identity for a
// layer without a transform or before the placements came; null while the layer is not drawn.
function placementOf(index) {
  if (!state.job.layers[index].placed) return [1, 0, 0, 1, 0, 0];
  const known = state.placements;
  if (!known || known.frame !== state.frame || known.version !== state.job.version) return state.lastPlacements
    ? state.lastPlacements[index] || [1, 0, 0, 1, 0, 0] : [1, 0, 0, 1, 0, 0];
  return known.layers[index];
}

async function loadPlacements() {
  const [frame, version] = [state.frame, state.job.version];
  const asked = frame + ":" + version;
  state.placementsFrame = asked;
  let answer = null;
  try {
    const response = await fetch("/api/placements?frame=" + frame + "&variant=" + state.variant);
    if (response.ok) answer = await response.json();
  } catch (e) { /* the studio is away or busy: asked again below */ }
  // An answer for a frame left meanwhile is dropped (the frame shown now has asked for its own).
  if (state.frame !== frame || state.job.version !== version) return;
  if (!answer) {
    // The handles stay where they were, and the frame is asked for again in a second, not never.
    if (state.placementsFrame === asked) state.placementsFrame = null;
    setTimeout(() => { if (state.placementsFrame === null) placeHandles(); }, 1000);
    return;
  }
  state.placements = { frame, version, layers: answer.layers };
  state.lastPlacements = answer.layers;
  placeHandles();
}

// Where the layer point (x, y) is on the canvas through `map`.
function mapped(map, x, y) { return [map[0] * x + map[2] * y + map[4], map[1] * x + map[3] * y + map[5]]; }

// The layer vector a canvas vector (dx, dy) comes from through `map`'s linear part.
function unmapped(map, dx, dy) {
  const det = map[0] * map[3] - map[2] * map[1];
  if (Math.abs(det) < 1e-12) return [dx, dy];
  return [(map[3] * dx - map[2] * dy) / det, (-map[1] * dx + map[0] * dy) / det];
}

function buildHandle({ name, p, path }) {
  const { width, height } = state.job.job;
  const entry = { value: null, map: [1, 0, 0, 1, 0, 0] };
  // A layer point, placed where the layer draws it; hidden while the layer is not drawn.
  const place = (node, x, y) => {
    node.hidden = entry.map === null;
    if (entry.map === null) return;
    const [cx, cy] = mapped(entry.map, x, y);
    node.style.left = (100 * cx / width) + "%";
    node.style.top = (100 * cy / height) + "%";
  };
  const current = () => entry.value;
  const map = () => entry.map || [1, 0, 0, 1, 0, 0];
  if (p.kind === "point") {
    const handle = pointHandle(name, "point", p.name);
    entry.show = (v) => { entry.value = v; place(handle, v[0], v[1]); handle.firstChild.textContent = p.name + " " + JSON.stringify(v); };
    dragging(handle, current, (start, dx, dy) => [roundPoint(start[0] + dx, p), roundPoint(start[1] + dy, p)], entry.show, path, name, map);
    $("handles").append(handle);
    return entry;
  }
  // The outline is drawn in the layer's points, in a box as large as the canvas turned, scaled and
  // moved as the layer is (CSS's matrix is cairo's six numbers, its translation in the box's pixels).
  const space = el("div", null, "layer-space");
  const outline = el("div", null, "rect-outline");
  outline.dataset.path = name;
  space.append(outline);
  const move = pointHandle(name, "origin", p.name);
  const corner = pointHandle(name, "corner", p.name);
  corner.classList.add("corner");
  entry.show = (r) => {
    entry.value = r;
    const m = map();
    const box = $("handles").getBoundingClientRect();
    const [kx, ky] = [box.width / width || 1, box.height / height || 1];
    space.hidden = entry.map === null;
    space.style.transform = "matrix(" + [m[0], m[1] * ky / kx, m[2] * kx / ky, m[3], m[4] * kx, m[5] * ky].join(",") + ")";
    outline.style.left = (100 * r.x / width) + "%";
    outline.style.top = (100 * r.y / height) + "%";
    outline.style.width = (100 * r.width / width) + "%";
    outline.style.height = (100 * r.height / height) + "%";
    place(move, r.x, r.y);
    place(corner, r.x + r.width, r.y + r.height);
    move.firstChild.textContent = p.name + " " + r.x + ", " + r.y + " · " + r.width + "×" + r.height;
  };
  dragging(move, current, (r, dx, dy) => Object.assign({}, r, { x: roundPoint(r.x + dx, p), y: roundPoint(r.y + dy, p) }), entry.show, path, name, map);
  dragging(corner, current, (r, dx, dy) => Object.assign({}, r,
    { width: roundPoint(Math.max(0, r.width + dx), p), height: roundPoint(Math.max(0, r.height + dy), p) }), entry.show, path, name, map);
  $("handles").append(space, move, corner);
  return entry;
}

function pointHandle(name, part, label) {
  const handle = el("div", null, "handle");
  handle.dataset.path = name;
  handle.dataset.part = part;
  handle.title = name + ": drag to move (whole points)";
  handle.append(el("span", label, "tag"));
  return handle;
}

// `move(start, dx, dy)` is the value after a drag of (dx, dy) layer points from `current()`: the
// pointer's canvas points taken back through the layer's placement `map()`.
function dragging(handle, current, move, show, path, name, map) {
  handle.addEventListener("pointerdown", (event) => {
    const start = current();
    const image = $("frame").getBoundingClientRect();
    const perPixel = state.job.job.width / image.width;
    const drag = { x: event.clientX, y: event.clientY, value: start };
    state.pointDrag = drag;
    const linear = map();
    const at = (e) => move(start, ...unmapped(linear, (e.clientX - drag.x) * perPixel, (e.clientY - drag.y) * perPixel));
    followPointer(handle, event, (e) => {
      drag.value = at(e);
      show(drag.value);
      const row = state.controls.get(name);
      if (row) row.show(drag.value);
    }, (e) => {
      drag.value = at(e);
      state.pointDrag = null;
      // One save per drag, at its end.
      if (JSON.stringify(drag.value) !== JSON.stringify(start)) edit(path, drag.value);
    });
  });
}

// Follows the pointer pressed on `node` (`event`, its pointerdown) until it is released or the
// press is cancelled: `move` with each pointermove, then `end` once.
function followPointer(node, event, move, end) {
  event.preventDefault();
  node.setPointerCapture(event.pointerId);
  const finish = (e) => {
    node.removeEventListener("pointermove", move);
    node.removeEventListener("pointerup", finish);
    node.removeEventListener("pointercancel", finish);
    end(e);
  };
  node.addEventListener("pointermove", move);
  node.addEventListener("pointerup", finish);
  node.addEventListener("pointercancel", finish);
}

// A name for one pointer gesture on a control, unique also against the steps of a history kept
// from before a reload: its saves are one undo step (`record`).
function newGesture() { return "gesture-" + Date.now() + "-" + Math.random(); }

// ---- List and JSON parameters: a text editor that checks its text before saving and
// says where a problem is (line and column in the editor).
function position(text, offset) {
  const before = text.slice(0, offset).split("\n");
  return "line " + before.length + ", column " + (before[before.length - 1].length + 1);
}

// The value of `text`, or a located error.
function parseLocated(text) {
  try { return { value: JSON.parse(text) }; } catch (error) {
    let found = /at (\d+)$/.exec(String(error.message));
    try { locate(text); } catch (located) { found = /at (\d+)$/.exec(String(located.message)) || found; }
    const where = found ? position(text, Number(found[1])) : null;
    return { problems: [(where ? where + ": " : "") + "not JSON: " + error.message] };
  }
}

// What is wrong with `value` for parameter `p`, each with where it is in `text`.
function shapeProblems(p, value, text) {
  let nodes = null;
  try { nodes = locate(text); } catch (e) { nodes = null; }
  const at = (index) => (nodes && nodes.items && nodes.items[index] ? position(text, nodes.items[index].start) + ": " : "");
  const problems = [];
  const list = (what) => { if (!Array.isArray(value)) problems.push("expected " + what + ", got " + JSON.stringify(value)); return Array.isArray(value); };
  if (p.kind === "number list") {
    if (list("a list of numbers [n, …]")) value.forEach((n, index) => {
      if (typeof n !== "number") problems.push(at(index) + "item " + index + " is not a number: " + JSON.stringify(n));
      else if (p.min !== null && n < p.min) problems.push(at(index) + "item " + index + ": " + n + " is below the minimum " + p.min);
      else if (p.max !== null && n > p.max) problems.push(at(index) + "item " + index + ": " + n + " is above the maximum " + p.max);
    });
  } else if (p.kind === "color list") {
    if (list("a list of colours [\"#RRGGBB\", …]")) value.forEach((c, index) => {
      if (typeof c !== "string") problems.push(at(index) + "item " + index + " is not a colour string: " + JSON.stringify(c));
    });
  } else if (p.kind === "events") {
    if (typeof value !== "string" && list("a list of events [{\"time\": s, …}, …] or a file name")) value.forEach((e, index) => {
      if (!e || typeof e !== "object" || Array.isArray(e)) problems.push(at(index) + "event " + index + " is not an object");
      else if (typeof e.time !== "number") problems.push(at(index) + "event " + index + " has no number \"time\" (seconds)");
    });
  }
  return problems;
}

// The editor for a parameter of kind number list, color list, events or json; returns its `show`.
function structuredEditor(p, row, send) {
  const area = el("textarea");
  area.className = "json-editor";
  area.spellcheck = false;
  area.setAttribute("aria-label", p.name);
  const apply = el("button", "Apply");
  apply.title = "check and save (Ctrl+Enter)";
  const problems = el("div", null, "editor-errors");
  problems.dataset.role = "problems";
  const check = () => {
    const parsed = area.value.trim() === "" ? { problems: ["write a value (JSON); the job text can remove it"] } : parseLocated(area.value);
    const found = parsed.problems || shapeProblems(p, parsed.value, area.value);
    problems.textContent = found.join("\n");
    row.classList.toggle("invalid", found.length > 0);
    return found.length === 0 ? parsed.value : undefined;
  };
  const save = () => { const value = check(); if (value !== undefined) send(value); };
  area.addEventListener("input", check);
  area.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); save(); }
  });
  apply.addEventListener("click", save);
  row.append(area, apply, problems);
  row.showIssues = (issues) => { problems.textContent = issues.join("\n"); };
  return (v) => {
    const text = v === undefined || v === null ? "" : JSON.stringify(v);
    area.value = text.length > 60 ? JSON.stringify(v, null, 2) : text;
    area.rows = Math.min(12, area.value.split("\n").length + 1);
    problems.textContent = "";
  };
}

// The validation's issues inside a control's value (`…params.times[2]`) go to its editor.
function showControlIssues(issues) {
  for (const [path, row] of state.controls) {
    if (!row.showIssues) continue;
    const inside = issues.filter((issue) => issue.path && (issue.path.startsWith(path + "[") || issue.path.startsWith(path + ".")));
    if (inside.length) {
      row.classList.add("invalid");
      row.showIssues(inside.map((issue) => issue.path + ": " + issue.message));
    }
  }
}

// ---- Timeline zoom: the tracks are `zoom` times the box's width and scroll sideways; the
// ruler's step follows what is in view. Zooming keeps the playhead where it is on screen.
const ZOOM_FRAME_PIXELS = 24;

function maxZoom() {
  const job = state.job && state.job.job;
  return job ? Math.max(1, job.frameCount * ZOOM_FRAME_PIXELS / Math.max(1, $("tracks").clientWidth)) : 1;
}

function setZoom(zoom) {
  const box = $("tracks");
  const job = state.job && state.job.job;
  if (!job) return;
  zoom = Math.min(Math.max(1, zoom), maxZoom());
  const before = box.scrollWidth;
  const anchor = (state.frame + 0.5) / job.frameCount * before - box.scrollLeft;
  state.zoom = zoom;
  $("tracks-inner").style.width = (zoom * 100) + "%";
  box.scrollLeft = (state.frame + 0.5) / job.frameCount * box.scrollWidth - anchor;
  $("zoom-label").textContent = zoom === 1 ? "whole job" : "×" + (zoom < 10 ? zoom.toFixed(1) : Math.round(zoom));
  renderRuler();
}

// Ticks for the part in view, a round step of seconds (or frames) about a tenth of it apart.
function renderRuler() {
  const job = state.job && state.job.job;
  if (!job) return;
  const box = $("tracks"), ruler = $("ruler");
  const total = box.scrollWidth, seconds = job.frameCount / job.fps;
  const visible = seconds * box.clientWidth / total;
  const steps = [1 / job.fps, 2 / job.fps, 5 / job.fps, 10 / job.fps, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]
    .filter((s) => s * job.fps >= 1).sort((a, b) => a - b);
  const step = steps.find((s) => s >= visible / 10) || 3600;
  const first = Math.floor((seconds * box.scrollLeft / total) / step), last = Math.ceil((seconds * (box.scrollLeft + box.clientWidth) / total) / step);
  ruler.textContent = "";
  for (let k = Math.max(0, first); k <= last && k * step < seconds; k++) {
    const second = k * step;
    // Frames below a tenth of a second, else seconds with the decimals the step needs.
    const label = step < 0.1 ? "f" + Math.round(second * job.fps) : Number(second.toFixed(2)) + "s";
    const tick = el("span", label, "tick");
    tick.style.left = (100 * second / seconds) + "%";
    ruler.append(tick);
  }
}

// Scrolls the tracks so the playhead is in view (playback, steps, Home/End).
function followPlayhead() {
  const box = $("tracks"), job = state.job && state.job.job;
  if (!job || state.zoom === 1) return;
  const x = (state.frame + 0.5) / job.frameCount * box.scrollWidth;
  if (x < box.scrollLeft || x > box.scrollLeft + box.clientWidth) {
    box.scrollLeft = x - box.clientWidth / 4;
    renderRuler();
  }
}

// ---- Save and revert. With autosave on, every valid edit is written (as before); with it
// off, edits stay in the text box (marked unsaved) until Save or Ctrl+S; Revert puts the
// file's text back.
function autosaving() { return $("autosave").checked; }

// An edit of the text box (typed, or made by a control or a handle; `gesture` as `put`'s).
function changed(text, gesture) {
  if (autosaving()) put(text, null, gesture);
  showDirty();
}

function showDirty() {
  const dirty = state.saved !== null && $("source").value !== state.saved;
  $("dirty").hidden = !dirty;
  $("save").disabled = !dirty;
  $("revert").disabled = !dirty;
  document.title = (dirty ? "● " : "") + "RenderFarm Studio";
}

function save() { if ($("source").value !== state.saved) put($("source").value); }

function revert() {
  if (state.saved === null) return;
  setSource(state.saved);
  if (state.job) madeFrom(state.job);
  hideConflict();
  showDirty();
  if (state.job) applyJob(state.job, true);
}

function wireTools() {
  state.zoom = 1;
  state.saves = 0;
  $("zoom-in").addEventListener("click", () => setZoom(state.zoom * 2));
  $("zoom-out").addEventListener("click", () => setZoom(state.zoom / 2));
  $("zoom-fit").addEventListener("click", () => setZoom(1));
  $("tracks").addEventListener("scroll", renderRuler);
  window.addEventListener("resize", () => setZoom(state.zoom));
  const saved = localStorage.getItem("renderfarm-autosave");
  if (saved !== null) $("autosave").checked = saved === "1";
  $("autosave").addEventListener("change", () => {
    localStorage.setItem("renderfarm-autosave", autosaving() ? "1" : "0");
    if (autosaving()) save();
  });
  $("save").addEventListener("click", save);
  $("revert").addEventListener("click", revert);
  window.addEventListener("beforeunload", (event) => {
    if ($("source").value !== state.saved && state.saved !== null) event.preventDefault();
  });
}

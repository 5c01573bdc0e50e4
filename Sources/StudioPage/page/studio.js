"use strict";
const $ = (id) => document.getElementById(id);
const state = {
  job: null, frame: 0, playing: false, loading: false, timer: null,
  // The ETag of the version the text box's text was made from: saves carry it (If-Match);
  // and that version's text, which a conflict's merge takes the page's edit from.
  base: null, baseText: null,
  // The ETag of the newest version any answer carried: a read answered after a newer
  // save's answer is older than what the page shows, and is dropped.
  newest: null,
  // Frame requests are numbered; an answer to any but the newest is dropped.
  ticket: 0,
  variant: 0, generation: 0, view: "fit",
  // What the controls were built for; they are rebuilt only when it changes.
  layout: null, controls: new Map(), dragging: null,
  saving: false, pending: null,
  // The in and out points (frames) playback loops between and the render command names.
  in: null, out: null,
  // The layer (its index in the job's layers) the inspector, the handles and the timeline
  // show; null: every layer.
  selected: undefined,
  // The page's own saved edits, each as the step that takes them back ({from, to}: the file's text
  // after the edit, and before it); undoing one moves its inverse to redo, and back.
  undo: [], redo: [], saved: null,
  // The render queue: {frames, preset, status, …} in the order asked for (`queueRender`).
  queue: [],
};

// The token the printed address carries was turned into this studio's cookie: drop it from
// the address bar (and so from the history and screen shares).
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// Where parameter `name` of `layer` is in the job file (a layer in a group: layers[1].group[0]).
function paramPath(layer, name) {
  return splitPath(layer.path).concat(["params", name]);
}

// The host-level fields of a layer and of the groups holding it, in words: "group: opacity
// 0.5 · this layer: blend multiply, rotation 90°".
function describeFields(links) {
  const parts = links.map((fields, depth) => {
    const words = [];
    if (fields.end !== undefined) words.push("until " + fields.end + " s");
    if (fields.speed !== undefined) words.push("speed " + fields.speed);
    if (fields.loop !== undefined) words.push("loop " + fields.loop + " s");
    if (fields.opacity !== undefined) words.push("opacity " + (typeof fields.opacity === "number" ? fields.opacity : "keyframed"));
    if (fields.blend !== undefined) words.push("blend " + fields.blend);
    if (fields.transform !== undefined) words.push("transform");
    if (fields.mask !== undefined) words.push((fields.mask.invert ? "inverted " : "") + fields.mask.mode + " mask " + fields.mask.layer);
    if (fields.motionBlur !== undefined) words.push("motion blur " + fields.motionBlur.shutterAngle + "°, " + fields.motionBlur.samples + " samples");
    if (fields.style !== undefined) words.push("style: " + styleParts(fields.style).join(", "));
    if (!words.length) return null;
    return (depth === links.length - 1 ? "" : "group: ") + words.join(", ");
  }).filter((part) => part);
  return parts.join(" · ");
}

// The parts of a layer style, in words: "drop shadow, stroke".
function styleParts(style) {
  const names = { dropShadow: "drop shadow", outerGlow: "outer glow", innerGlow: "inner glow", stroke: "stroke",
    blur: "blur", adjust: "colour adjustments" };
  return Object.keys(names).filter((key) => style[key] !== undefined && style[key] !== null).map((key) => names[key]);
}

// ---- The job: load, show, validate and write.
async function loadJob() {
  const response = await fetch("/api/job?variant=" + state.variant);
  if (!response.ok) return;
  const job = await response.json();
  if (!outdated(job)) applyJob(job, false);
}

// An answer older than one the page has shown (a read answered after a newer save's answer).
function outdated(job) { return olderThan(job.etag, state.newest); }

function seen(job) { if (job.etag && !outdated(job)) state.newest = job.etag; }

function applyJob(job, force) {
  const source = $("source");
  // Text typed but not yet saved (or not saved because autosave is off) stays, with the
  // version it was made from: its save then gets 409 if the file changed meanwhile, and the
  // conflict is shown. A text box merely holding the cursor shows the new text, caret kept.
  const unsaved = state.saved !== null && source.value !== state.saved && source.value !== job.text;
  if (!unsaved || force) {
    const [start, end] = [source.selectionStart, source.selectionEnd];
    setSource(job.text);
    if (document.activeElement === source) source.setSelectionRange(start, end);
    madeFrom(job);
  }
  seen(job);
  // A layer's parameter table and summary are its effect's (sent once, in `effects`).
  const effects = new Map((job.effects || []).map((effect) => [effect.id, effect]));
  for (const layer of job.layers || []) {
    const effect = effects.get(layer.effect);
    [layer.parameters, layer.summary] = effect ? [effect.parameters, effect.summary] : [[], ""];
  }
  const first = state.job === null;
  state.job = job;
  if (first) restoreHistory();
  state.saved = job.text;
  state.generation = job.inputGeneration || 0;
  $("file").textContent = job.file + " · version " + job.version;
  showVariants(job);
  showValidation(job);
  // Also for a job not valid yet: an empty one gets its first layer from here.
  showEffects();
  if (job.job) {
    const scrub = $("scrub");
    scrub.max = String(job.job.frameCount - 1);
    if (state.frame > job.job.frameCount - 1) state.frame = 0;
    // A job of more than three layers opens on its first; fewer are all shown.
    if (state.selected === undefined) state.selected = (job.layers || []).length > 3 ? 0 : null;
    // A layer added or grouped is selected once the job comes back with it.
    if (state.selectPath) {
      const made = (job.layers || []).findIndex((layer) => layer.path === state.selectPath);
      if (made >= 0) { state.selected = made; state.selectPath = null; }
    }
    if (state.selected !== null && state.selected >= (job.layers || []).length) state.selected = null;
    renderLayers();
    renderTracks();
    renderControls();
    showSelection();
    renderHandles();
    showFrame(state.frame, true);
  }
  showDirty();
  loadSound();
}

function showValidation(result) {
  const list = $("errors");
  list.textContent = "";
  const validity = $("validity");
  validity.className = result.valid ? "ok" : "error";
  validity.textContent = result.valid ? "valid: renderfarm validate finds no problem" : "not valid (the file keeps its last valid version):";
  const text = $("source").value;
  document.querySelectorAll(".control.invalid").forEach((node) => node.classList.remove("invalid"));
  (result.issues || []).forEach((issue, index) => {
    const line = issue.path ? lineOf(text, issue.path) : null;
    const item = el("li");
    item.dataset.path = issue.path;
    const place = el("code", (issue.path || "file") + (line ? " (line " + line + ")" : ""));
    if (issue.path) {
      place.className = "jump";
      place.title = "select it in the text";
      place.addEventListener("click", () => jumpTo(issue.path));
    }
    item.append(place);
    item.append(document.createTextNode(": " + issue.message));
    list.append(item);
    const control = document.querySelector('.control[data-path="' + CSS.escape(issue.path) + '"]');
    if (control) control.classList.add("invalid");
  });
  showControlIssues(result.issues || []);
  if (!result.valid && result.errors && result.errors.length) {
    // The same problems as validate prints them, folded: each is listed once above.
    const said = el("li", null, "validate-output");
    const details = el("details");
    details.append(el("summary", "as renderfarm validate prints them"), el("pre", result.errors.join("\n")));
    said.append(details);
    list.append(said);
  }
}

// Puts `text` in the text box, highlighted. Every change of the box's text goes through here or its
// input event.
function setSource(text) {
  $("source").value = text;
  showHighlight();
}

// The text box's text coloured by token (`jsonTokens`) in the pre under it, scrolled as it is.
function showHighlight() {
  const source = $("source"), pre = $("source-highlight");
  if (pre.dataset.text !== source.value) {
    pre.dataset.text = source.value;
    pre.textContent = "";
    const spans = document.createDocumentFragment();
    for (const token of jsonTokens(source.value)) {
      spans.append(token.kind === "space" ? document.createTextNode(token.text) : el("span", token.text, token.kind));
    }
    pre.append(spans);
  }
  pre.scrollTop = source.scrollTop;
  pre.scrollLeft = source.scrollLeft;
}

// Selects the value at `path` in the text box (or the nearest value holding it) and scrolls it into view.
function jumpTo(path) {
  const source = $("source");
  const span = spanOf(source.value, path);
  if (!span) return;
  source.focus();
  source.setSelectionRange(span.start, span.end);
  const lineHeight = parseFloat(getComputedStyle(source).lineHeight) || 16;
  source.scrollTop = Math.max(0, (span.line - 3) * lineHeight);
}

// Saves go one at a time, each made from the version the previous one wrote; edits made
// meanwhile are sent as one, the newest. `gesture` names the pointer gesture a control's
// edit is part of: the saves of one (a slider's drag) are one undo step.
function put(text, history, gesture) {
  state.pending = { text, history: history || null, gesture: gesture || null };
  if (!state.saving) flush();
}

async function flush() {
  state.saving = true;
  while (state.pending !== null) {
    const { text, history, gesture } = state.pending;
    const before = state.saved;
    state.pending = null;
    let response, body;
    state.saves++;
    try {
      response = await fetch("/api/job?variant=" + state.variant, {
        method: "PUT", body: text,
        headers: Object.assign({ "Content-Type": "application/json" }, state.base ? { "If-Match": state.base } : {}),
      });
      body = await response.json();
    } catch (e) { $("validity").textContent = "cannot reach the studio: " + e; break; }
    if (response.ok) {
      state.adding = null;
      seen(body);
      madeFrom(body);
      if (body.text !== before) record(state, before, body.text, history, gesture);
      state.saved = body.text;
      showDirty();
      showHistory();
      hideConflict();
      if (state.pending === null) applyJob(body, false);
    } else if (response.status === 409 && typeof body.text === "string") {
      state.pending = null;
      showConflict(body, text, state.baseText);
    } else if (state.pending === null) {
      if (state.adding && completeNewLayer(body)) continue;
      showValidation(body.issues ? body : { valid: false, issues: [{ path: "", message: body.error }] });
    }
  }
  state.saving = false;
}

// The version the text box's text is made from.
function madeFrom(job) { state.base = job.etag; state.baseText = job.text; }

// A save made from an older version than the file's: show where the file and the edit differ,
// in view wherever the page is scrolled, and let the author choose; nothing is overwritten
// until they do. When the edit's own changes can be made in the file's version without
// touching what changed there (`rebase`), that is offered first.
function showConflict(current, mine, base) {
  const merged = base === null ? null : rebase(current.text, base, mine);
  $("conflict-text").textContent = lineDiff(current.text, mine);
  const merge = $("conflict-merge");
  merge.hidden = merged === null || merged === current.text;
  merge.onclick = () => { hideConflict(); applyJob(current, true); setSource(merged); put(merged); };
  $("conflict-take").onclick = () => { hideConflict(); applyJob(current, true); };
  $("conflict-keep").onclick = () => { hideConflict(); madeFrom(current); put(mine); };
  $("conflict").hidden = false;
  (merge.hidden ? $("conflict-take") : merge).focus();
}

function hideConflict() { $("conflict").hidden = true; }

function showHistory() {
  $("undo").disabled = state.undo.length === 0;
  $("redo").disabled = state.redo.length === 0;
  storeHistory();
}

// The history survives a reload, another port and a restart: the studio keeps it for this job file
// (GET and PUT /api/history, in the user's state folder), its oldest steps dropped past a few megabytes
// (a step holds two whole texts). A studio that keeps none leaves it in the browser's storage.
function historyKey() { return state.job ? "renderfarm-history:" + state.job.file : null; }

function storeHistory() {
  if (!state.job || !state.historyRestored) return;
  let [undo, redo] = [state.undo.slice(-100), state.redo.slice(-100)];
  let stored = JSON.stringify({ undo, redo });
  while (stored.length > 4000000 && undo.length + redo.length > 0) {
    if (undo.length >= redo.length) undo = undo.slice(1); else redo = redo.slice(1);
    stored = JSON.stringify({ undo, redo });
  }
  if (stored === state.historyStored) return;
  state.historyStored = stored;
  // One write at a time, the newest last: a write asked for meanwhile waits for the one in flight.
  state.historyWrite = (state.historyWrite || Promise.resolve()).then(() => fetch("/api/history", { method: "PUT", body: stored })
    .then((response) => { if (!response.ok) throw new Error(String(response.status)); })
    .catch(() => { try { localStorage.setItem(historyKey(), stored); } catch (e) { /* storage full or off: this page keeps it */ } }));
}

async function restoreHistory() {
  let kept = null;
  try {
    const response = await fetch("/api/history");
    if (response.ok) kept = await response.json();
  } catch (e) { /* the studio is away: the page's own copy, if any */ }
  const empty = !kept || (kept.undo.length === 0 && kept.redo.length === 0);
  if (empty) {
    try { kept = JSON.parse(localStorage.getItem(historyKey()) || "null") || kept; } catch (e) { /* none kept */ }
  }
  if (kept && Array.isArray(kept.undo) && Array.isArray(kept.redo)) {
    // Steps taken while it was on its way come after the kept ones.
    state.undo = kept.undo.concat(state.undo);
    state.redo = state.undo.length > kept.undo.length ? state.redo : kept.redo.concat(state.redo);
  }
  state.historyRestored = true;
  showHistory();
}

// Undo (or redo) takes back only the page's own edit. When another program or page saved the file
// since, the edit's values are set in the file as it is now, which keeps that change; when that
// change touched the same values, the author is asked first, told which.
async function undo(direction) {
  // A step is taken back from the file as the last save left it: wait for a save still on its way
  // (Undo pressed twice quickly), and take the steps one after another.
  const turn = state.undoing || Promise.resolve();
  let done;
  state.undoing = new Promise((resolve) => { done = resolve; });
  await turn;
  while (state.saving || state.pending !== null) await new Promise((resolve) => setTimeout(resolve, 20));
  try { takeBack(direction); } finally { done(); }
}

function takeBack(direction) {
  const stack = direction === "undo" ? state.undo : state.redo;
  if (stack.length === 0) return;
  const step = stack.pop();
  let text = takeBackText(state.saved, step);
  if (text === null) {
    const question = "The job file was changed by another program or page since this edit, at the same "
      + "places (" + stepPlaces(step) + "). " + direction + " anyway, and put the whole file back as it was, losing that change?";
    if (!window.confirm(question)) { stack.push(step); showHistory(); return; }
    text = step.to;
  }
  setSource(text);
  put(text, direction);
}

function edit(path, value, gesture) {
  return editText((text) => setValue(text, path, JSON.stringify(value)), gesture);
}

// Makes `change` (the text box's text to the new text; null when it cannot be made there) in the
// text box, saved as any edit; false when it could not be made.
function editText(change, gesture) {
  const source = $("source");
  let text;
  try { text = change(source.value); } catch (e) { text = null; }
  if (text === null) {
    showValidation({ valid: false, issues: [{ path: "", message: "fix the job text first: it is not JSON the controls can edit" }] });
    return false;
  }
  setSource(text);
  changed(text, gesture);
  return true;
}

// ---- Controls from each layer's parameter table.
// The job file as the server last read it (a variants job's template), or null when it is not JSON.
function template() {
  try { return JSON.parse(state.job.text); } catch (e) { return null; }
}

// Builds the controls when the layers or their parameters change; otherwise only shows the
// new values, leaving the control being dragged or typed in alone.
function renderControls() {
  const box = $("controls");
  const job = state.job;
  const written = template();
  const layout = JSON.stringify([state.variant, (job.layers || []).map((layer) => [layer.path, layer.effect, (layer.parameters || []).map((p) => p.name)]),
    (job.layers || []).map((layer) => (layer.parameters || []).map((p) => binding(written, paramPath(layer, p.name))))]);
  if (layout !== state.layout) {
    state.layout = layout;
    state.controls = new Map();
    box.textContent = "";
    const groups = new Set();
    (job.layers || []).forEach((layer, index) => {
      // Each group's own fields, before its first layer's: shown with any of its layers.
      groupsOf(layer).forEach(({ path, depth }) => {
        if (groups.has(path)) return;
        groups.add(path);
        box.append(groupSet(layer, index, depth, written));
      });
      const set = el("fieldset");
      set.dataset.layer = String(index);
      set.append(el("legend", layerLabel(layer) + (layerName(layer) ? " (" + layer.path + ")" : "")));
      if (layer.summary) set.append(el("div", layer.summary, "hint"));
      const composing = describeFields(layer.fields || []);
      if (composing) set.append(el("div", composing, "hint fields"));
      set.append(layerSection(layer, index, written));
      for (const parameter of layer.parameters || []) {
        const path = paramPath(layer, parameter.name);
        set.append(control(parameter, path, binding(written, path)));
      }
      box.append(set);
    });
  }
  (job.layers || []).forEach((layer) => {
    groupsOf(layer).forEach(({ depth }) => showHostFields(layer, depth, written));
    showHostFields(layer, ownDepth(layer), written);
    for (const parameter of layer.parameters || []) {
      const row = state.controls.get(layer.path + ".params." + parameter.name);
      if (!row || row === state.dragging || row.contains(document.activeElement)) continue;
      const given = layer.params[parameter.name];
      row.classList.toggle("is-set", given !== undefined);
      row.show(given !== undefined ? given : parameter.default);
    }
  });
  showValidation(job);
}

// ---- A layer's own host-level fields (name, start, end, opacity, blend), edited as parameters are, and
// its keyframes added at the playhead. A keyframed field is edited on the timeline.
function hostFields() {
  return [
    { name: "name", kind: "string", default: null, type: "string", doc: "names the layer in the panel, for masks and in messages" },
    { name: "start", kind: "number", min: 0, max: null, default: 0, type: "seconds", doc: "when the layer starts, in its group's time" },
    { name: "end", kind: "number", min: 0, max: null, default: null, type: "seconds", doc: "when it stops being drawn; unset: the job's end" },
    { name: "opacity", kind: "number", min: 0, max: 1, default: 1, type: "number 0…1", doc: "0 transparent, 1 opaque" },
    { name: "blend", kind: "enum", choices: state.job.blendModes || ["normal"], default: "normal", type: "blend mode",
      doc: "how the layer is composited over the layers under it" },
    { name: "enabled", kind: "bool", default: true, type: "bool",
      doc: "off: the job renders as if the file did not have it (the panel lists it under \"turned off\")" },
    // Written as JSON, checked by the engine; what is wrong inside is shown under the editor.
    { name: "style", kind: "json", default: null, type: "layer styles",
      doc: "{\"dropShadow\", \"outerGlow\", \"innerGlow\", \"stroke\", \"blur\", \"adjust\"}, each optional (ComposingLayers, \"Layer styles\")" },
    { name: "motionBlur", kind: "json", default: null, type: "true or {shutterAngle, shutterPhase, samples}",
      doc: "the layer drawn at several times while the shutter is open, averaged (ComposingLayers, \"Motion blur\")" },
    { name: "path", path: ["transform", "path"], kind: "json", default: null, type: "motion path {d, progress, autoOrient}",
      doc: "the anchor travels along SVG path data, progress 0…1 (usually keyframes), turned along it with autoOrient" },
  ];
}

// Where host field `field` is in the job file, under the layer or group at `owner`.
function fieldPath(owner, field) { return owner.concat(field.path || [field.name]); }

// The host fields of layer `index`'s link at `depth` (its own: the last; a group holding it: before),
// and the buttons that add their keyframes at the playhead.
function layerSection(layer, index, written, depth = ownDepth(layer)) {
  const box = el("div", null, "layer-fields");
  const owner = ownerPath(layer, depth);
  // The JSON editors fold away, open when the file sets one of them: the panel stays about a screen high.
  const more = el("details", null, "more-fields");
  more.append(el("summary", "style · motion blur · motion path"));
  for (const field of hostFields()) {
    const path = fieldPath(owner, field);
    const row = control(field, path, binding(written, path));
    if (field.kind !== "json") { box.append(row); continue; }
    more.append(row);
    if (nodeValue(written, path) !== undefined) more.open = true;
  }
  box.append(more);
  const keys = el("div", null, "add-keys muted");
  keys.append(document.createTextNode("keyframe at the playhead: "));
  for (const field of keyedFields) {
    const add = button("◆ " + field[field.length - 1], "add a keyframe of " + field.join(".") + " at the playhead's frame",
      () => addKeyframe(index, field, depth));
    add.dataset.field = field.join(".");
    keys.append(add);
  }
  box.append(keys);
  return box;
}

// A group's fieldset: its name, start, end, opacity and blend, and its keyframes added at the playhead.
function groupSet(layer, index, depth, written) {
  const set = el("fieldset", null, "group-fields");
  const path = joinPath(ownerPath(layer, depth));
  set.dataset.group = path;
  set.append(el("legend", (layer.fields[depth].name || path) + " · group" + (layer.fields[depth].name ? " (" + path + ")" : "")));
  set.append(el("div", "a group draws its layers on a surface of its own, then as one layer: these fields apply to all of them", "hint"));
  set.append(layerSection(layer, index, written, depth));
  return set;
}

// The groups holding a layer, outermost first: their paths ("layers[6]") and depths.
function groupsOf(layer) {
  return (layer.fields || []).slice(0, -1).map((fields, depth) => ({ path: joinPath(ownerPath(layer, depth)), depth }));
}

// The path of the layer's link at `depth`: a group holding it, or the layer itself (the last).
function ownerPath(layer, depth) { return splitPath(layer.path).slice(0, 2 * (depth + 1)); }

// The depth of the layer's own link: after the groups holding it.
function ownDepth(layer) { return (layer.fields || [1]).length - 1; }

function ownFields(layer, depth = ownDepth(layer)) {
  return (layer.fields || [])[depth] || {};
}

function keyframed(value) { return value !== null && typeof value === "object" && Array.isArray(value.keyframes); }

// `written`: the job file as the server last read it (`template()`).
function showHostFields(layer, depth, written) {
  const own = ownFields(layer, depth);
  for (const field of hostFields()) {
    const path = fieldPath(ownerPath(layer, depth), field);
    const row = state.controls.get(joinPath(path));
    if (!row || row === state.dragging || row.contains(document.activeElement)) continue;
    // A JSON field is shown as the file writes it.
    const value = field.kind === "json" ? nodeValue(written, path) : own[field.name];
    const keyed = keyframed(value);
    row.classList.toggle("keyframed", keyed);
    row.querySelectorAll("input, select").forEach((input) => { input.disabled = keyed; });
    // `start` is always among the fields; it is set only when the file says so.
    row.classList.toggle("is-set", nodeValue(written, path) !== undefined);
    row.show(keyed ? null : value !== undefined ? value : field.default);
    if (keyed) row.querySelector("input[data-role=number]").placeholder = "keyframed: on the timeline";
  }
}

// Adds a keyframe of `field` (["opacity"], ["transform", "position"], …) of layer `index` (or of the group
// holding it at `depth`) at the playhead, with the value the field has there as written (the keyframe
// before, or its constant, or its default), and opens it in the keyframe editor once saved; a field with
// no keyframes becomes keyframed.
function addKeyframe(index, field, depth = ownDepth(state.job.layers[index])) {
  const layer = state.job.layers[index];
  const links = layer.fields || [];
  const fps = state.job.job.fps;
  // The owner's own seconds at the playhead (through its start and the speeds outside), in whole frames.
  const own = (state.frame / fps - jobTimeAt(links, depth + 1, 0)) * rate(links, depth + 1);
  const t = Number((Math.round(own * fps) / fps).toFixed(6));
  if (t < 0) {
    const box = $("key-editor");
    box.hidden = false;
    box.textContent = "The playhead is before " + (depth === links.length - 1 ? layerLabel(layer) : "its group") + " starts: move it onto the bar first.";
    return;
  }
  const path = ownerPath(layer, depth).concat(field);
  const current = nodeValue(template(), path);
  const keyframes = keyframed(current) ? current.keyframes.slice() : [];
  select(index);
  state.openKey = { path: joinPath(path), t };
  if (keyframes.some((keyframe) => Math.abs(keyframe.t - t) < 1e-6)) { renderTracks(); return; }
  const before = keyframes.filter((keyframe) => keyframe.t < t).pop() || keyframes[0];
  const value = before ? before.value : current !== undefined ? current : fieldDefault(layer, field, depth);
  keyframes.push({ t, value });
  keyframes.sort((a, b) => a.t - b.t);
  const saved = keyframed(current) ? edit(path.concat(["keyframes"]), keyframes) : edit(path, { keyframes });
  if (!saved) state.openKey = null;
}

// What a keyed field is where the file does not set it.
function fieldDefault(layer, field, depth) {
  const name = field[field.length - 1];
  if (name === "position") {
    const transform = ownFields(layer, depth).transform;
    return transform && Array.isArray(transform.anchor) ? transform.anchor : [state.job.job.width / 2, state.job.job.height / 2];
  }
  return { opacity: 1, scale: 1, rotation: 0 }[name];
}

// ---- Layers: the panel lists them by name, nested as their groups are; the one selected there,
// by its track or its label is the one the inspector, the handles and the timeline show.
function layerName(layer) {
  return ownFields(layer).name || null;
}

// "pill · shape", or "layers[3] · path" for a layer without a name.
function layerLabel(layer) { return (layerName(layer) || layer.path) + " · " + layer.effect; }

function renderLayers() {
  const list = $("layers");
  list.textContent = "";
  const item = (text, index, depth, title) => {
    const row = el("div", null, "layer-row");
    const button = el("button", text, "layer-item");
    button.dataset.layer = index === null ? "all" : String(index);
    button.setAttribute("role", "option");
    button.style.paddingLeft = (8 + 14 * depth) + "px";
    if (title) button.title = title;
    button.addEventListener("click", () => select(index));
    row.append(button);
    if (index !== null) {
      const path = state.job.layers[index].path;
      const toggle = (name, on, off, titles, changed) => {
        const pressed = pathSet(name).has(path);
        const button = el("button", pressed ? on : off, "toggle " + name);
        button.dataset.layer = String(index);
        button.title = titles[pressed ? 1 : 0];
        button.setAttribute("aria-pressed", String(pressed));
        button.addEventListener("click", () => { togglePath(name, path); renderLayers(); changed(); });
        row.append(button);
      };
      toggle("hidden", "◌", "👁", ["hide in the preview (the file and renders keep it)", "show in the preview again"], showLeftOut);
      toggle("solo", "S", "S", ["solo: preview only the soloed layers", "unsolo"], showLeftOut);
      toggle("locked", "🔒", "🔓", ["lock: keep its controls, handles and timing from being edited", "unlock: its controls, handles and timing can be edited again"], () => {
        renderTracks();
        showSelection();
        renderHandles();
      });
    }
    list.append(row);
  };
  item("All layers", null, 0, "show every layer's parameters and handles");
  (state.job.layers || []).forEach((layer, index) => {
    const groups = (layer.fields || []).slice(0, -1).map((fields) => fields.name || "group");
    item(layerLabel(layer), index, groups.length, layer.path + (groups.length ? " in " + groups.join(" › ") : ""));
  });
  // Layers and groups the file turns off: listed to turn on again (the file's edit, undoable).
  for (const off of state.job.disabled || []) {
    const row = el("div", null, "layer-row off");
    const label = el("span", (off.name || off.path) + " · " + (off.effect || "group") + " (off)", "layer-item");
    label.title = off.path + ": \"enabled\": false";
    const on = el("button", "turn on", "turn-on");
    on.dataset.path = off.path;
    on.title = "remove \"enabled\": false from " + off.path;
    on.addEventListener("click", () => editText((text) => removeValue(text, splitPath(off.path).concat(["enabled"]))));
    row.append(label, on);
    list.append(row);
  }
  const left = leftOut().length;
  $("view-state").textContent = left ? left + " of " + state.job.layers.length + " layers left out of the preview" : "";
}

// Lock, hide and solo are this browser's view of the job, not edits of it: sets of layer paths kept in
// its storage for the job file ("locked", "hidden", "solo").
function pathSet(name) {
  state.views = state.views || {};
  if (!state.views[name]) {
    try { state.views[name] = new Set(JSON.parse(localStorage.getItem("renderfarm-" + name + ":" + state.job.file) || "[]")); } catch (e) { state.views[name] = new Set(); }
  }
  return state.views[name];
}

function togglePath(name, path) {
  const set = pathSet(name);
  if (set.has(path)) set.delete(path); else set.add(path);
  try { localStorage.setItem("renderfarm-" + name + ":" + state.job.file, JSON.stringify([...set])); } catch (e) { /* this page keeps it */ }
}

// Locked layers: their controls, canvas handles, bar and keyframes take no edit; the text box still does.
function locked(index) {
  const layer = (state.job.layers || [])[index];
  return Boolean(layer && pathSet("locked").has(layer.path));
}

// Hidden and soloed layers: the preview's frames and sound leave out the layers previewHidden names
// (the studio draws and mixes the job without them: GET /api/frames/N.png?hide=I,J).
function leftOut() {
  return previewHidden((state.job.layers || []).map((layer) => layer.path), pathSet("hidden"), pathSet("solo"));
}

function hideQuery() {
  const left = leftOut();
  return left.length ? "&hide=" + left.join(",") : "";
}

function showLeftOut() {
  renderTracks();
  showFrame(state.frame);
  loadSound();
}

// "Add layer" puts a layer of the chosen effect on top of the list holding the selected layer (inside its
// group; the job's `layers` when none is selected), with the effect's defaults, and selects it; "Group"
// puts the selected layer alone in a new group (then layers added with it selected go in that group too);
// "Remove" takes the selected layer out of the file, and its group with it when it was the group's last.
// All are saves like any other (undo, conflicts).
function showEffects() {
  const picker = $("add-effect");
  const effects = state.job.effects || [];
  const names = JSON.stringify(effects.map((effect) => effect.id));
  if (picker.dataset.names === names) return;
  picker.dataset.names = names;
  const chosen = picker.value;
  picker.textContent = "";
  for (const effect of effects) {
    const option = el("option", effect.id);
    option.value = effect.id;
    option.title = effect.summary;
    picker.append(option);
  }
  if (effects.some((effect) => effect.id === chosen)) picker.value = chosen;
}

function addLayer() {
  const effect = $("add-effect").value;
  if (!effect) return;
  const selected = selectedLayer();
  const list = selected ? splitPath(selected.path).slice(0, -1) : ["layers"];
  const items = nodeValue(parsed($("source").value), list);
  const path = joinPath(list.concat([Array.isArray(items) ? items.length : 0]));
  state.adding = { effect, path: path + ".params." };
  if (!editText((text) => appendValue(text, list, JSON.stringify({ effect })))) { state.adding = null; return; }
  state.selectPath = path;
}

function groupLayer() {
  const layer = selectedLayer();
  if (!layer) return;
  const path = splitPath(layer.path);
  if (editText((text) => groupValue(text, path))) state.selectPath = joinPath(path.concat(["group", 0]));
}

function selectedLayer() {
  return state.selected === null ? null : (state.job.layers || [])[state.selected] || null;
}

// A new layer the effect refuses only for missing parameters (a text layer needs its text) gets a
// starting value for each, by its kind, and is saved again, once: true when it was.
function completeNewLayer(refusal) {
  const adding = state.adding;
  state.adding = null;
  const issues = (refusal && refusal.issues) || [];
  const effect = adding && (state.job.effects || []).find((each) => each.id === adding.effect);
  if (!effect || !issues.length) return false;
  let text = $("source").value;
  for (const issue of issues) {
    const name = (issue.path || "").startsWith(adding.path) ? issue.path.slice(adding.path.length) : null;
    const p = name && /^missing/.test(issue.message) ? (effect.parameters || []).find((each) => each.name === name) : null;
    const value = p ? starter(p) : undefined;
    if (value === undefined) return false;
    text = setValue(text, splitPath(issue.path), JSON.stringify(value));
    if (text === null) return false;
  }
  setSource(text);
  state.pending = { text, history: null, gesture: null };
  return true;
}

// A value to start a parameter with, by its kind; undefined for a kind with none.
function starter(p) {
  const job = state.job.job || { width: 400, height: 400 };
  const [w, h] = [job.width, job.height];
  const number = Math.min(p.max ?? Infinity, Math.max(p.min ?? -Infinity, 0));
  return {
    string: p.name.charAt(0).toUpperCase() + p.name.slice(1), number, integer: Math.ceil(number), bool: false,
    color: "#FFFFFF", enum: (p.choices || [])[0], point: [w / 2, h / 2], size: [w / 4, w / 4],
    rect: { x: w / 4, y: h / 4, width: w / 2, height: h / 2 }, "number list": [], "color list": ["#FFFFFF"],
  }[p.kind];
}

function removeLayer() {
  const layer = selectedLayer();
  if (layer && editText((text) => removeLayerValue(text, splitPath(layer.path)))) state.selected = null;
}

function select(index) {
  state.selected = index;
  showSelection();
  renderHandles();
}

function showSelection() {
  const chosen = state.selected === null ? "all" : String(state.selected);
  document.querySelectorAll("#layers .layer-item").forEach((node) => {
    node.classList.toggle("selected", node.dataset.layer === chosen);
    node.setAttribute("aria-selected", String(node.dataset.layer === chosen));
  });
  const selected = state.selected === null ? null : state.job.layers[state.selected];
  const around = new Set(selected ? groupsOf(selected).map((group) => group.path) : []);
  document.querySelectorAll("#controls fieldset[data-layer]").forEach((set) => {
    set.hidden = state.selected !== null && set.dataset.layer !== chosen;
    set.disabled = locked(Number(set.dataset.layer));
    set.classList.toggle("locked", set.disabled);
  });
  // A group's fields show with the layer selected in it (and with all layers).
  document.querySelectorAll("#controls fieldset[data-group]").forEach((set) => {
    set.hidden = state.selected !== null && !around.has(set.dataset.group);
  });
  $("remove-layer").disabled = state.selected !== null && locked(state.selected);
  $("group-layer").disabled = state.selected === null || locked(state.selected);
  document.querySelectorAll("#track-list .track[data-layer], #track-labels .track-label[data-layer]").forEach((node) => {
    node.classList.toggle("selected", node.dataset.layer === chosen);
  });
}

function control(p, path, bound) {
  const row = el("div", null, "control");
  row.dataset.path = joinPath(path);
  state.controls.set(row.dataset.path, row);
  const label = el("label", p.name);
  label.title = p.doc;
  row.append(label);
  row.show = () => {};
  if (bound !== null) {
    // Each variant fills it in: the template keeps its placeholder; the value shown is this variant's.
    row.classList.add("bound");
    row.dataset.bound = bound;
    const shown = el("output", "");
    row.append(shown, el("div", "set per variant by " + bound + ": edit the variants' data, not this control", "hint"));
    row.show = (value) => { shown.textContent = JSON.stringify(value); };
    return row;
  }
  const send = (v, gesture) => edit(path, v, gesture);
  // Reset: the parameter leaves the job file, so the plugin's default applies (shown while it is set).
  const reset = el("button", "↺", "reset");
  reset.title = "reset to the default" + (p.default === null ? " (unset)" : " " + JSON.stringify(p.default))
    + ": remove " + p.name + " from the job";
  reset.addEventListener("click", () => {
    // Not focused: a row holding the focus is not updated, and this one must show the default.
    reset.blur();
    editText((text) => removeValue(text, path));
  });
  label.after(reset);
  const numeric = p.kind === "number" || p.kind === "integer";
  if (numeric) {
    const bounded = p.min !== null && p.max !== null;
    // A round step giving at least 100 positions between the bounds (1 for integers).
    const step = p.kind === "integer" ? 1 : bounded ? Math.pow(10, Math.floor(Math.log10((p.max - p.min) / 100))) : "any";
    const number = el("input");
    number.type = "number";
    number.step = String(step);
    number.dataset.role = "number";
    if (bounded) {
      const range = el("input");
      range.type = "range";
      // The slider's positions are whole steps (a minimum of 0.05 with a step of 1 would
      // make them 0.05, 1.05, …); the number field still reaches the bounds themselves.
      range.min = String(p.kind === "integer" ? p.min : Number((Math.ceil(p.min / step) * step).toFixed(10)));
      range.max = String(p.max);
      range.step = String(step);
      range.dataset.param = p.name;
      // A drag saves as it goes (the preview follows) and once more at release: one gesture,
      // one undo step.
      let pending = null, gesture = null;
      range.addEventListener("pointerdown", () => { gesture = newGesture(); });
      range.addEventListener("input", () => {
        number.value = range.value;
        clearTimeout(pending);
        pending = setTimeout(() => send(Number(range.value), gesture), 150);
      });
      range.addEventListener("change", () => { clearTimeout(pending); send(Number(range.value), gesture); gesture = null; });
      row.append(range);
    }
    number.addEventListener("change", () => { if (number.value !== "") send(Number(number.value)); });
    row.append(number);
    const range = row.querySelector("input[type=range]");
    if (range) {
      // The control under the pointer is not touched while it is dragged.
      range.addEventListener("pointerdown", () => { state.dragging = row; });
      range.addEventListener("pointerup", () => { if (state.dragging === row) state.dragging = null; });
    }
    // Scrubbing: dragging the name sideways changes the value, a step per pixel (ten with Shift),
    // within the bounds; it saves as it goes and is one undo step, as a slider's drag.
    const unit = step === "any" ? 1 : step;
    label.classList.add("scrubby");
    label.addEventListener("pointerdown", (event) => {
      const start = number.value === "" ? Number(p.default ?? p.min ?? 0) : Number(number.value);
      const x = event.clientX, gesture = newGesture();
      let pending = null, value = start;
      state.dragging = row;
      followPointer(label, event, (e) => {
        const raw = start + Math.round(e.clientX - x) * unit * (e.shiftKey ? 10 : 1);
        value = Number(Math.min(p.max ?? Infinity, Math.max(p.min ?? -Infinity, raw)).toFixed(10));
        number.value = String(value);
        if (range) range.value = number.value;
        clearTimeout(pending);
        pending = setTimeout(() => send(value, gesture), 150);
      }, () => {
        clearTimeout(pending);
        if (state.dragging === row) state.dragging = null;
        if (value !== start) send(value, gesture);
      });
    });
    // A parameter the job leaves unset with no default (the effect decides, as a shape's radius):
    // an empty field saying so and a dimmed slider at its start, never a made-up middle value.
    row.show = (v) => {
      const unset = v === null || v === undefined;
      number.value = unset ? "" : v;
      number.placeholder = unset ? "unset" : "";
      row.classList.toggle("unset", unset);
      if (range) range.value = unset ? range.min : number.value;
    };
  } else if (p.kind === "enum") {
    const select = el("select");
    for (const choice of p.choices) {
      const option = el("option", choice);
      option.value = choice;
      select.append(option);
    }
    select.addEventListener("change", () => send(select.value));
    row.append(select);
    row.show = (v) => { select.value = v || ""; };
  } else if (p.kind === "bool") {
    const box = el("input");
    box.type = "checkbox";
    box.addEventListener("change", () => send(box.checked));
    row.append(box);
    row.show = (v) => { box.checked = v === true; };
  } else if (p.kind === "color") {
    const picker = el("input");
    picker.type = "color";
    let text = "#000000";
    // The alpha the picker lacks, beside it: 255 writes #RRGGBB, less #RRGGBBAA.
    const alpha = el("input");
    alpha.type = "range";
    alpha.min = "0";
    alpha.max = "255";
    alpha.step = "1";
    alpha.dataset.role = "alpha";
    alpha.title = "alpha (opacity) of the colour";
    const value = () => picker.value.toUpperCase()
      + (Number(alpha.value) < 255 ? Number(alpha.value).toString(16).padStart(2, "0").toUpperCase() : "");
    picker.addEventListener("change", () => send(value()));
    alpha.addEventListener("change", () => send(value()));
    row.append(picker, alpha);
    row.show = (v) => {
      text = typeof v === "string" ? v : "#000000";
      picker.value = text.length >= 7 ? text.slice(0, 7).toLowerCase() : "#000000";
      alpha.value = text.length === 9 ? String(parseInt(text.slice(7), 16)) : "255";
    };
  } else if (p.kind === "point" || p.kind === "size") {
    const fields = [0, 1].map(() => {
      const field = el("input");
      field.type = "number";
      field.step = "any";
      field.addEventListener("change", () => send(fields.map((f) => Number(f.value))));
      return field;
    });
    row.append(fields[0], document.createTextNode(" "), fields[1]);
    row.show = (v) => { fields.forEach((f, i) => { f.value = Array.isArray(v) ? v[i] : ""; }); };
  } else if (p.kind === "rect") {
    // Four numbers; the rect's handle on the canvas moves and sizes it too.
    const parts = ["x", "y", "width", "height"];
    const fields = parts.map((part) => {
      const field = el("input");
      field.type = "number";
      field.step = "any";
      field.title = part;
      field.dataset.part = part;
      field.addEventListener("change", () => send(Object.fromEntries(parts.map((name, i) => [name, Number(fields[i].value)]))));
      return field;
    });
    for (const [i, field] of fields.entries()) row.append(el("span", " " + parts[i][0] + " ", "muted"), field);
    row.show = (v) => {
      const rect = v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
      fields.forEach((field, i) => { field.value = rect[parts[i]] !== undefined ? rect[parts[i]] : ""; });
    };
  } else if (p.kind === "string") {
    const field = el("input");
    field.addEventListener("change", () => send(field.value));
    row.append(field);
    row.show = (v) => { field.value = typeof v === "string" ? v : ""; };
  } else if (["number list", "color list", "events", "json"].includes(p.kind)) {
    row.show = structuredEditor(p, row, send);
  } else {
    row.append(el("div", "edit in the job text", "hint"));
  }
  row.append(el("div", p.type + (p.doc ? " · " + p.doc : ""), "hint"));
  return row;
}

// ---- The preview's view: Fit (the whole canvas in the pane, at the job's preview scale), or 100 % /
// 200 % (the frame at the job's own pixel size, one or two screen pixels per pixel; the pane scrolls).
function previewScale() { return state.view === "fit" ? state.job.job.previewScale : state.job.job.scale; }

function setView(view) {
  state.view = view;
  for (const [id, value] of [["view-fit", "fit"], ["view-100", 1], ["view-200", 2]]) $(id).classList.toggle("active", value === view);
  $("stage").classList.toggle("zoomed", view !== "fit");
  sizeFrame();
  showFrame(state.frame, true);
}

function sizeFrame() {
  const image = $("frame"), job = state.job && state.job.job;
  image.style.width = state.view === "fit" || !job
    ? "" : (Math.round(job.width * job.scale) * state.view / window.devicePixelRatio) + "px";
}

// ---- The timeline: frames drawn on demand by the engine, cached by fingerprint.
function frameURL(n) {
  const job = state.job;
  return "/api/frames/" + n + ".png?scale=" + previewScale() + "&variant=" + state.variant +
    ($("debug").checked ? "&debug=1" : "") + hideQuery() + "&v=" + job.version + "&i=" + state.generation;
}

function showFrame(n, force) {
  const job = state.job;
  if (!job || !job.job || !job.valid) return;
  const count = job.job.frameCount;
  n = ((n % count) + count) % count;
  state.frame = n;
  $("scrub").value = String(n);
  $("frame-label").textContent = "frame " + n + " / " + (count - 1) + " · " + (n / job.job.fps).toFixed(2) + " s";
  showPlayhead();
  // Handles of a layer that moves follow it to this frame; also when its image is the one shown (a frame left
  // before the next one's image came).
  placeHandles();
  const url = frameURL(n);
  const image = $("frame");
  // Every request, even one for the frame shown, makes the answers to earlier ones stale.
  const ticket = ++state.ticket;
  if (!force && image.dataset.url === url) { state.loading = false; return; }
  state.loading = true;
  const loader = new Image();
  loader.onload = () => {
    // An answer to an older request (a frame scrubbed past) is dropped.
    if (ticket !== state.ticket) return;
    image.src = loader.src;
    image.dataset.url = url;
    image.dataset.frame = String(n);
    image.dataset.scale = String(previewScale());
    sizeFrame();
    state.loading = false;
    $("frame-error").textContent = "";
  };
  loader.onerror = async () => {
    if (ticket !== state.ticket) return;
    state.loading = false;
    try { $("frame-error").textContent = (await (await fetch(url)).json()).error; } catch (e) { $("frame-error").textContent = "frame " + n + " failed"; }
  };
  loader.src = url;
}

// ---- The tracks: a ruler in seconds, the job's frame set, a bar per layer from its start,
// the in/out range and the playhead. Clicking goes to the frame under the pointer.
function renderTracks() {
  const job = state.job.job;
  const omitted = leftOut();
  const count = job.frameCount;
  const percent = (frame) => (100 * frame / count) + "%";
  setZoom(state.zoom);
  const list = $("track-list");
  list.textContent = "";
  // The tracks' names, in a column of their own: they stay in view when the tracks are zoomed and scrolled.
  const labels = $("track-labels");
  labels.textContent = "";
  labels.append(el("div", "frames", "track-label"));
  const frames = el("div", null, "track frames");
  frames.dataset.track = "frames";
  if (job.firstFrame !== null) {
    const bar = el("div", "frames " + job.frames, "bar");
    bar.style.left = percent(job.firstFrame);
    bar.style.width = percent(job.lastFrame - job.firstFrame + 1);
    bar.title = "the frames render draws: " + job.frames;
    frames.append(bar);
  }
  list.append(frames);
  const groups = new Set();
  const written = template();
  (state.job.layers || []).forEach((layer, index) => {
    // Each group gets a track before its first layer's: its span and its own keyframes.
    groupsOf(layer).forEach(({ path, depth }) => {
      if (groups.has(path)) return;
      groups.add(path);
      const links = layer.fields;
      const fields = links[depth];
      const first = Math.max(0, Math.round(jobTimeAt(links, depth + 1, 0) * job.fps));
      const last = fields.end === undefined ? count : Math.min(count, Math.round(jobTimeAt(links, depth, fields.end) * job.fps));
      const name = (fields.name || path) + " · group";
      const label = el("div", name, "track-label group");
      label.dataset.group = path;
      label.addEventListener("click", () => select(index));
      labels.append(label);
      const track = el("div", null, "track group");
      track.dataset.group = path;
      const bar = el("div", name, "bar");
      bar.style.left = percent(first);
      bar.style.width = percent(Math.max(0, last - first));
      bar.title = path + " from " + (first / job.fps).toFixed(2) + " s" + (fields.end === undefined ? "" : " to " + (last / job.fps).toFixed(2) + " s");
      track.append(bar);
      for (const key of keyframesOf(layer, index, written, depth)) {
        track.append(keyMark(key, percent));
        if (justAdded(key) || (!$("key-editor").hidden && $("key-editor").dataset.path === joinPath(key.path))) showKey(key);
      }
      list.append(track);
    });
    const track = el("div", null, "track");
    track.dataset.layer = String(index);
    // A layer hide or solo leaves out of the preview is dimmed on its track.
    track.classList.toggle("left-out", omitted.includes(index));
    const first = Math.min(count, Math.max(0, Math.round(layer.start * job.fps)));
    const last = layer.end === null || layer.end === undefined ? count : Math.min(count, Math.round(layer.end * job.fps));
    const bar = el("div", layerLabel(layer), "bar");
    const label = el("div", layerLabel(layer), "track-label");
    label.dataset.layer = String(index);
    label.title = layer.path;
    label.addEventListener("click", () => select(index));
    labels.append(label);
    bar.style.left = percent(first);
    bar.style.width = percent(Math.max(0, last - first));
    bar.title = layer.path + " " + layer.effect + " from " + layer.start + " s"
      + (layer.end === null || layer.end === undefined ? "" : " to " + layer.end + " s")
      + (describeFields(layer.fields || []) ? "; " + describeFields(layer.fields || []) : "");
    bar.addEventListener("pointerdown", (event) => dragBar(event, bar, layer));
    bar.addEventListener("pointermove", (event) => { bar.style.cursor = barEdge(bar, event) ? "ew-resize" : "grab"; });
    track.append(bar);
    for (const key of keyframesOf(layer, index, written)) {
      track.append(keyMark(key, percent));
      // The keyframe editor open on this keyframe shows it as the job now has it; a keyframe just added
      // opens in it.
      if (justAdded(key) || (!$("key-editor").hidden && $("key-editor").dataset.path === joinPath(key.path))) showKey(key);
    }
    list.append(track);
  });
  showInOut();
}

// ---- Layers moved and trimmed on the timeline: dragging a bar moves the layer's `start` (and its `end`,
// when set) by whole frames; dragging its left edge moves the start alone, its right edge the end. One
// save at release, one undo step. Times are written in the time of the group holding the layer.
function barEdge(bar, event) {
  const box = bar.getBoundingClientRect();
  if (box.width < 18) return null;
  return event.clientX - box.left < 6 ? "start" : box.right - event.clientX < 6 ? "end" : null;
}

function dragBar(event, bar, layer) {
  if (event.button !== 0 || !state.job || !state.job.job) return;
  if (locked(state.job.layers.indexOf(layer))) return;
  const job = state.job.job;
  const edge = barEdge(bar, event);
  const path = splitPath(layer.path);
  const written = template();
  const start = nodeValue(written, path.concat(["start"])) || 0;
  const end = nodeValue(written, path.concat(["end"]));
  const links = layer.fields || [];
  // Seconds of the group's time per second of job time; for a top-level layer, 1.
  const parentSpeed = rate(links, links.length - 1);
  // The job's end in the group's time, for a right edge dragged where the file sets no end.
  const until = end !== undefined ? end : links.length === 1 ? job.duration : null;
  if (edge === "end" && until === null) return;
  const framesPerPixel = job.frameCount / $("tracks-inner").getBoundingClientRect().width;
  const [left, width] = [parseFloat(bar.style.left), parseFloat(bar.style.width)];
  const x = event.clientX;
  const second = 1 / job.fps * parentSpeed;
  let frames = 0;
  followPointer(bar, event, (e) => {
    frames = Math.round((e.clientX - x) * framesPerPixel);
    // Within the job (a start of 0 or more) and one frame long at least.
    if (edge !== "end") frames = Math.max(frames, -Math.round(start / second));
    if (edge === "start" && until !== undefined && until !== null) frames = Math.min(frames, Math.round((until - start) / second) - 1);
    if (edge === "end") frames = Math.max(frames, Math.round((start - until) / second) + 1);
    const share = 100 * frames / job.frameCount;
    bar.style.left = (left + (edge === "end" ? 0 : share)) + "%";
    bar.style.width = Math.max(0, width + (edge === "start" ? -share : edge === "end" ? share : 0)) + "%";
  }, () => {
    if (frames === 0) return;
    state.draggedBar = true;
    // On the grid of whole frames, so that times written to six places do not drift.
    const moved = (value) => Number(((Math.round(value / second) + frames) * second).toFixed(6));
    editText((text) => {
      let next = text;
      if (edge !== "end") next = setValue(next, path.concat(["start"]), JSON.stringify(moved(start)));
      if (edge === "end" || (edge === null && end !== undefined)) next = next && setValue(next, path.concat(["end"]), JSON.stringify(moved(until)));
      return next;
    });
  });
}

// ---- Keyframes of a layer's own fields (opacity, transform position, scale, rotation) on its
// track: a click goes to the keyframe and opens its editor (time, timing), a drag moves it in time
// between its neighbours (one save at release).
const keyedFields = [["opacity"], ["transform", "position"], ["transform", "scale"], ["transform", "rotation"]];

// The keyframes of layer `index`'s own fields, or (`depth` below its own) of the group at that depth
// holding it: each with its place in the file (`written`: the file as `template()` reads it) and its
// owner's job start and speed.
// Whether `key` is the keyframe addKeyframe just added (then it opens in the editor, once).
function justAdded(key) {
  const added = state.openKey && state.openKey.path === joinPath(key.path.slice(0, -2))
    && Math.abs(state.openKey.t - key.keyframe.t) < 1e-6;
  if (added) state.openKey = null;
  return Boolean(added);
}

function keyframesOf(layer, index, written, depth = ownDepth(layer)) {
  const links = layer.fields || [];
  const own = links[depth] || {};
  const speed = rate(links, depth + 1);
  const owner = ownerPath(layer, depth);
  const found = [];
  for (const field of keyedFields) {
    // As the file writes them (a timing left out stays so), unless the file and the job differ (a variant).
    const resolved = (nodeValue(own, field) || {}).keyframes;
    if (!Array.isArray(resolved)) continue;
    const asWritten = nodeValue(written, owner.concat(field));
    const keyframes = keyframed(asWritten) && asWritten.keyframes.length === resolved.length ? asWritten.keyframes : resolved;
    keyframes.forEach((keyframe, k) => found.push({
      layer: index, field, index: k, keyframe, keyframes, speed, start: jobTimeAt(links, depth + 1, 0),
      owner: depth === links.length - 1 ? null : own.name || joinPath(owner), path: owner.concat(field, ["keyframes", k]),
    }));
  }
  return found;
}

// How fast the time inside the first `count` of `links` (all of them by default) runs against the job's:
// the product of their speeds.
function rate(links, count = links.length) {
  return links.slice(0, count).reduce((product, fields) => product * (fields.speed || 1), 1);
}

// Job seconds of time `t` of the list inside `links[depth - 1]` (the layer's own time for depth =
// links.length), loops aside: each link's start plus the inner time over its speed, outwards.
function jobTimeAt(links, depth, t) {
  return links.slice(0, depth).reverse().reduce((inner, link) => (link.start || 0) + inner / (link.speed || 1), t);
}

// Job seconds of layer seconds `t` on a layer starting at `start` whose groups and own speeds multiply to `speed`.
function keyTime(key, t) { return key.start + t / key.speed; }

function keyMark(key, percent) {
  const job = state.job.job;
  const mark = el("div", null, "key");
  mark.style.left = percent(keyTime(key, key.keyframe.t) * job.fps);
  mark.title = key.field.join(".") + " " + JSON.stringify(key.keyframe.value) + " at " + key.keyframe.t + " s"
    + (key.keyframe.timing !== undefined ? " (" + JSON.stringify(key.keyframe.timing) + ")" : "");
  mark.addEventListener("click", (event) => event.stopPropagation());
  mark.addEventListener("pointerdown", (event) => {
    event.stopPropagation();
    if (locked(key.layer)) { select(key.layer); showFrame(Math.round(keyTime(key, key.keyframe.t) * job.fps)); showKey(key); return; }
    const inner = $("tracks-inner").getBoundingClientRect();
    const secondsPerPixel = job.frameCount / job.fps / inner.width;
    const previous = key.keyframes[key.index - 1], next = key.keyframes[key.index + 1];
    const step = 1 / job.fps;
    const x = event.clientX;
    let t = key.keyframe.t;
    followPointer(mark, event, (e) => {
      const raw = key.keyframe.t + (e.clientX - x) * secondsPerPixel * key.speed;
      const low = previous ? previous.t + step : 0, high = next ? next.t - step : Infinity;
      // Whole frames of the layer's own time, between the neighbours.
      t = Math.min(high, Math.max(low, Math.round(raw * job.fps) / job.fps));
      t = Number(t.toFixed(6));
      mark.style.left = percent(keyTime(key, t) * job.fps);
    }, () => {
      if (t !== key.keyframe.t) edit(key.path.concat(["t"]), t);
      select(key.layer);
      showFrame(Math.round(keyTime(key, t) * job.fps));
      showKey(key);
    });
  });
  return mark;
}

// The editor of one keyframe, under the timeline: its field, value, time and timing.
function showKey(key) {
  const box = $("key-editor");
  box.hidden = false;
  box.textContent = "";
  box.dataset.path = joinPath(key.path);
  const owner = key.owner ? key.owner + " (group)" : state.job.layers[key.layer] ? layerLabel(state.job.layers[key.layer]) : "";
  box.append(el("span", owner ? owner + " · " : ""),
    el("code", key.field.join(".") + " keyframe " + key.index), el("span", " value "));
  // The value as JSON: a number, or [x, y] for a position or a two-way scale.
  const value = el("input");
  value.dataset.role = "key-value";
  value.value = JSON.stringify(key.keyframe.value);
  value.size = 12;
  value.addEventListener("change", () => {
    const parsed = (() => { try { return JSON.parse(value.value); } catch (e) { return undefined; } })();
    if (parsed === undefined) { value.setCustomValidity("a number, or [x, y]"); value.reportValidity(); return; }
    value.setCustomValidity("");
    edit(key.path.concat(["value"]), parsed);
  });
  box.append(value, el("span", " · t "));
  const time = el("input");
  time.type = "number";
  time.step = String(1 / state.job.job.fps);
  time.value = String(key.keyframe.t);
  time.dataset.role = "key-t";
  time.addEventListener("change", () => { if (time.value !== "") edit(key.path.concat(["t"]), Number(time.value)); });
  const timing = el("select");
  timing.dataset.role = "key-timing";
  const current = key.keyframe.timing;
  const named = state.job.timings || ["linear", "easeIn", "easeOut", "easeInEaseOut", "default"];
  const options = named.concat(typeof current === "string" || current === undefined ? [] : ["custom"]);
  for (const name of options) {
    const option = el("option", name === "custom" ? "custom " + JSON.stringify(current) : name);
    option.value = name;
    timing.append(option);
  }
  timing.value = current === undefined ? "linear" : typeof current === "string" ? current : "custom";
  timing.disabled = key.index === 0;
  timing.title = key.index === 0 ? "the first keyframe has no segment before it to pace" : "paces the move from the keyframe before";
  timing.addEventListener("change", () => { if (timing.value !== "custom") edit(key.path.concat(["timing"]), timing.value); });
  const remove = button("Delete", "remove this keyframe (the last one leaves its value as the field's constant)", () => {
    const field = key.path.slice(0, -2);
    if (key.keyframes.length === 1) edit(field, key.keyframe.value);
    else editText((text) => removeValue(text, key.path));
    box.hidden = true;
  });
  box.append(time, el("span", " s · timing "), timing, remove);
  if (locked(key.layer)) box.querySelectorAll("input, select, button").forEach((node) => { node.disabled = true; });
}

function showPlayhead() {
  if (!state.job || !state.job.job) return;
  $("playhead").style.left = (100 * state.frame / state.job.job.frameCount) + "%";
  followPlayhead();
}

// The in/out range, and the render command that draws just it.
function range() {
  const last = state.job.job.frameCount - 1;
  const from = state.in === null ? 0 : state.in, to = state.out === null ? last : state.out;
  return [Math.min(from, to), Math.max(from, to)];
}

function showInOut() {
  if (!state.job || !state.job.job) return;
  const [from, to] = range();
  const count = state.job.job.frameCount;
  const box = $("inout");
  box.hidden = state.in === null && state.out === null;
  box.style.left = (100 * from / count) + "%";
  box.style.width = (100 * (to - from + 1) / count) + "%";
  $("inout-label").textContent = box.hidden ? "not set (I / O)" : from + "–" + to;
  $("inout-command").textContent = "renderfarm render " + state.job.file + " --frames " + from + "-" + to;
}

function setInOut(which) {
  state[which] = state.frame;
  showInOut();
}

function play() {
  state.playing = !state.playing;
  $("play").textContent = state.playing ? "Pause" : "Play";
  const audio = $("audio");
  if (!state.playing) { audio.pause(); return; }
  const [low, high] = range();
  const from = Math.min(Math.max(state.frame, low), high), started = performance.now();
  const fps = state.job.job.fps;
  if (soundReady()) { audio.currentTime = from / fps; audio.play().catch(() => {}); }
  let shown = null;
  const tick = (now) => {
    if (!state.playing || !state.job || !state.job.job) { audio.pause(); return; }
    const [low, high] = range();
    let n;
    if (soundReady() && !audio.paused) {
      // The sound's clock decides the frame, so picture and sound stay together; a seek made
      // meanwhile (scrub, click, keys) moves the sound there.
      if (shown !== null && state.frame !== shown) audio.currentTime = state.frame / fps;
      n = Math.floor(audio.currentTime * fps + 1e-6);
      if (n > high || n < low) { audio.currentTime = low / fps; n = low; }
    } else {
      n = low + ((from - low + Math.floor(((now - started) / 1000) * fps)) % (high - low + 1));
    }
    if (!state.loading && n !== state.frame) showFrame(n);
    shown = state.frame;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

// ---- Sound: with "sound" on, the job's mix (GET /api/audio.wav, as render --video and renderfarm
// mix make it) is loaded for the variant and version shown, and plays with the frames.
function soundReady() { return $("sound").checked && $("audio").dataset.ready === "1"; }

async function loadSound() {
  const audio = $("audio"), said = $("sound-state");
  const source = state.job && state.job.job
    ? "/api/audio.wav?variant=" + state.variant + hideQuery() + "&version=" + state.job.version + "&inputs=" + state.generation : null;
  if (!$("sound").checked || source === null) {
    audio.pause();
    audio.dataset.source = "";
    audio.dataset.ready = "";
    said.textContent = "";
    return;
  }
  if (audio.dataset.source === source) return;
  audio.dataset.source = source;
  audio.dataset.ready = "";
  said.textContent = "mixing…";
  let response;
  try { response = await fetch(source); } catch (e) { said.textContent = "cannot reach the studio"; return; }
  if (audio.dataset.source !== source) return;
  if (!response.ok) {
    let message = "no sound";
    try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
    said.textContent = message;
    return;
  }
  const blob = await response.blob();
  if (audio.dataset.source !== source) return;
  if (audio.src.startsWith("blob:")) URL.revokeObjectURL(audio.src);
  audio.src = URL.createObjectURL(blob);
  audio.dataset.ready = "1";
  said.textContent = "";
  if (state.playing) { audio.currentTime = state.frame / state.job.job.fps; audio.play().catch(() => {}); }
}

// ---- Variants: the job file is a template; the picker chooses the variant previewed.
function showVariants(job) {
  const picker = $("variant");
  const variants = job.variants || [];
  $("variant-row").hidden = variants.length === 0;
  const names = variants.map((v) => v.index + ": " + v.name + " (" + v.origin + ")");
  if (picker.dataset.names !== JSON.stringify(names)) {
    picker.dataset.names = JSON.stringify(names);
    picker.textContent = "";
    names.forEach((name, index) => {
      const option = el("option", name);
      option.value = String(index);
      picker.append(option);
    });
  }
  picker.value = String(job.variant || 0);
}

// ---- The render queue: each press of Render adds the in/out range with the output chosen beside it
// (PNG frames into the job's output folder, or a video of an encode preset, named as encode names it)
// to the studio's queue (POST /api/render). The studio runs them one at a time, in order; the queue is
// its own (GET /api/render, `render` events), so a reload, another tab or a script sees the same one.
// The running one's progress and Stop are also at the top; a finished one opens its result: a video
// plays here, frames open the farm view.
const outputs = [["", "PNG frames"], ["mp4", "mp4 · H.264"], ["webm-alpha", "webm · VP9 with alpha"],
  ["prores4444", "mov · ProRes 4444"], ["gif", "gif"], ["apng", "apng"], ["alpha-packed", "mp4 · alpha-packed (VAP)"],
  ["hevc-alpha", "mov · HEVC with alpha"]];

function showOutputs() {
  const select = $("render-preset");
  for (const [value, name] of outputs) {
    const option = el("option", name);
    option.value = value;
    select.append(option);
  }
}

async function queueRender() {
  if (!state.job || !state.job.job) return;
  const [from, to] = range();
  const preset = $("render-preset").value;
  let response, body;
  try {
    response = await fetch("/api/render?frames=" + from + "-" + to + (preset ? "&preset=" + preset : ""), { method: "POST" });
    body = await response.json();
  } catch (e) { [response, body] = [{ ok: false }, { error: "cannot reach the studio" }]; }
  $("queue-error").textContent = response.ok ? "" : body.error;
  // The tab that asked for frames shows the farm view when they start (its event may have come first).
  if (!response.ok || preset) return;
  const heard = state.queue.find((item) => item.id === body.id);
  if (heard && heard.state !== "queued") showView("farm"); else state.renderRequested = body.id;
}

async function loadQueue() {
  try {
    state.queue = (await (await fetch("/api/render")).json()).renders || [];
  } catch (e) { return; }
  showQueue();
}

// A render event: the item as the studio now has it ("removed": out of the queue).
function queueHeard(render) {
  const index = state.queue.findIndex((item) => item.id === render.id);
  if (render.state === "removed") { if (index >= 0) state.queue.splice(index, 1); }
  else if (index >= 0) state.queue[index] = render;
  else state.queue.push(render);
  showQueue();
}

// "queued", "running", "done", "stopped" or "failed".
function queueStatus(item) {
  if (item.state !== "finished") return item.state;
  return item.status === 0 ? "done" : item.status === 130 ? "stopped" : "failed";
}

function showQueue() {
  const list = $("render-queue");
  list.textContent = "";
  list.hidden = state.queue.length === 0;
  for (const item of state.queue) {
    const row = el("li");
    const status = queueStatus(item);
    row.dataset.status = status;
    row.dataset.id = String(item.id);
    const target = item.video ? item.video.split("/").pop() : "PNG frames";
    const progress = item.total !== undefined ? ": " + item.done + " of " + item.total + " frames" : "…";
    const said = { queued: "queued", running: "rendering" + progress, done: "done", stopped: "stopped",
      failed: "failed" + (item.message ? ": " + item.message : " (exit " + item.status + ")") }[status];
    row.append(el("span", "frames " + (item.frames || "all") + " → " + target + " · "), el("span", said, "muted"));
    const drop = () => fetch("/api/render?id=" + item.id, { method: "DELETE" });
    if (status === "done") row.append(button("Open", "show the result", () => openResult(item)));
    if (status === "queued") row.append(button("Remove", "take it out of the queue", drop));
    if (status === "running") row.append(button("Stop", "stop this render (the frames done stay); the next one starts", drop));
    if (item.state === "finished") row.append(button("×", "take it off the list", drop));
    list.append(row);
  }
}

function button(text, title, click) {
  const node = el("button", text);
  node.title = title;
  node.addEventListener("click", click);
  return node;
}

// A video plays under the queue (GIF and APNG are images); frames open the farm view on their folder.
function openResult(item) {
  if (!item.video) { showView("farm"); return; }
  const address = "/api/file?path=" + encodeURIComponent(item.video);
  const image = /\.(gif|apng)$/.test(item.video);
  $("render-result").hidden = false;
  $("result-name").textContent = item.video;
  $("result-link").href = address;
  $("result-video").hidden = image;
  $("result-image").hidden = !image;
  if (image) $("result-image").src = address; else $("result-video").src = address;
}

// ---- The farm view: `renderfarm status --json` of every render folder, pushed by the server.
function renderFarm(status) {
  $("farm-root").textContent = "render folders under " + status.root;
  const body = document.querySelector("#farm-table tbody");
  body.textContent = "";
  // A render just started has no folder on disk yet: its row says so until the folder is read.
  const running = state.render && state.render.state === "running" ? state.render.folder : null;
  const folders = running && !status.folders.some((folder) => folder.folder === running)
    ? [{ folder: running, name: "", starting: true }].concat(status.folders) : status.folders;
  $("farm-empty").hidden = folders.length > 0;
  for (const folder of folders) {
    const row = el("tr");
    row.dataset.folder = folder.folder;
    if (state.render && state.render.folder === folder.folder) row.classList.add("highlight");
    row.dataset.state = folder.state || "error";
    row.dataset.done = String(folder.done || 0);
    const thumb = el("td");
    if (folder.lastFrame) {
      const image = el("img");
      image.alt = "frame " + folder.lastFrame.index;
      image.src = "/api/file?path=" + encodeURIComponent(folder.folder + "/" + folder.lastFrame.file);
      thumb.append(image, el("div", "frame " + folder.lastFrame.index, "hint"));
    }
    row.append(thumb);
    const name = el("td");
    name.append(el("div", folder.name || ""), el("div", folder.folder, "hint"));
    row.append(name);
    if (folder.error) { row.append(el("td", folder.error, "error")); body.append(row); continue; }
    if (folder.starting) { row.append(el("td", "starting: no frame yet", "state-rendering")); body.append(row); continue; }
    const holders = (folder.holders || []).map((h) => "pid " + h.pid + " on " + h.host + (h.task ? " (" + h.task + ")" : "")).join(", ");
    const stateCell = el("td", folder.state, "state-" + folder.state);
    if (holders) stateCell.append(el("div", holders, "hint"));
    row.append(stateCell);
    const frames = el("td");
    const bar = el("progress");
    bar.max = folder.total;
    bar.value = folder.done;
    frames.append(bar, el("div", folder.done + " of " + folder.total + " done" + (folder.journals > 1 ? " · " + folder.journals + " shards" : ""), "frames-done"));
    row.append(frames);
    row.append(el("td", folder.fps !== undefined ? folder.fps.toFixed(1) : "–"));
    row.append(el("td", folder.etaSeconds !== undefined ? Math.round(folder.etaSeconds) + " s" : "–"));
    const failed = el("td");
    for (const failure of (folder.failed || []).slice(0, 10)) failed.append(el("div", "frame " + failure.frame + ": " + failure.error, "error"));
    if ((folder.failed || []).length > 10) failed.append(el("div", "… " + (folder.failed.length - 10) + " more", "hint"));
    row.append(failed);
    body.append(row);
  }
}

// ---- Wiring.
function showView(name) {
  for (const view of ["author", "farm"]) {
    $(view).hidden = view !== name;
    $("tab-" + view).classList.toggle("active", view === name);
  }
}

document.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => showView(tab.dataset.view)));
$("scrub").addEventListener("input", () => showFrame(Number($("scrub").value)));
$("step-back").addEventListener("click", () => showFrame(state.frame - 1));
$("step-forward").addEventListener("click", () => showFrame(state.frame + 1));
$("play").addEventListener("click", play);
$("sound").addEventListener("change", loadSound);
$("debug").addEventListener("change", () => showFrame(state.frame, true));
$("add-layer").addEventListener("click", addLayer);
$("remove-layer").addEventListener("click", removeLayer);
$("group-layer").addEventListener("click", groupLayer);
$("view-fit").addEventListener("click", () => setView("fit"));
$("view-100").addEventListener("click", () => setView(1));
$("view-200").addEventListener("click", () => setView(2));
$("safe").addEventListener("change", () => { $("safe-areas").hidden = !$("safe").checked; });
$("variant").addEventListener("change", () => { state.variant = Number($("variant").value); loadJob(); });
document.addEventListener("pointerup", () => { state.dragging = null; });
let typing = null;
$("source").addEventListener("scroll", showHighlight);
$("source").addEventListener("input", () => {
  showHighlight();
  clearTimeout(typing);
  showDirty();
  if (autosaving()) typing = setTimeout(() => put($("source").value), 300);
});
// Shortcuts (not while typing): space play/pause, J/K/L back/pause/play, ← → a frame
// (with Shift a second), Home/End the in/out points (or the ends), I/O set them, + / - / 0
// zoom the timeline, Ctrl+Z undo; Ctrl+S saves everywhere.
document.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
    event.preventDefault();
    save();
    return;
  }
  // Keys belong to a field one types in (text, numbers, a list), and Space and Enter to a focused
  // button; everywhere else, a slider or check box just touched too, they drive playback.
  const target = event.target;
  const typing = target.tagName === "TEXTAREA" || target.tagName === "SELECT"
    || (target.tagName === "INPUT" && !["range", "checkbox", "radio", "button", "color"].includes(target.type));
  if (typing) return;
  if (target.tagName === "BUTTON" && [" ", "Enter"].includes(event.key)) return;
  if (!state.job || !state.job.job) return;
  const second = Math.round(state.job.job.fps);
  const [low, high] = range();
  const keys = {
    " ": () => play(), "k": () => { if (state.playing) play(); }, "l": () => { if (!state.playing) play(); },
    "j": () => showFrame(state.frame - 1),
    "ArrowLeft": () => showFrame(state.frame - (event.shiftKey ? second : 1)),
    "ArrowRight": () => showFrame(state.frame + (event.shiftKey ? second : 1)),
    "Home": () => showFrame(low), "End": () => showFrame(high),
    "i": () => setInOut("in"), "o": () => setInOut("out"),
    "+": () => setZoom(state.zoom * 2), "=": () => setZoom(state.zoom * 2), "-": () => setZoom(state.zoom / 2),
    "0": () => setZoom(1),
  };
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z") {
    event.preventDefault();
    undo(event.shiftKey ? "redo" : "undo");
    return;
  }
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "y") {
    event.preventDefault();
    undo("redo");
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const action = keys[event.key.length === 1 ? event.key.toLowerCase() : event.key];
  if (!action) return;
  event.preventDefault();
  action();
});
$("render").addEventListener("click", () => queueRender());
$("result-close").addEventListener("click", () => {
  $("render-result").hidden = true;
  $("result-video").pause();
});
$("render-stop").addEventListener("click", () => fetch("/api/render", { method: "DELETE" }));
$("undo").addEventListener("click", () => undo("undo"));
$("redo").addEventListener("click", () => undo("redo"));
$("clear-inout").addEventListener("click", () => { state.in = null; state.out = null; showInOut(); });
$("tracks").addEventListener("click", (event) => {
  // The click that ends a bar's drag is not a seek.
  if (state.draggedBar) { state.draggedBar = false; return; }
  if (!state.job || !state.job.job) return;
  const box = $("tracks-inner").getBoundingClientRect();
  const share = Math.min(Math.max((event.clientX - box.left) / box.width, 0), 0.9999);
  showFrame(Math.floor(share * state.job.job.frameCount));
  const track = event.target.closest && event.target.closest(".track[data-layer]");
  if (track && event.target.classList.contains("bar")) select(Number(track.dataset.layer));
});

listen({
  job: (data) => {
    // An event about the version shown, or an older one of this studio run (a save's event told after
    // the answer to a later save), changes nothing: the controls are not built again under the pointer.
    const change = JSON.parse(data);
    if (!state.job || (change.etag !== state.job.etag && !olderThan(change.etag, state.newest))) loadJob();
  },
  inputs: (data) => {
    // A file the layers read changed: the frames it decides are drawn again.
    state.generation = JSON.parse(data).generation;
    showFrame(state.frame, true);
    loadSound();
  },
  status: (data) => { state.farm = JSON.parse(data); renderFarm(state.farm); },
  render: (data) => {
    const render = JSON.parse(data);
    queueHeard(render);
    // The top line follows the render that runs and the last that finished.
    if (render.state === "queued" || render.state === "removed") return;
    const started = render.state === "running" && !(state.render && state.render.state === "running");
    state.render = render;
    const running = render.state === "running";
    $("render-status").hidden = false;
    $("render-stop").hidden = !running;
    const bar = $("render-progress");
    bar.hidden = !running || render.total === undefined;
    if (render.total !== undefined) { bar.max = render.total; bar.value = render.done; }
    // Progress comes from the render's own --progress json lines, relayed by the server.
    if (started) state.renderProgress = "";
    if (render.total !== undefined) {
      state.renderProgress = render.done + " of " + render.total + " frames" + (render.failed ? ", " + render.failed + " failed" : "");
    }
    $("render-state").textContent = running ? "rendering frames " + render.frames + " into " + (render.video || render.folder) + ": " + (state.renderProgress || "starting…")
      : "render of frames " + render.frames + " finished: " + (render.status === 0 ? "complete" : "exit " + render.status +
        (render.message ? ": " + render.message : "")) + (state.renderProgress ? " (" + state.renderProgress + ")" : "");
    // The tab whose button started a render of frames shows the farm; other tabs show the progress at the top.
    if (started && state.renderRequested === render.id) showView("farm");
    if (started && state.renderRequested === render.id) state.renderRequested = null;
    if (state.farm) renderFarm(state.farm);
  },
});

// The server's events (GET /api/events), one stream per browser however many tabs show this
// studio: a browser opens at most six connections to a host, and a stream held by every tab
// would leave the sixth tab no connection for its frames. The tab holding a Web Lock opens the
// stream and passes each event to the others over a BroadcastChannel; when it closes, another
// tab takes the lock and the stream. (Without Web Locks, outside a secure context, each tab
// opens its own.)
function listen(handlers) {
  const connection = (text) => { $("connection").textContent = text; };
  const deliver = (name, data) => { if (handlers[name]) handlers[name](data); };
  let shared = null, heldState = null;
  const open = () => {
    const source = new EventSource("/api/events");
    const tell = (text) => { heldState = text; connection(text); if (shared) shared.postMessage({ connection: text }); };
    source.addEventListener("open", () => tell("live"));
    source.addEventListener("error", () => tell("reconnecting…"));
    for (const name of Object.keys(handlers)) {
      source.addEventListener(name, (event) => {
        deliver(name, event.data);
        if (shared) shared.postMessage({ name, data: event.data });
      });
    }
  };
  if (!navigator.locks || typeof BroadcastChannel === "undefined") { open(); return; }
  shared = new BroadcastChannel("renderfarm-studio-events");
  shared.onmessage = (message) => {
    const { name, data, connection: said, hello } = message.data || {};
    if (hello) { if (heldState) shared.postMessage({ connection: heldState }); return; }
    if (said) connection(said === "live" && !heldState ? "live (through another tab)" : said);
    if (name) deliver(name, data);
  };
  // A tab that does not hold the stream asks the holder how it is, and reads the farm itself
  // (the stream's opening status went to the tab that opened it).
  shared.postMessage({ hello: true });
  fetch("/api/status").then((response) => response.ok ? response.text() : null)
    .then((text) => { if (text && !heldState) handlers.status(text); }).catch(() => {});
  // Held until this tab closes: the promise never settles.
  navigator.locks.request("renderfarm-studio-events", () => new Promise(() => open()));
}
wireTools();
showOutputs();
loadQueue();
loadJob();

"use strict";
// Unit tests of the studio page's state logic (Sources/StudioPage/page/studio-state.js) in Node, run by
// `make studio-test` before the browser test: the JSON text edits, versions, the merge and the undo history.
// Cases are generated from fixed seeds, so a failure names its seed and case and can be replayed.
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const state = require(path.join(__dirname, "../../Sources/StudioPage/page/studio-state.js"));

// A small seeded generator (mulberry32): the same seed gives the same cases on every machine.
function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (list) => list[int(0, list.length - 1)];
  const sample = (list, n) => {
    const copy = list.slice();
    const out = [];
    while (out.length < n && copy.length) out.push(copy.splice(int(0, copy.length - 1), 1)[0]);
    return out;
  };
  return { next, int, pick, sample };
}

const copy = (value) => JSON.parse(JSON.stringify(value));
const at = (value, where) => where.reduce((node, key) => node[key], value);
function setAt(value, where, next) { at(value, where.slice(0, -1))[where[where.length - 1]] = next; }

// A job-like document: layers with parameters of every JSON kind, some nested.
function documentOf(rng) {
  const scalar = () => rng.pick([rng.int(-100, 100), rng.next(), "#" + rng.int(0, 0xffffff).toString(16), true, null, "a \"quoted\" \\ text"]);
  const value = (depth) => {
    const kind = depth > 2 ? 0 : rng.int(0, 3);
    if (kind === 2) return Array.from({ length: rng.int(0, 3) }, () => value(depth + 1));
    if (kind === 3) return Object.fromEntries(Array.from({ length: rng.int(0, 3) }, (_, i) => ["k" + i, value(depth + 1)]));
    return scalar();
  };
  const layers = Array.from({ length: rng.int(1, 4) }, () => ({
    effect: rng.pick(["shape", "text", "floating-heart"]),
    start: rng.int(0, 5),
    params: Object.fromEntries(rng.sample(["rate", "size", "color", "emitter", "lifetime", "text"], rng.int(1, 4))
      .map((name) => [name, value(0)])),
  }));
  return { version: 1, name: "job" + rng.int(0, 99), fps: 30, layers };
}

// Every place in `value`: [path, node] for the root, each member and each item.
function places(value, where = [], found = []) {
  found.push(where);
  if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) places(value[key], where.concat([Array.isArray(value) ? Number(key) : key]), found);
  }
  return found;
}

// The leaves of `value` (the paths the page's edits and another program's edits set).
function leaves(value, where = []) {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return Object.keys(value).flatMap((key) => leaves(value[key], where.concat([key])));
  }
  return [where];
}

const textOf = (rng, value) => JSON.stringify(value, null, rng.pick([0, 2, 4]));

test("setValue replaces one value and leaves every other byte of the text", () => {
  const rng = random(1);
  for (let n = 0; n < 500; n++) {
    const doc = documentOf(rng);
    const text = textOf(rng, doc);
    const where = rng.pick(places(doc).filter((p) => p.length > 0));
    const next = rng.pick([rng.int(0, 9), "new", [1, 2], { a: 1 }]);
    const edited = state.setValue(text, where, JSON.stringify(next));
    const expected = copy(doc);
    setAt(expected, where, next);
    assert.deepEqual(JSON.parse(edited), expected, `case ${n}: ${JSON.stringify(where)}`);
    const node = state.nodeAt(state.locate(text), where);
    assert.equal(edited.slice(0, node.start), text.slice(0, node.start), `case ${n}: the text before changed`);
    assert.equal(edited.slice(edited.length - (text.length - node.end)), text.slice(node.end), `case ${n}: the text after changed`);
  }
});

test("setValue adds missing members, nested, and refuses a missing list item", () => {
  const rng = random(2);
  for (let n = 0; n < 300; n++) {
    const doc = documentOf(rng);
    const text = textOf(rng, doc);
    const layer = rng.int(0, doc.layers.length - 1);
    const where = ["layers", layer, "transform", "position"].slice(0, rng.int(3, 4));
    const edited = JSON.parse(state.setValue(text, where, "[1, 2]"));
    const expected = copy(doc);
    if (where.length === 4) expected.layers[layer].transform = { position: [1, 2] };
    else expected.layers[layer].transform = [1, 2];
    assert.deepEqual(edited, expected, `case ${n}`);
  }
  assert.equal(state.setValue('{"layers": []}', ["layers", 3, "opacity"], "1"), null);
});

test("removeValue takes out one member or item with its comma", () => {
  const rng = random(3);
  for (let n = 0; n < 500; n++) {
    const doc = documentOf(rng);
    const text = textOf(rng, doc);
    const where = rng.pick(places(doc).filter((p) => p.length > 0));
    const expected = copy(doc);
    const parent = at(expected, where.slice(0, -1));
    if (Array.isArray(parent)) parent.splice(where[where.length - 1], 1); else delete parent[where[where.length - 1]];
    const edited = state.removeValue(text, where);
    assert.deepEqual(JSON.parse(edited), expected, `case ${n}: ${JSON.stringify(where)} from ${text}`);
  }
  assert.equal(state.removeValue('{"a": 1}', ["b"]), null);
});

test("appendValue adds a last item on its own line, indented as the others", () => {
  const rng = random(4);
  for (let n = 0; n < 300; n++) {
    const doc = documentOf(rng);
    const text = textOf(rng, doc);
    const edited = state.appendValue(text, ["layers"], '{"effect": "text"}');
    const expected = copy(doc);
    expected.layers.push({ effect: "text" });
    assert.deepEqual(JSON.parse(edited), expected, `case ${n}`);
    if (text.includes("\n")) {
      const lines = edited.split("\n");
      const added = lines.find((line) => line.includes('{"effect": "text"}'));
      const first = lines.find((line) => /^\s*\{$/.test(line) && line.length > 1);
      if (first) assert.equal(/^\s*/.exec(added)[0], /^\s*/.exec(first)[0], `case ${n}: indent`);
    }
  }
  assert.equal(state.appendValue('{"a": 1}', ["a"], "2"), null);
  assert.equal(state.appendValue('{"a": []}', ["a"], "2"), '{"a": [2]}');
  // An empty list of a text on lines gets its first item on a line of its own, a step further in.
  assert.equal(state.appendValue('{\n  "name": "x",\n  "layers": []\n}', ["layers"], '{"effect": "text"}'),
    '{\n  "name": "x",\n  "layers": [\n    {"effect": "text"}\n  ]\n}');
});

test("splitPath and joinPath are each other's inverse; lineOf finds a path's line", () => {
  const rng = random(5);
  for (let n = 0; n < 200; n++) {
    const doc = documentOf(rng);
    for (const where of places(doc).filter((p) => p.length > 0 && typeof p[0] === "string")) {
      assert.deepEqual(state.splitPath(state.joinPath(where)), where);
    }
  }
  for (let n = 0; n < 200; n++) {
    const doc = documentOf(rng);
    const text = textOf(rng, doc);
    const where = rng.pick(places(doc).filter((p) => p.length > 0 && typeof p[0] === "string"));
    const span = state.spanOf(text, state.joinPath(where));
    assert.deepEqual(JSON.parse(text.slice(span.start, span.end)), at(doc, where), `case ${n}`);
    assert.equal(span.line, text.slice(0, span.start).split("\n").length);
    // A member the file leaves out: the value that would hold it.
    const missing = state.spanOf(text, state.joinPath(where) + ".nowhere.deeper");
    const holder = typeof at(doc, where) === "object" && at(doc, where) !== null && !Array.isArray(at(doc, where));
    if (holder) assert.deepEqual([missing.exact, missing.start], [false, span.start], `case ${n}`);
  }
  const text = '{\n  "layers": [\n    {"effect": "text",\n     "params": {"rate": 3}}\n  ]\n}';
  assert.equal(state.lineOf(text, "layers[0].params.rate"), 4);
  assert.equal(state.lineOf(text, "layers[2]"), null);
  assert.equal(state.lineOf("{ not json", "layers"), null);
  assert.throws(() => state.locate('{"a": }'));
});

test("olderThan: versions of one run are ordered, another run's never older", () => {
  const rng = random(6);
  for (let n = 0; n < 300; n++) {
    const [run, other] = [rng.int(1, 9e6).toString(36), rng.int(1, 9e6).toString(36) + "x"];
    const [a, b] = [rng.int(0, 50), rng.int(0, 50)];
    const tag = (r, v) => '"' + r + "-" + v + '"';
    assert.equal(state.olderThan(tag(run, a), tag(run, b)), a < b, `case ${n}`);
    assert.equal(state.olderThan(tag(other, a), tag(run, b)), false);
  }
  assert.equal(state.olderThan('"r-1"', null), false);
  assert.equal(state.olderThan(undefined, '"r-1"'), false);
});

test("rebase keeps another program's edit and refuses one that touched the same values", () => {
  const rng = random(48);
  let [merged, refused] = [0, 0];
  for (let n = 0; n < 300; n++) {
    const before = documentOf(rng);
    const spots = leaves(before);
    const mine = rng.sample(spots, rng.int(1, 2));
    const theirs = rng.sample(spots, rng.int(1, 2));
    const after = copy(before);
    for (const where of mine) setAt(after, where, rng.int(1000, 2000));
    const current = copy(after);
    for (const where of theirs) setAt(current, where, "theirs-" + rng.int(0, 99));
    const result = state.rebase(textOf(rng, current), textOf(rng, after), textOf(rng, before));
    const key = (where) => JSON.stringify(where);
    if (mine.some((m) => theirs.some((t) => key(t) === key(m)))) {
      assert.equal(result, null, `case ${n}: both edited one value, merged anyway`);
      refused++;
      continue;
    }
    const expected = copy(before);
    for (const where of theirs) setAt(expected, where, at(current, where));
    assert.notEqual(result, null, `case ${n}: disjoint edits refused`);
    assert.deepEqual(JSON.parse(result), expected, `case ${n}`);
    merged++;
  }
  assert.ok(merged > 100 && refused > 100, `both kinds of case generated: ${merged} merged, ${refused} refused`);
  assert.equal(state.rebase("{ broken", "{}", "{}"), null);
});

test("record: one step per gesture, undo and redo move steps between the lists", () => {
  const rng = random(7);
  for (let n = 0; n < 200; n++) {
    const history = { undo: [], redo: [] };
    const texts = ["t0"];
    const gesture = "g" + n;
    const moves = rng.int(1, 8);
    for (let k = 1; k <= moves; k++) {
      texts.push("t" + k);
      state.record(history, texts[k - 1], texts[k], null, gesture);
    }
    assert.deepEqual(history.undo, [{ from: "t" + moves, to: "t0", gesture }], `case ${n}: one step for the drag`);
    // The drag goes back to where it began: no step at all.
    state.record(history, "t" + moves, "t0", null, gesture);
    assert.deepEqual(history.undo, [], `case ${n}`);
  }
  const history = { undo: [], redo: [] };
  state.record(history, "a", "b", null, null);
  state.record(history, "b", "c", null, null);
  assert.equal(history.undo.length, 2, "edits without a gesture are a step each");
  const step = history.undo.pop();
  state.record(history, "c", "b", "undo", null);
  assert.deepEqual(history.redo, [{ from: "b", to: "c", gesture: null }]);
  assert.equal(step.to, "b");
  state.record(history, "b", "x", null, null);
  assert.deepEqual(history.redo, [], "a new edit ends the redo list");
});

test("takeBackText undoes over another program's edit, and stepPlaces names a refused step's places", () => {
  const rng = random(8);
  for (let n = 0; n < 200; n++) {
    const before = documentOf(rng);
    const spots = leaves(before);
    const [mine, theirs] = rng.sample(spots, 2);
    if (!theirs) continue;
    const after = copy(before);
    setAt(after, mine, "mine");
    const step = { from: textOf(rng, after), to: textOf(rng, before) };
    assert.equal(state.takeBackText(step.from, step), step.to, "the file as the step left it: its own text");
    const now = copy(after);
    setAt(now, theirs, "theirs");
    const expected = copy(before);
    setAt(expected, theirs, "theirs");
    assert.deepEqual(JSON.parse(state.takeBackText(textOf(rng, now), step)), expected, `case ${n}`);
    setAt(now, mine, "both");
    assert.equal(state.takeBackText(textOf(rng, now), step), null, `case ${n}`);
    assert.equal(state.stepPlaces(step), state.joinPath(mine));
  }
});

test("lineDiff shows the differing lines of each side between shared context", () => {
  const rng = random(9);
  for (let n = 0; n < 200; n++) {
    const theirs = Array.from({ length: rng.int(1, 30) }, (_, i) => "line " + i);
    const mine = theirs.slice();
    const at = rng.int(0, mine.length - 1);
    const removed = mine.splice(at, rng.int(0, 3), ...Array.from({ length: rng.int(1, 3) }, (_, i) => "mine " + i));
    const diff = state.lineDiff(theirs.join("\n"), mine.join("\n")).split("\n");
    assert.deepEqual(diff.filter((l) => l.startsWith("+ ")).map((l) => l.slice(2)), mine.filter((l) => l.startsWith("mine")));
    assert.deepEqual(diff.filter((l) => l.startsWith("- ")).map((l) => l.slice(2)), removed, `case ${n}`);
  }
});

test("binding: a value a variant fills is bound, inside lists and objects too", () => {
  const written = {
    variants: { csv: "senders.csv", matrix: { "layers[0].params.rate": [1, 2] } },
    layers: [{ params: { rate: 3, colors: ["{{color}}", "#fff"], text: "Hi {{user}}", style: { fill: "{{fill}}" }, size: 4 } }],
  };
  assert.equal(state.binding(written, ["layers", 0, "params", "colors"]), '["{{color}}","#fff"]');
  assert.equal(state.binding(written, ["layers", 0, "params", "text"]), "Hi {{user}}");
  assert.equal(state.binding(written, ["layers", 0, "params", "style"]), '{"fill":"{{fill}}"}');
  assert.equal(state.binding(written, ["layers", 0, "params", "rate"]), 'variants.matrix "layers[0].params.rate"');
  assert.equal(state.binding(written, ["layers", 0, "params", "size"]), null);
  assert.equal(state.binding({ layers: written.layers }, ["layers", 0, "params", "text"]), null, "not a variants job");
});

test("jsonTokens: the tokens make up the text, every member's name is a key, any text is kept whole", () => {
  const rng = random(10);
  for (let n = 0; n < 300; n++) {
    const doc = documentOf(rng);
    const text = textOf(rng, doc);
    const tokens = state.jsonTokens(text);
    assert.equal(tokens.map((token) => token.text).join(""), text, `case ${n}`);
    const members = places(doc).filter((p) => typeof p[p.length - 1] === "string").length;
    assert.equal(tokens.filter((token) => token.kind === "key").length, members, `case ${n}: keys`);
    assert.ok(!tokens.some((token) => token.kind === "other"), `case ${n}: JSON marked as not JSON`);
    // Cut anywhere and garbled: still every character, in order.
    const cut = text.slice(0, rng.int(0, text.length)) + rng.pick(['"open', "@#!", "\n-", "tru", "\\"]);
    assert.equal(state.jsonTokens(cut).map((token) => token.text).join(""), cut, `case ${n}: cut`);
  }
  const kinds = state.jsonTokens('{"a": [1, true, "x"], "b": nul}').map((token) => token.kind + ":" + token.text);
  assert.deepEqual(kinds.filter((kind) => !kind.startsWith("space") && !kind.startsWith("punct")),
    ['key:"a"', "number:1", "literal:true", 'string:"x"', 'key:"b"', "other:nul"]);
});

test("previewHidden: hidden layers are left out; while any is soloed, every layer not soloed too", () => {
  const rng = random(48);
  for (let run = 0; run < 300; run++) {
    const paths = Array.from({ length: rng.int(1, 12) }, (_, index) => rng.next() < 0.3 ? "layers[0].group[" + index + "]" : "layers[" + index + "]");
    // Sets may name paths the job no longer has (a layer removed since): they change nothing.
    const names = paths.concat(["layers[99]"]);
    const hidden = new Set(rng.sample(names, rng.int(0, 4)));
    const soloed = new Set(rng.sample(names, rng.int(0, 3)));
    const left = state.previewHidden(paths, hidden, soloed);
    const soloing = paths.some((path) => soloed.has(path));
    const shown = paths.map((path, index) => !left.includes(index));
    paths.forEach((path, index) => {
      const expected = !hidden.has(path) && (!soloing || soloed.has(path));
      assert.equal(shown[index], expected, "run " + run + ": " + path);
    });
    assert.deepEqual(left, left.slice().sort((a, b) => a - b), "run " + run + ": places in order");
  }
  assert.deepEqual(state.previewHidden(["a", "b", "c"], new Set(), new Set()), []);
  assert.deepEqual(state.previewHidden(["a", "b", "c"], new Set(["b"]), new Set(["b", "c"])), [0, 1]);
});

// The paths of every layer in a job's layer lists, groups' layers too.
function layerPaths(list, where = ["layers"], found = []) {
  list.forEach((layer, index) => {
    const path = where.concat([index]);
    found.push(path);
    if (Array.isArray(layer.group)) layerPaths(layer.group, path.concat(["group"]), found);
  });
  return found;
}

test("groupValue puts one layer alone in a new group, its text kept; removeLayerValue takes a group with its last layer", () => {
  const rng = random(4848);
  for (let run = 0; run < 300; run++) {
    const job = documentOf(rng);
    // Some layers already in groups, some groups of one layer.
    job.layers = job.layers.map((layer) => (rng.next() < 0.3 ? { name: "g", group: rng.next() < 0.5 ? [layer] : [layer, copy(layer)] } : layer));
    const text = textOf(rng, job);
    const path = rng.pick(layerPaths(job.layers));
    const grouped = state.groupValue(text, path);
    const expected = copy(job);
    setAt(expected, path, { group: [at(job, path)] });
    assert.deepEqual(JSON.parse(grouped), expected, "run " + run + ": group " + state.joinPath(path));
    const own = text.slice(state.nodeAt(state.locate(text), path).start, state.nodeAt(state.locate(text), path).end);
    assert.ok(grouped.includes(own), "run " + run + ": the layer's text is kept as written");

    const removed = JSON.parse(state.removeLayerValue(text, path));
    // The expected: the item out of its list, and each group it empties out of its own list, outwards.
    const left = copy(job);
    let where = path;
    for (;;) {
      const list = at(left, where.slice(0, -1));
      list.splice(where[where.length - 1], 1);
      if (list.length || where.length <= 2) break;
      where = where.slice(0, -2);
    }
    assert.deepEqual(removed, left, "run " + run + ": remove " + state.joinPath(path));
  }
  assert.equal(state.groupValue('{"layers": [1]}', ["layers", 0]), null, "not a layer");
  assert.equal(state.groupValue('{"layers": []}', ["layers", 0]), null, "no layer there");
});

"use strict";
// The studio page's state logic, without the page: the job text as JSON with offsets (an edit replaces
// one value and keeps the rest of the text), the versions answers carry, the merge that undo, redo and
// a conflict use, and the undo history. Loaded by the page before `studio-tools.js` and `studio.js`,
// and by `Tests/Studio/state.test.js` in Node, which unit-tests it before the browser test.

function locate(text) {
  let i = 0;
  const space = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
  function string() {
    const start = i;
    if (text[i] !== '"') throw new Error("expected a string at " + i);
    i++;
    while (i < text.length && text[i] !== '"') { if (text[i] === "\\") i++; i++; }
    i++;
    return { start, value: JSON.parse(text.slice(start, i)) };
  }
  function value() {
    space();
    const start = i, c = text[i];
    if (c === "{" || c === "[") {
      const object = c === "{", close = object ? "}" : "]";
      const node = object ? { type: "object", start, members: {} } : { type: "array", start, items: [] };
      i++; space();
      if (text[i] === close) { i++; node.end = i; return node; }
      for (;;) {
        space();
        if (object) {
          const key = string(); space();
          if (text[i] !== ":") throw new Error("expected : at " + i);
          i++;
          const member = value();
          member.keyStart = key.start;
          node.members[key.value] = member;
        } else {
          node.items.push(value());
        }
        space();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === close) { i++; node.end = i; return node; }
        throw new Error("expected , or " + close + " at " + i);
      }
    }
    if (c === '"') { string(); return { type: "string", start, end: i }; }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) throw new Error("unexpected character at " + i);
    i += m[0].length;
    return { type: "scalar", start, end: i };
  }
  return value();
}

function nodeAt(root, path) {
  let node = root;
  for (const key of path) {
    if (!node) return null;
    node = typeof key === "number" ? (node.items || [])[key] : (node.members || {})[key];
  }
  return node || null;
}

// "layers[0].params.rate" -> ["layers", 0, "params", "rate"]
function splitPath(path) {
  return (path.match(/[^.[\]]+/g) || []).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

// ["layers", 1, "group", 0, "params", "rate"] -> "layers[1].group[0].params.rate"
function joinPath(path) {
  return path.map((part, i) => (typeof part === "number" ? "[" + part + "]" : (i ? "." : "") + part)).join("");
}

// The text with the value at `path` replaced by `json` (members added where missing), or null.
function setValue(text, path, json) {
  const root = locate(text);
  const found = nodeAt(root, path);
  if (found) return text.slice(0, found.start) + json + text.slice(found.end);
  for (let n = path.length - 1; n >= 0; n--) {
    const parent = nodeAt(root, path.slice(0, n));
    if (!parent) continue;
    if (parent.type !== "object" || typeof path[n] === "number") return null;
    let inner = json;
    for (let k = path.length - 1; k > n; k--) inner = "{ " + JSON.stringify(path[k]) + ": " + inner + " }";
    const member = JSON.stringify(path[n]) + ": " + inner;
    const members = Object.values(parent.members);
    if (members.length === 0) return text.slice(0, parent.start + 1) + " " + member + " " + text.slice(parent.end - 1);
    const last = members.reduce((a, b) => (a.end > b.end ? a : b));
    return text.slice(0, last.end) + ", " + member + text.slice(last.end);
  }
  return null;
}

// The text without the value at `path`: an object's member (key and value) or a list's item, with the
// comma that joined it to the next one, or to the one before when it is the last; null when there is none.
function removeValue(text, path) {
  const root = locate(text);
  const parent = nodeAt(root, path.slice(0, -1)), node = nodeAt(root, path);
  if (!parent || !node) return null;
  const inList = parent.type === "array";
  if (inList !== (typeof path[path.length - 1] === "number")) return null;
  const start = (entry) => (inList ? entry.start : entry.keyStart);
  const entries = inList ? parent.items : Object.values(parent.members).sort((a, b) => a.keyStart - b.keyStart);
  const index = entries.indexOf(node);
  const [from, to] = index < entries.length - 1 ? [start(node), start(entries[index + 1])]
    : index > 0 ? [entries[index - 1].end, node.end] : [start(node), node.end];
  return text.slice(0, from) + text.slice(to);
}

// The text with `json` added as the last item of the list at `path`, or null when there is no list there.
function appendValue(text, path, json) {
  const list = nodeAt(locate(text), path);
  if (!list || list.type !== "array") return null;
  const last = list.items[list.items.length - 1];
  if (!last) {
    // An empty list in a text laid out on lines (the first indented line gives the step): the item on
    // a line of its own, indented a step further than the list's line.
    const step = /\n([ \t]+)\S/.exec(text);
    if (!step) return text.slice(0, list.start + 1) + json + text.slice(list.end - 1);
    const indent = lineIndent(text, list.start).indent;
    return text.slice(0, list.start + 1) + "\n" + indent + step[1] + json + "\n" + indent + text.slice(list.end - 1);
  }
  // The new item goes on a line of its own, indented as the last one, when that one has its own line.
  const { start, indent } = lineIndent(text, last.start);
  const newline = start > list.start ? "\n" + indent : " ";
  return text.slice(0, last.end) + "," + newline + json + text.slice(last.end);
}

// The text with the layer at `path` (an item of a layer list) alone in a new group in its place, its own
// text kept as written; null when there is no layer there.
function groupValue(text, path) {
  const node = nodeAt(locate(text), path);
  if (!node || node.type !== "object" || typeof path[path.length - 1] !== "number") return null;
  return text.slice(0, node.start) + '{ "group": [ ' + text.slice(node.start, node.end) + " ] }" + text.slice(node.end);
}

// The text without the layer at `path`; a group left with no layer (which is not valid) goes with it.
function removeLayerValue(text, path) {
  const root = locate(text);
  let at = path;
  while (at.length > 2) {
    const list = nodeAt(root, at.slice(0, -1));
    if (!list || list.type !== "array" || list.items.length > 1) break;
    at = at.slice(0, -2);
  }
  return removeValue(text, at);
}

// Where the line holding `offset` starts in `text`, and its indentation.
function lineIndent(text, offset) {
  const start = text.lastIndexOf("\n", offset) + 1;
  return { start, indent: /^[ \t]*/.exec(text.slice(start))[0] };
}

// Where the value at `path` ("layers[0].params.rate") is in `text`: {start, end, line}; for a member the
// file leaves out, the place of the nearest value holding it; null when the text is not JSON.
function spanOf(text, path) {
  try {
    const root = locate(text);
    const parts = splitPath(path);
    for (let n = parts.length; n >= 0; n--) {
      const node = nodeAt(root, parts.slice(0, n));
      if (node) return { start: node.start, end: node.end, line: text.slice(0, node.start).split("\n").length, exact: n === parts.length };
    }
    return null;
  } catch (e) { return null; }
}

function lineOf(text, path) {
  const span = spanOf(text, path);
  return span && span.exact ? span.line : null;
}

// The text as tokens for highlighting, in order, their texts together the whole text: "key" (a string
// before a colon), "string", "number", "literal" (true, false, null), "punct", "space", and "other" for
// anything else, so text that is not JSON (yet) is still shown whole.
function jsonTokens(text) {
  const tokens = [];
  const pattern = /("(?:[^"\\\n]|\\.)*"?)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)\b|([{}[\],:])|(\s+)|([^"\s{}[\],:]+)/gy;
  for (let at = 0; at < text.length; at = pattern.lastIndex) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) { tokens.push({ kind: "other", text: text.slice(at) }); break; }
    const [whole, string, number, literal, punct, space] = match;
    let kind = string !== undefined ? "string" : number !== undefined ? "number" : literal !== undefined ? "literal"
      : punct !== undefined ? "punct" : space !== undefined ? "space" : "other";
    if (kind === "string" && /^\s*:/.test(text.slice(pattern.lastIndex))) kind = "key";
    const last = tokens[tokens.length - 1];
    if (last && last.kind === kind && (kind === "space" || kind === "other")) last.text += whole; else tokens.push({ kind, text: whole });
  }
  return tokens;
}

// An ETag is "<studio run>-<version>"; versions grow within a run. True when `etag` names an
// older version than `newest` of the same run. A page left open across a restart sees another run,
// whose versions start again: its answers are never older.
function olderThan(etag, newest) {
  if (!newest || !etag) return false;
  const parse = (tag) => {
    const cut = tag.lastIndexOf("-");
    return { run: tag.slice(0, cut), version: Number(tag.slice(cut + 1, -1)) };
  };
  const seen = parse(newest), answer = parse(etag);
  return seen.run === answer.run && answer.version < seen.version;
}

// The lines where `theirs` and `mine` differ, between the lines they share at the start and
// the end, with two lines around: "- " the file's, "+ " the edit's.
function lineDiff(theirs, mine) {
  const [a, b] = [theirs.split("\n"), mine.split("\n")];
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - 2);
  const context = (lines) => lines.map((line) => "  " + line);
  return [
    from > 0 ? "  … (line " + (from + 1) + ")" : null,
    ...context(a.slice(from, head)),
    ...a.slice(head, a.length - tail).map((line) => "- " + line),
    ...b.slice(head, b.length - tail).map((line) => "+ " + line),
    ...context(a.slice(a.length - tail, Math.min(a.length, a.length - tail + 2))),
  ].filter((line) => line !== null).join("\n");
}

function parsed(text) { try { return JSON.parse(text); } catch (e) { return undefined; } }

// The paths at which two JSON values part, each as deep as both go (a list whose length
// differs is one place).
function differences(a, b, path = [], found = []) {
  if (JSON.stringify(a) === JSON.stringify(b)) return found;
  const alike = a !== null && b !== null && typeof a === "object" && typeof b === "object"
    && Array.isArray(a) === Array.isArray(b) && (!Array.isArray(a) || a.length === b.length);
  if (!alike) { found.push(path); return found; }
  for (const key of new Set(Object.keys(a).concat(Object.keys(b)))) {
    differences(a[key], b[key], path.concat([Array.isArray(a) ? Number(key) : key]), found);
  }
  return found;
}

// `current` with the changes that take `from` to `to` made in it, or null when that cannot be
// done without losing a change of `current`'s: it holds another value at one of those places,
// or a place is a member `to` has not (a removal).
function rebase(current, from, to) {
  const [now, a, b] = [parsed(current), parsed(from), parsed(to)];
  if (now === undefined || a === undefined || b === undefined) return null;
  let text = current;
  for (const path of differences(a, b)) {
    const want = nodeValue(b, path);
    if (want === undefined || JSON.stringify(nodeValue(now, path)) !== JSON.stringify(nodeValue(a, path))) return null;
    try { text = setValue(text, path, JSON.stringify(want)); } catch (e) { return null; }
    if (text === null) return null;
  }
  return text;
}

// What fills `path` in each variant instead of the template's own value: a {{placeholder}}
// in the template, also one inside a list or object (["{{color}}"]), or a key of
// variants.matrix; null when the template's value is used. A control so filled shows the
// variant's value and edits nothing: saving it would write one variant's value over the placeholder.
function binding(written, path) {
  if (!written || !written.variants) return null;
  const value = nodeValue(written, path);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (typeof text === "string" && /\{\{[^}]*\}\}/.test(text)) return text;
  const key = path.join(".");
  for (const name of Object.keys(written.variants.matrix || {})) {
    if (splitPath(name).join(".") === key) return "variants.matrix \"" + name + "\"";
  }
  return null;
}

function nodeValue(value, path) {
  for (const key of path) value = value === null || value === undefined ? undefined : value[key];
  return value;
}

// Records in `history` ({undo, redo}: lists of steps, each {from, to, gesture}: the file's text
// after an edit and before it) a saved edit that took the file from `before` to `after`.
// `direction` is "undo" or "redo" when the save took a step back or forward, else null; the saves
// of one `gesture` (a slider's drag) are one step.
function record(history, before, after, direction, gesture) {
  const back = { from: after, to: before, gesture };
  if (direction === "undo") { history.redo.push(back); return; }
  if (direction === "redo") { history.undo.push(back); return; }
  history.redo = [];
  const last = history.undo[history.undo.length - 1];
  if (gesture && last && last.gesture === gesture && last.from === before) {
    // The same gesture goes on: its one step now takes back to where the gesture began.
    last.from = after;
    if (last.from === last.to) history.undo.pop();
    return;
  }
  history.undo.push(back);
}

// The file's text with `step` taken back from `saved` (the file as it is now): the step's own text
// when the file is as the step left it; else the step's changes made in `saved`, keeping what
// another program or page changed (`rebase`); null when they touched the same values.
function takeBackText(saved, step) {
  return saved === step.from ? step.to : rebase(saved, step.from, step.to);
}

// The places (`layers[0].params.rate`) a step changes, in words.
function stepPlaces(step) {
  return differences(parsed(step.from), parsed(step.to)).map(joinPath).join(", ") || "the file";
}

// Hide and solo: the layers the preview leaves out, as places in `paths` (GET /api/job's layers, by
// path). A hidden layer is left out; while any layer is soloed, so is every layer not soloed. Hidden
// wins over solo, as in After Effects.
function previewHidden(paths, hidden, soloed) {
  const soloing = paths.some((path) => soloed.has(path));
  const out = [];
  paths.forEach((path, index) => { if (hidden.has(path) || (soloing && !soloed.has(path))) out.push(index); });
  return out;
}

if (typeof module === "object") {
  module.exports = { previewHidden, locate, nodeAt, splitPath, joinPath, setValue, removeValue, appendValue, groupValue, removeLayerValue, spanOf, lineOf, jsonTokens, olderThan, lineDiff, parsed, differences, rebase, binding, nodeValue, record, takeBackText, stepPlaces };
}

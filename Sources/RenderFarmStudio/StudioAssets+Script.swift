extension StudioAssets {
    static let script = #"""
        "use strict";
        const $ = (id) => document.getElementById(id);
        const state = { job: null, frame: 0, playing: false, loading: false, sent: null, timer: null };

        function el(tag, text, className) {
          const node = document.createElement(tag);
          if (text !== undefined && text !== null) node.textContent = text;
          if (className) node.className = className;
          return node;
        }

        // ---- The job text as JSON with offsets, so an edit replaces one value and keeps the rest.
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
                  node.members[key.value] = value();
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

        function lineOf(text, path) {
          try {
            const node = nodeAt(locate(text), splitPath(path));
            return node ? text.slice(0, node.start).split("\n").length : null;
          } catch (e) { return null; }
        }

        // ---- The job: load, show, validate and write.
        async function loadJob() {
          const response = await fetch("/api/job");
          if (!response.ok) return;
          applyJob(await response.json(), true);
        }

        function applyJob(job, fromServer) {
          const source = $("source");
          const editing = document.activeElement === source && source.value !== job.text;
          if (!editing || fromServer === "force") source.value = job.text;
          state.job = job;
          $("file").textContent = job.file + " · version " + job.version;
          showValidation(job);
          if (job.job) {
            const scrub = $("scrub");
            scrub.max = String(job.job.frameCount - 1);
            if (state.frame > job.job.frameCount - 1) state.frame = 0;
            renderControls();
            showFrame(state.frame, true);
          }
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
            item.append(el("code", (issue.path || "file") + (line ? " (line " + line + ")" : "")));
            item.append(document.createTextNode(": " + issue.message));
            list.append(item);
            const control = document.querySelector('.control[data-path="' + CSS.escape(issue.path) + '"]');
            if (control) control.classList.add("invalid");
          });
          if (!result.valid && result.errors && result.errors.length) {
            const said = el("li", "renderfarm validate says:\n" + result.errors.join("\n"));
            said.className = "validate-output";
            said.style.whiteSpace = "pre-wrap";
            list.append(said);
          }
        }

        async function put(text) {
          state.sent = text;
          let response;
          try {
            response = await fetch("/api/job", { method: "PUT", body: text, headers: { "Content-Type": "application/json" } });
          } catch (e) { $("validity").textContent = "cannot reach the studio: " + e; return; }
          const body = await response.json();
          if (state.sent !== text) return;
          if (response.ok) applyJob(body, "force");
          else showValidation(body.issues ? body : { valid: false, issues: [{ path: "", message: body.error }] });
        }

        function edit(path, value) {
          const source = $("source");
          let text;
          try { text = setValue(source.value, path, JSON.stringify(value)); } catch (e) { text = null; }
          if (text === null) {
            showValidation({ valid: false, issues: [{ path: "", message: "fix the job text first: it is not JSON the controls can edit" }] });
            return;
          }
          source.value = text;
          put(text);
        }

        // ---- Controls from each layer's parameter table.
        function renderControls() {
          const box = $("controls");
          const job = state.job;
          box.textContent = "";
          (job.layers || []).forEach((layer, index) => {
            const set = el("fieldset");
            set.append(el("legend", "layers[" + index + "] · " + layer.effect));
            if (layer.summary) set.append(el("div", layer.summary, "hint"));
            for (const parameter of layer.parameters || []) {
              const path = ["layers", index, "params", parameter.name];
              const given = layer.params[parameter.name];
              set.append(control(parameter, path, given !== undefined ? given : parameter.default));
            }
            box.append(set);
          });
          showValidation(job);
        }

        function control(p, path, value) {
          const row = el("div", null, "control");
          row.dataset.path = "layers[" + path[1] + "].params." + p.name;
          const label = el("label", p.name);
          label.title = p.doc;
          row.append(label);
          const send = (v) => edit(path, v);
          const numeric = p.kind === "number" || p.kind === "integer";
          if (numeric) {
            const bounded = p.min !== null && p.max !== null;
            // A round step giving at least 100 positions between the bounds (1 for integers).
            const step = p.kind === "integer" ? 1 : bounded ? Math.pow(10, Math.floor(Math.log10((p.max - p.min) / 100))) : "any";
            const number = el("input");
            number.type = "number";
            number.step = String(step);
            number.value = value === null || value === undefined ? "" : value;
            number.dataset.role = "number";
            if (bounded) {
              const range = el("input");
              range.type = "range";
              range.min = String(p.min);
              range.max = String(p.max);
              range.step = String(step);
              range.value = number.value;
              range.dataset.param = p.name;
              let pending = null;
              range.addEventListener("input", () => {
                number.value = range.value;
                clearTimeout(pending);
                pending = setTimeout(() => send(Number(range.value)), 150);
              });
              range.addEventListener("change", () => { clearTimeout(pending); send(Number(range.value)); });
              row.append(range);
            }
            number.addEventListener("change", () => { if (number.value !== "") send(Number(number.value)); });
            row.append(number);
          } else if (p.kind === "enum") {
            const select = el("select");
            for (const choice of p.choices) {
              const option = el("option", choice);
              option.value = choice;
              select.append(option);
            }
            select.value = value || "";
            select.addEventListener("change", () => send(select.value));
            row.append(select);
          } else if (p.kind === "bool") {
            const box = el("input");
            box.type = "checkbox";
            box.checked = value === true;
            box.addEventListener("change", () => send(box.checked));
            row.append(box);
          } else if (p.kind === "color") {
            const picker = el("input");
            picker.type = "color";
            const text = typeof value === "string" ? value : "#000000";
            picker.value = text.length >= 7 ? text.slice(0, 7).toLowerCase() : "#000000";
            picker.addEventListener("change", () => send(picker.value + (text.length === 9 ? text.slice(7) : "")));
            row.append(picker);
          } else if (p.kind === "point" || p.kind === "size") {
            const pair = Array.isArray(value) ? value : [0, 0];
            const fields = [0, 1].map((i) => {
              const field = el("input");
              field.type = "number";
              field.step = "any";
              field.value = pair[i];
              field.addEventListener("change", () => send(fields.map((f) => Number(f.value))));
              return field;
            });
            row.append(fields[0], document.createTextNode(" "), fields[1]);
          } else if (p.kind === "string") {
            const field = el("input");
            field.value = typeof value === "string" ? value : "";
            field.addEventListener("change", () => send(field.value));
            row.append(field);
          } else {
            row.append(el("div", "edit in the job text", "hint"));
          }
          row.append(el("div", p.type + (p.doc ? " · " + p.doc : ""), "hint"));
          return row;
        }

        // ---- The timeline: frames drawn on demand by the engine, cached by fingerprint.
        function frameURL(n) {
          const job = state.job;
          return "/api/frames/" + n + ".png?scale=" + job.job.previewScale + ($("debug").checked ? "&debug=1" : "") + "&v=" + job.version;
        }

        function showFrame(n, force) {
          const job = state.job;
          if (!job || !job.job || !job.valid) return;
          const count = job.job.frameCount;
          n = ((n % count) + count) % count;
          state.frame = n;
          $("scrub").value = String(n);
          $("frame-label").textContent = "frame " + n + " / " + (count - 1) + " · " + (n / job.job.fps).toFixed(2) + " s";
          const url = frameURL(n);
          const image = $("frame");
          if (!force && image.dataset.url === url) return;
          state.loading = true;
          const loader = new Image();
          loader.onload = () => {
            image.src = loader.src;
            image.dataset.url = url;
            image.dataset.frame = String(n);
            image.dataset.scale = String(job.job.previewScale);
            state.loading = false;
            $("frame-error").textContent = "";
          };
          loader.onerror = async () => {
            state.loading = false;
            try { $("frame-error").textContent = (await (await fetch(url)).json()).error; } catch (e) { $("frame-error").textContent = "frame " + n + " failed"; }
          };
          loader.src = url;
        }

        function play() {
          state.playing = !state.playing;
          $("play").textContent = state.playing ? "Pause" : "Play";
          if (!state.playing) return;
          const from = state.frame, started = performance.now();
          const tick = (now) => {
            if (!state.playing || !state.job || !state.job.job) return;
            const n = from + Math.floor(((now - started) / 1000) * state.job.job.fps);
            if (!state.loading && n % state.job.job.frameCount !== state.frame) showFrame(n);
            requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        }

        // ---- The farm view: `renderfarm status --json` of every render folder, pushed by the server.
        function renderFarm(status) {
          $("farm-root").textContent = "render folders under " + status.root;
          const body = document.querySelector("#farm-table tbody");
          body.textContent = "";
          $("farm-empty").hidden = status.folders.length > 0;
          for (const folder of status.folders) {
            const row = el("tr");
            row.dataset.folder = folder.folder;
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
        $("debug").addEventListener("change", () => showFrame(state.frame, true));
        let typing = null;
        $("source").addEventListener("input", () => {
          clearTimeout(typing);
          typing = setTimeout(() => put($("source").value), 300);
        });
        document.addEventListener("keydown", (event) => {
          if (event.target.tagName === "TEXTAREA" || event.target.tagName === "INPUT") return;
          if (event.key === "ArrowLeft") showFrame(state.frame - 1);
          if (event.key === "ArrowRight") showFrame(state.frame + 1);
          if (event.key === " ") { event.preventDefault(); play(); }
        });

        const events = new EventSource("/api/events");
        events.addEventListener("open", () => { $("connection").textContent = "live"; });
        events.addEventListener("error", () => { $("connection").textContent = "reconnecting…"; });
        events.addEventListener("job", (event) => {
          const change = JSON.parse(event.data);
          if (!state.job || change.version !== state.job.version) loadJob();
        });
        events.addEventListener("status", (event) => renderFarm(JSON.parse(event.data)));
        loadJob();
        """#
}

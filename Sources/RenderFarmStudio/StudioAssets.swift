/// The page, shipped in the binary as text: no build step, no network, works offline.
/// `StudioAssets+Script.swift` holds its JavaScript.
enum StudioAssets {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>RenderFarm Studio</title>
        <link rel="stylesheet" href="/studio.css">
        </head>
        <body>
        <header>
          <h1>RenderFarm Studio</h1>
          <nav>
            <button id="tab-author" class="tab active" data-view="author">Author</button>
            <button id="tab-farm" class="tab" data-view="farm">Farm</button>
          </nav>
          <span id="connection">connecting…</span>
        </header>
        <main>
        <section id="author" class="view">
          <div class="pane source-pane">
            <div id="file" class="muted"></div>
            <textarea id="source" spellcheck="false" aria-label="job file"></textarea>
            <div id="validity"></div>
            <div id="conflict" hidden>
              <p class="error">The job file changed since the version this edit was made from: nothing was written.
              The file now reads:</p>
              <pre id="conflict-text"></pre>
              <button id="conflict-take">Use the file's version</button>
              <button id="conflict-keep">Save mine over it</button>
            </div>
            <ul id="errors"></ul>
          </div>
          <div class="pane stage-pane">
            <div id="variant-row" hidden><label>variant <select id="variant" aria-label="variant"></select></label></div>
            <div class="stage"><img id="frame" alt="frame preview"></div>
            <div class="timeline">
              <button id="step-back" title="previous frame (←)">−1</button>
              <button id="play" title="play / pause (space)">Play</button>
              <button id="step-forward" title="next frame (→)">+1</button>
              <input type="range" id="scrub" min="0" max="0" value="0" aria-label="frame">
              <span id="frame-label"></span>
            </div>
            <label class="muted"><input type="checkbox" id="debug"> --debug overlay (paths, control points, bounds, velocity)</label>
            <div id="frame-error" class="error"></div>
          </div>
          <div class="pane controls-pane"><div id="controls"></div></div>
        </section>
        <section id="farm" class="view" hidden>
          <p id="farm-root" class="muted"></p>
          <table id="farm-table">
            <thead><tr><th>last frame</th><th>folder</th><th>state</th><th>frames</th><th>fps</th><th>ETA</th><th>failed</th></tr></thead>
            <tbody></tbody>
          </table>
          <p id="farm-empty" class="muted" hidden>No render folders under the root yet.</p>
        </section>
        </main>
        <script src="/studio.js"></script>
        </body>
        </html>
        """#

    static let css = #"""
        :root { color-scheme: dark; --bg: #17181b; --panel: #212328; --line: #33363d; --text: #e6e6e6;
          --muted: #9a9ca3; --accent: #5aa9ff; --bad: #ff6b6b; --good: #5fd38d; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.4 system-ui, sans-serif; }
        header { display: flex; align-items: center; gap: 16px; padding: 8px 16px; border-bottom: 1px solid var(--line); }
        h1 { font-size: 16px; margin: 0; }
        nav { display: flex; gap: 4px; }
        button { background: var(--panel); color: var(--text); border: 1px solid var(--line); border-radius: 4px; padding: 4px 10px; cursor: pointer; }
        button.active { border-color: var(--accent); color: var(--accent); }
        #connection { margin-left: auto; color: var(--muted); }
        .view { padding: 12px 16px; }
        .view[hidden] { display: none !important; }
        #author { display: grid; grid-template-columns: minmax(280px, 1fr) auto minmax(260px, 340px); gap: 16px; align-items: start; }
        .pane { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
        textarea { width: 100%; height: 55vh; background: #101114; color: var(--text); border: 1px solid var(--line);
          font: 12px/1.45 ui-monospace, monospace; padding: 8px; resize: vertical; }
        .muted { color: var(--muted); font-size: 12px; }
        .error, #errors li { color: var(--bad); }
        #errors { padding-left: 18px; margin: 6px 0; font: 12px ui-monospace, monospace; }
        #validity.ok { color: var(--good); }
        .stage { background: repeating-conic-gradient(#2a2c31 0% 25%, #202226 0% 50%) 0 / 20px 20px; display: flex; justify-content: center; }
        #frame { display: block; max-height: 70vh; max-width: 60vw; }
        .timeline { display: flex; align-items: center; gap: 6px; margin: 8px 0; }
        #scrub { flex: 1; min-width: 200px; }
        #frame-label { font: 12px ui-monospace, monospace; min-width: 120px; }
        fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 0 0 10px; }
        legend { color: var(--accent); }
        .control { margin: 6px 0; }
        .control > label { display: block; font-weight: 600; }
        .control.invalid > label { color: var(--bad); }
        .control input[type=number] { width: 90px; }
        .control input[type=range] { width: 150px; vertical-align: middle; }
        .hint { color: var(--muted); font-size: 11px; }
        table { border-collapse: collapse; width: 100%; }
        th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
        td img { max-width: 96px; max-height: 96px; background: #000; }
        .state-rendering { color: var(--accent); } .state-complete { color: var(--good); }
        .state-failed { color: var(--bad); } .state-incomplete { color: #f0c060; }
        progress { width: 140px; }
        #conflict pre { max-height: 30vh; overflow: auto; background: #101114; padding: 6px; font: 12px ui-monospace, monospace; }
        .control.bound output { font: 12px ui-monospace, monospace; color: var(--muted); }
        """#
}

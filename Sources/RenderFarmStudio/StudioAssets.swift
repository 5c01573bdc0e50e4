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
            <a id="docs-link" href="/docs/" target="_blank" rel="noopener">Docs</a>
          </nav>
          <span id="render-status" hidden><button id="render-stop" hidden>Stop</button>
            <progress id="render-progress" hidden></progress> <span id="render-state" class="muted"></span></span>
          <span id="connection">connecting…</span>
        </header>
        <main>
        <section id="author" class="view">
          <div class="pane source-pane">
            <div class="source-bar"><span id="file" class="muted"></span><span id="dirty" hidden title="the text box differs from the file">● unsaved</span>
              <button id="undo" title="undo the last saved edit (Ctrl+Z)" disabled>Undo</button>
              <button id="redo" title="redo (Ctrl+Shift+Z)" disabled>Redo</button></div>
            <div class="source-bar"><label class="muted"><input type="checkbox" id="autosave" checked> autosave valid edits</label>
              <button id="save" title="write the text box to the file (Ctrl+S)" disabled>Save</button>
              <button id="revert" title="put the file's text back in the text box" disabled>Revert</button></div>
            <textarea id="source" spellcheck="false" aria-label="job file"></textarea>
            <div id="validity"></div>
            <div id="conflict" role="alertdialog" aria-labelledby="conflict-title" hidden>
              <p id="conflict-title" class="error">Another program or page saved the job file since the version this
              edit was made from: nothing was written. Where the file (−) and this edit (+) differ:</p>
              <pre id="conflict-text"></pre>
              <button id="conflict-merge" hidden>Make my edit in the file's version</button>
              <button id="conflict-take">Use the file's version</button>
              <button id="conflict-keep">Save mine over it</button>
            </div>
            <ul id="errors"></ul>
          </div>
          <div class="pane stage-pane">
            <div id="variant-row" hidden><label>variant <select id="variant" aria-label="variant"></select></label></div>
            <div class="view-bar muted">view <button id="view-fit" class="active" title="the whole canvas in the pane">Fit</button>
              <button id="view-100" title="one pixel of the frame per screen pixel; scroll to pan">100 %</button>
              <button id="view-200" title="two screen pixels per pixel of the frame; scroll to pan">200 %</button>
              <label title="action safe (93 %) and title safe (90 %) areas, SMPTE ST 2046-1"><input type="checkbox" id="safe"> safe areas</label></div>
            <div class="stage" id="stage"><div id="canvas-box"><img id="frame" alt="frame preview"><div id="safe-areas" hidden>
              <div class="safe action" title="action safe: 93 %"></div><div class="safe title" title="title safe: 90 %"></div></div><div id="handles"></div></div></div>
            <div class="timeline">
              <button id="step-back" title="previous frame (← or J)">−1</button>
              <button id="play" title="play / pause (space; L plays, K pauses)">Play</button>
              <button id="step-forward" title="next frame (→)">+1</button>
              <input type="range" id="scrub" min="0" max="0" value="0" aria-label="frame">
              <span id="frame-label"></span>
              <label class="muted" title="play the job's sound mix with the frames"><input type="checkbox" id="sound"> sound</label>
              <span id="sound-state" class="muted"></span><audio id="audio" preload="auto" hidden></audio>
            </div>
            <div class="zoom-bar muted">zoom <button id="zoom-out" title="zoom out (-)">−</button>
              <button id="zoom-in" title="zoom in (+)">+</button> <button id="zoom-fit" title="the whole job (0)">Fit</button>
              <span id="zoom-label"></span></div>
            <div class="tracks-row">
              <div id="track-labels" title="click a layer to select it"></div>
              <div id="tracks" title="click to go to a frame (on a layer's bar, also to select it); I / O set the in and out points">
                <div id="tracks-inner">
                  <div id="ruler" class="ruler"></div>
                  <div id="track-list"></div>
                  <div id="inout"></div>
                  <div id="playhead"></div>
                </div>
              </div>
            </div>
            <div id="key-editor" class="muted" hidden></div>
            <div class="muted">in/out <span id="inout-label"></span> · <code id="inout-command"></code>
              <button id="clear-inout" title="clear the in and out points">clear</button></div>
            <div class="render-bar"><button id="render" title="render the in/out range as renderfarm render does">Render in/out</button>
              <span class="muted">(its progress and Stop are at the top, in both views)</span></div>
            <label class="muted"><input type="checkbox" id="debug"> --debug overlay (paths, control points, bounds, velocity)</label>
            <div id="frame-error" class="error"></div>
          </div>
          <div class="pane controls-pane">
            <div class="layer-bar"><select id="add-effect" aria-label="effect of a new layer"></select>
              <button id="add-layer" title="add a layer of this effect on top, with the effect's defaults">Add layer</button>
              <button id="remove-layer" title="remove the selected layer from the job">Remove</button></div>
            <div id="layers" role="listbox" aria-label="layers"></div><div id="controls"></div></div>
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
        <script src="/studio-tools.js"></script>
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
        #author { display: grid; grid-template-columns: minmax(240px, 1fr) minmax(320px, 1.7fr) minmax(220px, 320px); gap: 12px; align-items: start; }
        .stage-pane { min-width: 0; overflow-wrap: anywhere; }
        @media (max-width: 1180px) { #author { grid-template-columns: minmax(240px, 1fr) minmax(320px, 1.4fr); }
          .controls-pane { grid-column: 1 / -1; } }
        .source-bar { display: flex; gap: 6px; align-items: center; margin-bottom: 4px; }
        .source-bar #file { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        #tracks { background: #101114; border: 1px solid var(--line); border-radius: 4px; cursor: pointer; user-select: none; overflow-x: auto; overflow-y: hidden; }
        #tracks-inner { position: relative; padding: 18px 0 4px; min-width: 100%; overflow: hidden; }
        .zoom-bar { margin: 4px 0; } .zoom-bar button { padding: 0 8px; }
        #canvas-box { position: relative; display: inline-block; line-height: 0; }
        #handles { position: absolute; inset: 0; pointer-events: none; }
        .handle { position: absolute; width: 14px; height: 14px; margin: -7px 0 0 -7px; border: 2px solid #fff; border-radius: 50%;
          background: rgba(90, 169, 255, 0.6); box-shadow: 0 0 0 1px #000; pointer-events: auto; cursor: move; touch-action: none; }
        .handle.corner { border-radius: 2px; cursor: nwse-resize; }
        .handle .tag { position: absolute; left: 14px; top: -4px; font: 10px/1.2 ui-monospace, monospace; color: #fff;
          background: rgba(0, 0, 0, 0.6); padding: 1px 3px; white-space: nowrap; pointer-events: none; }
        .rect-outline { position: absolute; border: 1px dashed var(--accent); pointer-events: none; }
        .json-editor { height: auto; min-height: 3em; font-size: 11px; }
        .editor-errors { font: 11px ui-monospace, monospace; color: var(--bad); white-space: pre-wrap; }
        #dirty { color: #f0c060; font-size: 12px; }
        #docs-link { color: var(--muted); font-size: 12px; align-self: center; margin-left: 8px; }
        .ruler { position: absolute; top: 0; left: 0; right: 0; height: 16px; border-bottom: 1px solid var(--line); }
        .tick { position: absolute; top: 0; height: 16px; border-left: 1px solid var(--line); font: 10px ui-monospace, monospace; color: var(--muted); padding-left: 2px; }
        .track { position: relative; height: 16px; margin: 3px 0; }
        .track .bar { position: absolute; top: 2px; height: 12px; background: #2d4f7a; border-radius: 3px; overflow: hidden; font: 10px ui-monospace, monospace; padding-left: 4px; white-space: nowrap; }
        .track.frames .bar { background: #2d6a4a; }
        #inout { position: absolute; top: 16px; bottom: 0; background: rgba(90, 169, 255, 0.12); border-left: 2px solid var(--accent); border-right: 2px solid var(--accent); pointer-events: none; }
        .render-bar { margin: 6px 0; }
        .stage-pane { position: sticky; top: 8px; max-height: calc(100vh - 16px); overflow-y: auto; }
        #layers { display: flex; flex-direction: column; gap: 1px; margin-bottom: 10px; max-height: 32vh; overflow-y: auto; }
        .layer-item { text-align: left; border-color: transparent; background: transparent; padding: 2px 8px;
          white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .layer-bar { display: flex; gap: 4px; margin-bottom: 6px; } .layer-bar select { flex: 1; min-width: 0; }
        .layer-item.selected { border-color: var(--accent); color: var(--accent); background: #1d2a3a; }
        .tracks-row { display: flex; }
        #track-labels { flex: 0 0 128px; padding: 18px 0 4px; overflow: hidden; }
        .track-label { height: 16px; margin: 3px 0; padding-right: 6px; font: 10px/16px ui-monospace, monospace; color: var(--muted);
          white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; }
        .track-label.selected { color: var(--accent); }
        .track.selected .bar { outline: 1px solid var(--accent); }
        .track .key { position: absolute; top: 3px; width: 9px; height: 9px; margin-left: -5px; background: #ffd666;
          border: 1px solid #000; transform: rotate(45deg); cursor: ew-resize; touch-action: none; z-index: 1; }
        #key-editor { margin: 4px 0; } #key-editor input { width: 80px; }
        #tracks { flex: 1; min-width: 0; }
        #render-status { display: flex; align-items: center; gap: 8px; min-width: 0; }
        #render-status[hidden] { display: none; }
        #render-state { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 48vw; }
        tr.highlight td { background: #1d2a3a; }
        #playhead { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--bad); pointer-events: none; }
        .pane { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
        textarea { width: 100%; height: 55vh; background: #101114; color: var(--text); border: 1px solid var(--line);
          font: 12px/1.45 ui-monospace, monospace; padding: 8px; resize: vertical; }
        .muted { color: var(--muted); font-size: 12px; }
        .error, #errors li { color: var(--bad); }
        #errors { padding-left: 18px; margin: 6px 0; font: 12px ui-monospace, monospace; }
        #errors .validate-output { list-style: none; color: var(--muted); }
        #errors pre { white-space: pre-wrap; margin: 4px 0; }
        #validity.ok { color: var(--good); }
        .stage { background: repeating-conic-gradient(#2a2c31 0% 25%, #202226 0% 50%) 0 / 20px 20px; display: flex; justify-content: center; }
        #frame { display: block; max-height: 60vh; max-width: 100%; }
        .view-bar { margin: 0 0 4px; } .view-bar button { padding: 0 8px; }
        .stage.zoomed { overflow: auto; max-height: 62vh; justify-content: flex-start; }
        .stage.zoomed #frame { max-width: none; max-height: none; }
        #safe-areas { position: absolute; inset: 0; pointer-events: none; }
        .safe { position: absolute; border: 1px dashed rgba(255, 255, 255, 0.7); box-shadow: 0 0 0 1px rgba(0, 0, 0, 0.4); }
        .safe.action { inset: 3.5%; } .safe.title { inset: 5%; border-color: rgba(255, 214, 102, 0.8); }
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
        #conflict { position: fixed; top: 56px; left: 50%; transform: translateX(-50%); width: min(920px, 94vw); z-index: 30;
          background: var(--panel); border: 1px solid var(--bad); border-radius: 6px; padding: 4px 14px 12px;
          box-shadow: 0 8px 32px #000a; }
        #conflict pre { max-height: 30vh; overflow: auto; background: #101114; padding: 6px; font: 12px ui-monospace, monospace; }
        .control.unset input[type=range] { opacity: 0.35; }
        .control label.scrubby { cursor: ew-resize; user-select: none; touch-action: none; }
        .control .reset { display: none; padding: 0 5px; margin-left: 4px; font-size: 11px; }
        .control.is-set .reset { display: inline-block; }
        .control input[data-role=alpha] { width: 80px; vertical-align: middle; }
        .control.bound output { font: 12px ui-monospace, monospace; color: var(--muted); }
        """#
}

#!/usr/bin/env python3
"""`make studio-test`: RenderFarm Studio in real headless Chromium, driven over WebDriver.

Loads the page, scrubs to frame 120 and checks the image shown is the PNG `render --scale` writes
for it and that Chromium decodes it to ffmpeg's pixels, drags a slider (pausing mid-drag: the control
under the pointer is not rebuilt) and sees the frame change, scrubs to a frame not drawn yet and straight back (the late answer is dropped), types
an invalid value and sees the located validation error, types while another program saves the file
(the save gets 409 and the file's text is shown), previews the variants of a template job (controls
bound to a placeholder are read-only), opens a token studio (the token leaves the address bar), then
opens the farm view while a render runs and sees its progress advance. The editing tools: a point
dragged on the canvas (one save, at the end, of whole points), the list editor's located errors,
timeline zoom, explicit save and revert. The documentation at /docs renders (DOCS: the static DocC
output, `make docs-convert DOCS_STATIC=1`, one <Module>.doccarchive per catalog), and the manual's own
web pages (`renderfarm docs --html`) read with JavaScript off.
Screenshots of both views go to OUTDIR. Every wait polls with a deadline; every process started
here has one too. Usage: browser_test.py RENDERFARM OUTDIR DOCS
"""
import base64
import functools
import hashlib
import json
import re
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STARTED = time.monotonic()
TOTAL_SECONDS = 240


def log(message):
    print(f"[{time.monotonic() - STARTED:6.1f}s] {message}", flush=True)


def wait_for(what, condition, seconds=30, state=None):
    """Polls `condition` every 50 ms until it returns something truthy; fails after `seconds`, saying what
    `state` returns then (what the page was doing instead)."""
    deadline = min(time.monotonic() + seconds, STARTED + TOTAL_SECONDS)
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as error:  # the page may be between states; keep polling
            last_error = error
        time.sleep(0.05)
    said = f" (last error: {last_error})" if last_error else ""
    if state:
        said += f" (state: {state()})"
    raise AssertionError(f"timed out waiting for {what}{said}")


def start_studio(binary, job, env=None, extra=()):
    # The studio keeps undo histories in the user's state folder: here, one beside the job.
    state = os.path.join(os.path.dirname(job), ".studio-state")
    server = subprocess.Popen(
        [binary, "studio", job, "--port", "0", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, XDG_STATE_HOME=state, **(env or {})))
    ready, _, _ = select.select([server.stdout], [], [], 30)
    if not ready:
        server.kill()
        raise AssertionError("renderfarm studio printed no URL within 30 s")
    url = server.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        server.kill()
        raise AssertionError(f"unexpected first line from renderfarm studio: {url!r} {server.stderr.read()}")
    return server, url


def shown_sha256(driver):
    """SHA-256 of the bytes behind the image the page shows (fetched again from its URL)."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(document.getElementById('frame').src)
          .then((r) => r.arrayBuffer())
          .then((b) => crypto.subtle.digest('SHA-256', b))
          .then((d) => done(Array.from(new Uint8Array(d)).map((x) => x.toString(16).padStart(2, '0')).join('')))
          .catch((e) => done('error: ' + e));
    """)


def shown_rgba(driver):
    """The shown image as Chromium decodes it: (width, height, RGBA bytes), read back from a 2D canvas."""
    width, height, data = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(document.getElementById('frame').src)
          .then((r) => r.blob())
          .then((b) => createImageBitmap(b, {premultiplyAlpha: 'none', colorSpaceConversion: 'none'}))
          .then((bitmap) => {
            const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
            const context = canvas.getContext('2d');
            context.drawImage(bitmap, 0, 0);
            const bytes = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
            let text = '';
            for (let i = 0; i < bytes.length; i += 32768) {
              text += String.fromCharCode.apply(null, bytes.subarray(i, i + 32768));
            }
            done([bitmap.width, bitmap.height, btoa(text)]);
          })
          .catch((e) => done([0, 0, String(e)]));""")
    assert width > 0, f"Chromium could not decode the frame: {data}"
    return width, height, base64.b64decode(data)


def check_decoders(driver, png_path):
    """Chromium and ffmpeg (two PNG decoders besides libpng) read the frame RenderFarm's encoder wrote alike.

    A 2D canvas keeps premultiplied pixels, so a colour under partial alpha may come back rounded: alpha must
    match everywhere, colours exactly where alpha is 0 or 255 and within that rounding elsewhere."""
    width, height, chromium = shown_rgba(driver)
    decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", png_path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                             check=True, timeout=60, stdout=subprocess.PIPE).stdout
    assert len(decoded) == len(chromium) == width * height * 4, (len(decoded), len(chromium), width, height)
    exact = rounded = 0
    for i in range(0, len(decoded), 4):
        alpha = decoded[i + 3]
        assert chromium[i + 3] == alpha, f"alpha differs at pixel {i // 4}: {chromium[i + 3]} != {alpha}"
        worst = max(abs(chromium[i + k] - decoded[i + k]) for k in range(3))
        if alpha in (0, 255):
            assert worst == 0, f"pixel {i // 4} (alpha {alpha}) differs: {chromium[i:i + 4]} != {decoded[i:i + 4]}"
            exact += 1
        else:
            assert worst <= 255 // alpha + 1, f"pixel {i // 4} differs: {chromium[i:i + 4]} != {decoded[i:i + 4]}"
            rounded += 1
    return exact, rounded


def set_value(driver, control, value):
    """Sets an input's value as a finished user change does (a slider let go, a field left): its change event."""
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change'));",
                          control, str(value))


def wait_saved(driver, what="the page's saves"):
    """Waits until the page has no save in flight or queued."""
    wait_for(what, lambda: not driver.execute_script("return state.saving || state.pending !== null"))


def write_atomically(path, text):
    """Saves `text` as another program (an editor) does: a new file renamed over the old."""
    with open(path + ".tmp", "w") as edited:
        edited.write(text)
    os.replace(path + ".tmp", path)


def frame_state(driver):
    return driver.execute_script(
        "const f = document.getElementById('frame');"
        "return {frame: f.dataset.frame, url: f.dataset.url, scale: f.dataset.scale, width: f.naturalWidth};")


def probe_video(video, entries):
    """The first video stream's `entries` (ffprobe's names, frames counted by decoding), as csv."""
    return subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                           "stream=" + entries, "-of", "csv=p=0", video], capture_output=True, text=True,
                          check=True).stdout.strip()


def open_result(driver, item):
    """Clicks Open on the render queue's item `item` (an index, from the end when negative) and waits until its
    video can play in the page: its duration in seconds."""
    driver.find_elements(By.CSS_SELECTOR, "#render-queue li")[item].find_element(By.TAG_NAME, "button").click()
    return wait_for("the video playable in the page", lambda: driver.execute_script(
        "const v = document.getElementById('result-video'); return !v.hidden && v.readyState >= 1 ? v.duration : null"))


def check_render_queue(driver, work, outdir):
    """The render queue: two videos of the in/out range asked for while nothing runs, and a third taken out
    while the first renders; they render one after another, each the video its preset makes, and Open plays
    the first in the page."""
    driver.execute_script("state.in = 0; state.out = 29; showInOut();")
    choose = lambda preset: Select(driver.find_element(By.ID, "render-preset")).select_by_value(preset)
    for preset in ["webm-alpha", "mp4", "gif"]:
        choose(preset)
        driver.find_element(By.ID, "render").click()
    rows = lambda: driver.execute_script(
        "return [...document.querySelectorAll('#render-queue li')].map((li) => [li.dataset.status, li.textContent])")
    wait_for("three items, the first rendering", lambda: len(rows()) >= 3 and rows()[-3][0] in ("starting", "running"))
    last = driver.find_elements(By.CSS_SELECTOR, "#render-queue li")[-1]
    assert last.get_attribute("data-status") == "queued", rows()
    last.find_element(By.TAG_NAME, "button").click()
    wait_for("the gif taken out", lambda: not any("gif" in text for _, text in rows()))
    done = wait_for("both videos rendered, in order", lambda: (lambda r: r if [s for s, _ in r[-2:]] == ["done", "done"]
                                                                  else None)(rows()), 120)
    # Named as encode names them: OUTDIR/<job name>.<ext>.
    videos = driver.execute_script("return state.queue.slice(-2).map((item) => item.video)")
    folder = os.path.join(work, "out", "live-hearts")
    assert [os.path.dirname(v) for v in videos] == [folder] * 2, videos
    assert videos[0].endswith(".webm") and videos[1].endswith(".mp4") and videos[0][:-5] == videos[1][:-4], videos
    assert not [name for name in os.listdir(folder) if name.endswith(".gif")]
    for video, codec in zip(videos, ["vp9", "h264"]):
        assert os.path.basename(video) in done[-1 if codec == "h264" else -2][1], done
        probe = probe_video(video, "codec_name,nb_read_frames")
        assert probe == f"{codec},30", f"{video}: {probe}"
    # The queue is the studio's: a reload shows the same items, and Open still plays the result.
    driver.refresh()
    wait_for("the queue after a reload", lambda: rows()[-2:] == done[-2:])
    duration = open_result(driver, -2)
    fps = driver.execute_script("return state.job.job.fps")
    assert abs(duration - 30 / fps) < 0.05, (duration, fps)
    driver.save_screenshot(os.path.join(outdir, "studio-render-queue.png"))
    log(f"render queue: webm-alpha and mp4 of frames 0-29 rendered one after another (30 frames each, vp9 and h264), "
        f"a queued gif taken out and never made; the same queue after a reload; Open plays the webm here "
        f"({duration:.2f} s)")
    driver.find_element(By.ID, "result-close").click()


EMPTY_JOB = """{
  "version": 1,
  "name": "basket",
  "seed": 27,
  "canvas": { "width": 375, "height": 667, "scale": 2, "background": "#00000000" },
  "fps": 30,
  "duration": 5,
  "output": { "dir": "out/basket", "compression": "fast" },
  "layers": []
}
"""


def check_build_from_empty(driver, binary, work, outdir):
    """Issue 48's "done when": gift-basket's overlay built in the studio alone, from a job with no layers
    (which is not valid yet): layers added by effect, their parameters set with the controls (colour, number,
    choice, rect fields, size, JSON), host fields (start, end, blend) and keyframes added at the playhead and
    given values and timings, then rendered to an mp4 from the render queue and played in the page. The
    file it leaves is the job written by hand, value for value."""
    folder = os.path.join(work, "from-empty")
    os.makedirs(folder)
    job = os.path.join(folder, "basket.json")
    with open(job, "w") as empty:
        empty.write(EMPTY_JOB)
    server, url = start_studio(binary, job)
    try:
        driver.get(url)
        wait_for("the empty job shown as not valid", lambda: "at least one layer" in driver.find_element(By.ID, "errors").text)
        layers = lambda: json.load(open(job))["layers"]

        def add(effect):
            count = len(layers())
            Select(driver.find_element(By.ID, "add-effect")).select_by_value(effect)
            driver.find_element(By.ID, "add-layer").click()
            wait_for(f"{effect} added", lambda: len(layers()) == count + 1)
            wait_for(f"{effect} selected", lambda: driver.execute_script(
                "const l = state.job.layers[state.selected]; return l && l.path") == f"layers[{count}]")
            return f"layers[{count}]"

        def row(path):
            return wait_for(f"the control {path}", lambda: (lambda found: found[0] if found and found[0].is_displayed()
                                                            else None)(driver.find_elements(
                By.CSS_SELECTOR, f'.control[data-path="{path}"]')))

        def put(path, value, selector="input[data-role=number]"):
            set_value(driver, row(path).find_element(By.CSS_SELECTOR, selector), value)
            wait_saved(driver, f"{path} saved")

        def choose(path, value):
            Select(row(path).find_element(By.TAG_NAME, "select")).select_by_value(value)
            wait_saved(driver, f"{path} saved")

        def rect(path, x, y, width, height):
            for part, value in zip(["x", "y", "width", "height"], [x, y, width, height]):
                put(path, value, f"input[data-part={part}]")

        def apply_json(path, value):
            area = row(path).find_element(By.TAG_NAME, "textarea")
            area.clear()
            area.send_keys(json.dumps(value))
            row(path).find_element(By.CSS_SELECTOR, "button:not(.reset)").click()
            wait_for(f"{path} written", lambda: nodes(json.load(open(job)), path) == value)

        def keyframe(layer, field, frame, value, timing=None, group=None):
            driver.find_element(By.CSS_SELECTOR, f'#layers .layer-item[data-layer="{layer}"]').click()
            driver.execute_script("showFrame(arguments[0])", frame)
            owner = f'fieldset[data-group="{group}"]' if group else f'fieldset[data-layer="{layer}"]'
            driver.find_element(By.CSS_SELECTOR, f'{owner} .add-keys button[data-field="{field}"]').click()
            wait_saved(driver, f"the {field} keyframe at frame {frame}")
            editor = driver.find_element(By.ID, "key-editor")
            wait_for("the new keyframe in its editor", lambda: editor.is_displayed()
                     and editor.find_elements(By.CSS_SELECTOR, "[data-role=key-value]"))
            set_value(driver, editor.find_element(By.CSS_SELECTOR, "[data-role=key-value]"), json.dumps(value))
            wait_saved(driver, "the keyframe's value")
            if timing:
                wait_for("the timing enabled", lambda: editor.find_element(By.CSS_SELECTOR, "[data-role=key-timing]").is_enabled())
                Select(editor.find_element(By.CSS_SELECTOR, "[data-role=key-timing]")).select_by_value(timing)
                wait_saved(driver, "the keyframe's timing")

        background = add("gradient")
        put(f"{background}.params.from", "#241734", "input[type=color]")
        put(f"{background}.params.to", "#7a2048", "input[type=color]")
        put(f"{background}.params.angle", 90)

        back = add("shape")
        put(f"{back}.name", "basket-back", "input")
        choose(f"{back}.params.kind", "ellipse")
        rect(f"{back}.params.rect", 72, 548, 230, 30)
        apply_json(f"{back}.params.fill", "#3E2512")

        drop = add("parabolic-drop")
        put(f"{drop}.params.count", 6)
        apply_json(f"{drop}.params.from", {"x": 280, "y": 110, "width": 60, "height": 60})
        put(f"{drop}.params.size", 34, "input:nth-of-type(1)")
        put(f"{drop}.params.size", 34, "input:nth-of-type(2)")
        # Its default shape is the gift: shown, and left out of the file.
        assert Select(row(f"{drop}.params.shape").find_element(By.TAG_NAME, "select")).first_selected_option \
            .get_attribute("value") == "gift"
        rect(f"{drop}.params.target", 92, 546, 190, 60)
        put(f"{drop}.params.stagger", 0.35)
        put(f"{drop}.params.arcHeight", 120)

        glow = add("shape")
        glow_index = driver.execute_script("return state.selected")
        choose(f"{glow}.params.kind", "ellipse")
        rect(f"{glow}.params.rect", 47, 480, 280, 150)
        apply_json(f"{glow}.params.fill", "#FFD36E")
        put(f"{glow}.start", 1.2)
        put(f"{glow}.end", 4.6)
        choose(f"{glow}.blend", "screen")
        keyframe(glow_index, "opacity", 36, 0)
        keyframe(glow_index, "opacity", 45, 0.9, "easeOut")
        keyframe(glow_index, "opacity", 63, 0, "easeIn")

        # The combo banner: a pill, put in a group of its own, and a text added into that group (the pill
        # selected); the group's fields and keyframes (in its time, from 2.2 s) set in its own fieldset.
        pill = add("shape")
        choose(f"{pill}.params.kind", "roundedRect")
        rect(f"{pill}.params.rect", 92.5, 270, 190, 60)
        put(f"{pill}.params.radius", 30)
        apply_json(f"{pill}.params.fill", "#FFC542")
        driver.find_element(By.ID, "group-layer").click()
        combo = pill
        wait_for("the pill in a group", lambda: driver.execute_script(
            "const l = state.job.layers[state.selected]; return l && l.path") == combo + ".group[0]")
        Select(driver.find_element(By.ID, "add-effect")).select_by_value("text")
        driver.find_element(By.ID, "add-layer").click()
        banner = combo + ".group[1]"
        wait_for("the text in the group, selected", lambda: driver.execute_script(
            "const l = state.job.layers[state.selected]; return l && l.path") == banner)
        banner_index = driver.execute_script("return state.selected")
        assert nodes(json.load(open(job)), banner)["params"] == {"text": "Text"}  # a text layer needs its text
        put(f"{banner}.params.text", "Combo ×6 🎁", "input")
        put(f"{banner}.params.size", 26)
        rect(f"{banner}.params.rect", 92.5, 270, 190, 60)
        put(f"{combo}.name", "combo", "input")
        put(f"{combo}.start", 2.2)
        put(f"{combo}.end", 4.4)
        keyframe(banner_index, "opacity", 66, 0, group=combo)
        keyframe(banner_index, "opacity", 70, 1, group=combo)
        keyframe(banner_index, "transform.scale", 66, 0.3, group=combo)
        keyframe(banner_index, "transform.scale", 81, 1, "easeInEaseOut", group=combo)

        # With every layer shown (none selected) a new layer goes on top of the job's.
        driver.find_element(By.CSS_SELECTOR, '#layers .layer-item[data-layer="all"]').click()
        hearts = add("floating-heart")
        put(f"{hearts}.params.emitter", 325, "input:nth-of-type(1)")
        put(f"{hearts}.params.emitter", 625, "input:nth-of-type(2)")
        put(f"{hearts}.params.rate", 3)

        # A keyframe added by mistake, and deleted from its editor.
        keyframe(banner_index, "transform.rotation", 75, 15)
        driver.find_element(By.CSS_SELECTOR, "#key-editor button").click()
        wait_for("the rotation keyframe deleted, its value left as the constant",
                 lambda: nodes(json.load(open(job)), banner)["transform"].get("rotation") == 15)
        driver.execute_script("showFrame(75)")
        driver.find_element(By.CSS_SELECTOR, f'fieldset[data-layer="{banner_index}"] .add-keys button[data-field="transform.rotation"]').click()
        wait_saved(driver)

        built = json.load(open(job))
        expected = json.loads(EMPTY_JOB)
        expected["layers"] = [
            {"effect": "gradient", "params": {"from": "#241734", "to": "#7A2048", "angle": 90}},
            {"effect": "shape", "name": "basket-back",
             "params": {"kind": "ellipse", "rect": {"x": 72, "y": 548, "width": 230, "height": 30}, "fill": "#3E2512"}},
            {"effect": "parabolic-drop",
             "params": {"count": 6, "from": {"x": 280, "y": 110, "width": 60, "height": 60}, "size": [34, 34],
                        "target": {"x": 92, "y": 546, "width": 190, "height": 60}, "stagger": 0.35, "arcHeight": 120}},
            {"effect": "shape", "start": 1.2, "end": 4.6, "blend": "screen",
             "opacity": {"keyframes": [{"t": 0, "value": 0}, {"t": 0.3, "value": 0.9, "timing": "easeOut"},
                                       {"t": 0.9, "value": 0, "timing": "easeIn"}]},
             "params": {"kind": "ellipse", "rect": {"x": 47, "y": 480, "width": 280, "height": 150}, "fill": "#FFD36E"}},
            {"name": "combo", "start": 2.2, "end": 4.4,
             "opacity": {"keyframes": [{"t": 0, "value": 0}, {"t": 0.133333, "value": 1}]},
             "transform": {"scale": {"keyframes": [{"t": 0, "value": 0.3}, {"t": 0.5, "value": 1, "timing": "easeInEaseOut"}]}},
             "group": [
                 {"effect": "shape", "params": {"kind": "roundedRect", "rect": {"x": 92.5, "y": 270, "width": 190, "height": 60},
                                                "radius": 30, "fill": "#FFC542"}},
                 {"effect": "text", "transform": {"rotation": {"keyframes": [{"t": 0.3, "value": 15}]}},
                  "params": {"text": "Combo ×6 🎁", "size": 26, "rect": {"x": 92.5, "y": 270, "width": 190, "height": 60}}},
             ]},
            {"effect": "floating-heart", "params": {"emitter": [325, 625], "rate": 3}},
        ]
        assert built == expected, "the built job differs from the one written by hand:\n" + "\n".join(
            f"  {path}: built {json.dumps(mine, ensure_ascii=False)}, expected {json.dumps(theirs, ensure_ascii=False)}"
            for path, mine, theirs in differences(built, expected))
        assert subprocess.run([binary, "validate", job], capture_output=True).returncode == 0

        # The glow's bar moved 10 frames later (start and end), then its right edge trimmed 5 frames
        # earlier (end alone); two undos give the file back byte for byte.
        text = open(job).read()
        frame_px = driver.execute_script(
            "return document.getElementById('tracks-inner').getBoundingClientRect().width / state.job.job.frameCount")
        bar = lambda: driver.find_element(By.CSS_SELECTOR, f'#track-list .track[data-layer="{glow_index}"] .bar')
        ActionChains(driver).click_and_hold(bar()).move_by_offset(5 * frame_px, 0) \
            .move_by_offset(5 * frame_px, 0).release().perform()
        wait_for("the glow moved", lambda: layers()[glow_index]["start"] != 1.2)
        moved = layers()[glow_index]
        assert (moved["start"], moved["end"]) == (1.533333, 4.933333), moved
        wait_saved(driver)
        width = bar().size["width"]
        ActionChains(driver).move_to_element_with_offset(bar(), width / 2 - 2, 0).click_and_hold() \
            .move_by_offset(-5 * frame_px, 0).release().perform()
        wait_for("the glow trimmed", lambda: layers()[glow_index]["end"] != 4.933333)
        trimmed = layers()[glow_index]
        assert (trimmed["start"], trimmed["end"]) == (1.533333, 4.766667), trimmed
        for _ in range(2):
            wait_saved(driver)
            driver.find_element(By.ID, "undo").click()
        wait_for("both undone", lambda: open(job).read() == text)

        # Rendered as a video from the queue, and played in the page.
        driver.execute_script("state.in = null; state.out = null; showInOut();")
        Select(driver.find_element(By.ID, "render-preset")).select_by_value("mp4")
        driver.find_element(By.ID, "render").click()
        wait_for("the mp4 rendered", lambda: driver.execute_script(
            "const item = state.queue[state.queue.length - 1]; return item && queueStatus(item)"
            " === 'done'"), 180)
        video = os.path.join(folder, "out", "basket", "basket.mp4")
        probe = probe_video(video, "nb_read_frames,width,height")
        assert probe == "750,1334,150", probe
        duration = open_result(driver, -1)
        assert abs(duration - 5) < 0.05, duration
        driver.execute_script("showFrame(75)")
        driver.save_screenshot(os.path.join(outdir, "studio-built-from-empty.png"))
        log(f"built from an empty job in the studio: {len(built['layers'])} top-level layers (gradient, basket, drop, "
            "glow with 3 opacity keyframes, the combo group made with Group from its pill, its text added into it, the "
            "group's opacity and scale keyframes, hearts), host fields and keyframes set from controls, a keyframe "
            f"deleted; the file is the hand-written job; the glow's bar moved 10 frames and trimmed 5 (both undone); "
            f"mp4 from the queue {probe} played ({duration:.2f} s)")
    finally:
        server.terminate()
        server.wait(10)


def differences(built, expected, path="$"):
    """Where two JSON values differ: (path, built value, expected value) for each differing leaf or missing key."""
    if isinstance(built, dict) and isinstance(expected, dict):
        for key in sorted(set(built) | set(expected)):
            yield from differences(built.get(key), expected.get(key), f"{path}.{key}")
    elif isinstance(built, list) and isinstance(expected, list) and len(built) == len(expected):
        for index, (mine, theirs) in enumerate(zip(built, expected)):
            yield from differences(mine, theirs, f"{path}[{index}]")
    elif built != expected:
        yield path, built, expected


def nodes(value, path):
    for part in re.findall(r"[^.\[\]]+", path):
        value = value[int(part)] if part.isdigit() else value.get(part)
    return value


def check_variants(driver, binary, work, outdir):
    """A variants job: a picker of its 8 variants; a control bound to {{accent}} is read-only."""
    folder = os.path.join(work, "variants")
    os.makedirs(os.path.join(folder, "assets"))
    job = os.path.join(folder, "streamer-badges.json")
    shutil.copy(os.path.join(ROOT, "jobs", "streamer-badges.json"), job)
    shutil.copy(os.path.join(ROOT, "jobs", "assets", "streamers.csv"), os.path.join(folder, "assets"))
    original = open(job).read()
    server, url = start_studio(binary, job)
    try:
        driver.get(url)
        wait_for("frame 0 of variant 0", lambda: frame_state(driver)["frame"] == "0")
        picker = Select(driver.find_element(By.ID, "variant"))
        assert len(picker.options) == 8, [o.text for o in picker.options]
        bound = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.from"]')
        assert bound.get_attribute("data-bound") == "{{accent}}", bound.get_attribute("outerHTML")
        assert not bound.find_elements(By.CSS_SELECTOR, "input, select"), "a bound control can be edited"
        # A placeholder inside a list is bound too: its list editor would write one streamer's colour for all 8.
        colors = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[1].params.colors"]')
        assert "{{color}}" in (colors.get_attribute("data-bound") or ""), colors.get_attribute("outerHTML")
        assert not colors.find_elements(By.CSS_SELECTOR, "input, select, textarea, button"), "the list can be edited"
        first = frame_state(driver)["url"]
        picker.select_by_index(2)
        wait_for("variant 2's frame", lambda: "variant=2" in (frame_state(driver)["url"] or ""))
        assert frame_state(driver)["url"] != first
        # An edit of an unbound control writes the template, and keeps every placeholder.
        size = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[1].params.size"] input[type=number]')
        size.clear()
        size.send_keys("33", Keys.TAB)
        wait_for("size 33 in the template", lambda: '"size": 33' in open(job).read())
        assert open(job).read() == original.replace('"size": 30', '"size": 33'), "the template changed beyond size"
        driver.save_screenshot(os.path.join(outdir, "studio-variants.png"))
        log("variants: 8 in the picker, {{accent}} and [\"{{color}}\"] read-only, variant 2 previewed, the template kept")
    finally:
        stop_studio(server)


def check_placed_handles(driver):
    """The combo banner's text (in a group scaled 0.3 → 1 about [187.5, 300] from 2.2 s, a spring): its rect's
    handles are where the engine draws the rect at the frame shown (the layer's placement from the studio),
    follow the scale as frames change, hide while the group is not drawn, and a drag is taken back through the
    placement: 20 screen points right at scale s moves the rect 20 / s points."""
    origin = '#handles .handle[data-part="origin"][data-path="layers[6].group[3].params.rect"]'

    def placed(frame):
        driver.execute_script("showFrame(arguments[0])", frame)
        wait_for(f"the placements of frame {frame}", lambda: driver.execute_script(
            "return state.placements && state.placements.frame === arguments[0]", frame),
                 state=lambda: driver.execute_script(
                     "return JSON.stringify({frame: state.frame, asked: state.placementsFrame, version: state.job.version,"
                     " placements: state.placements && [state.placements.frame, state.placements.version],"
                     " handles: state.handles && state.handles.size, drag: !!state.pointDrag})"))
        return driver.execute_script("""
            const h = document.querySelector(arguments[0]), m = state.placements.layers[9];
            const r = state.job.layers[9].params.rect, j = state.job.job;
            if (!m) return [h.hidden, null, null];
            const x = m[0] * r.x + m[2] * r.y + m[4], y = m[1] * r.x + m[3] * r.y + m[5];
            return [h.hidden, [parseFloat(h.style.left), parseFloat(h.style.top)], [100 * x / j.width, 100 * y / j.height], m];""",
                                     origin)

    hidden, _, _ = placed(10)
    assert hidden, "the banner's handle shown before its group starts"
    spots = []
    for frame in (68, 80):
        hidden, shown, expected, matrix = placed(frame)
        assert not hidden and all(abs(a - b) < 0.01 for a, b in zip(shown, expected)), (frame, shown, expected)
        spots.append((shown, matrix))
    assert abs(spots[0][0][0] - spots[1][0][0]) > 2, f"the handle did not follow the scale: {spots}"
    # Back to frame 68 while 80's image is still on its way, so 68's is the one shown: the handles follow all the
    # same (they once stayed at frame 80's place until another frame was shown).
    driver.execute_script("document.getElementById('frame').dataset.url = frameURL(68)")
    placed(68)
    # Dragged where the group is at 0.87: the pointer's points are fewer than the rect's.
    scale = spots[0][1][0]
    handle = driver.find_element(By.CSS_SELECTOR, origin)
    per_point = driver.execute_script("return document.getElementById('frame').getBoundingClientRect().width / state.job.job.width")
    before = driver.execute_script("return state.job.layers[9].params.rect.x")
    ActionChains(driver).click_and_hold(handle).move_by_offset(20 * per_point, 0).release().perform()
    wait_for("the dragged rect saved", lambda: driver.execute_script("return state.job.layers[9].params.rect.x") != before)
    after = driver.execute_script("return state.job.layers[9].params.rect.x")
    assert abs((after - before) - 20 / scale) <= 1, (before, after, scale)
    driver.find_element(By.ID, "undo").click()
    wait_for("the drag undone", lambda: driver.execute_script("return state.job.layers[9].params.rect.x") == before)
    log(f"handles follow layer transforms: the banner's rect at the engine's placement on frames 68 and 80 "
        f"(scale {spots[0][1][0]:.2f} and {spots[1][1][0]:.2f}), hidden before its group starts; a 20-point drag "
        f"at scale {scale:.2f} moved it {after - before} points")


def check_composed(driver, binary, work, outdir):
    """A job with a group (gift-basket): its layers' controls edit their place inside the group, the
    legend names the group's fields, and the tracks span the group's start and end."""
    folder = os.path.join(work, "composed")
    os.makedirs(folder)
    job = os.path.join(folder, "gift-basket.json")
    shutil.copy(os.path.join(ROOT, "jobs", "gift-basket.json"), job)
    original = open(job).read()
    server, url = start_studio(binary, job)
    try:
        driver.get(url)
        wait_for("frame 0 of the gift basket", lambda: frame_state(driver)["frame"] == "0")
        # An unset radius with no default (the shape decides): an empty field saying so, the slider at its start.
        unset = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[1].params.radius"]')
        number = unset.find_element(By.CSS_SELECTOR, "input[type=number]")
        assert number.get_attribute("value") == "" and number.get_attribute("placeholder") == "unset", \
            unset.get_attribute("outerHTML")
        slider = unset.find_element(By.CSS_SELECTOR, "input[type=range]")
        assert slider.get_attribute("value") == slider.get_attribute("min"), slider.get_attribute("value")
        assert "unset" in unset.get_attribute("class")
        # The layers panel (issue 48, finding 7): names, nested as their groups; a job of 11 layers opens on its
        # first, so the page is about a screen high, not one long scroll of every layer's controls.
        items = driver.find_elements(By.CSS_SELECTOR, "#layers .layer-item")
        texts = [item.text for item in items]
        assert len(items) == 12 and texts[0] == "All layers", texts
        assert texts[2] == "basket-back · shape" and texts[9] == "pill · shape", texts
        assert items[9].value_of_css_property("padding-left") != items[2].value_of_css_property("padding-left")
        visible = [f for f in driver.find_elements(By.CSS_SELECTOR, "#controls fieldset") if f.is_displayed()]
        assert len(visible) == 1, f"{len(visible)} layers' controls shown"
        height = driver.execute_script("return [document.documentElement.scrollHeight, window.innerHeight]")
        assert height[0] <= 1.6 * height[1], f"the page is {height[0]} px high in a {height[1]} px window"
        # Every layer: the page is long, but the canvas stays in view when it is scrolled to the end.
        driver.find_element(By.CSS_SELECTOR, '#layers .layer-item[data-layer="all"]').click()
        driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
        time.sleep(0.2)
        frame = driver.execute_script(
            "const r = document.getElementById('frame').getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight];")
        assert frame[0] >= 0 and frame[0] < frame[2] / 2, f"the canvas scrolled out of view: {frame}"
        driver.execute_script("window.scrollTo(0, 0)")
        # A click on a track's label selects that layer: its controls alone, its track and panel entry marked.
        label = driver.find_element(By.CSS_SELECTOR, '#track-labels .track-label[data-layer="9"]')
        assert label.text == "layers[6].group[3] · text", label.text
        label.click()
        assert "selected" in driver.find_element(By.CSS_SELECTOR, '#layers .layer-item[data-layer="9"]').get_attribute("class")
        assert "selected" in driver.find_element(By.CSS_SELECTOR, '#track-list .track[data-layer="9"]').get_attribute("class")
        path = "layers[6].group[3].params.size"
        row = driver.find_element(By.CSS_SELECTOR, f'.control[data-path="{path}"]')
        assert row.is_displayed()
        check_placed_handles(driver)
        assert [f.get_attribute("data-layer") or f.get_attribute("data-group") for f in driver.find_elements(
            By.CSS_SELECTOR, "#controls fieldset") if f.is_displayed()] == ["layers[6]", "9"], "the group's and its layer's"
        legend = driver.find_element(By.CSS_SELECTOR, '#controls fieldset[data-group="layers[6]"] legend').text
        assert legend == "combo · group (layers[6])", legend
        # Keyframes on the timeline: the ellipse's three opacity keyframes on its track; the second dragged
        # later moves its time by whole frames, between its neighbours; its editor sets its timing; undo twice
        # restores the file.
        edited_before = open(job).read()
        marks = driver.find_elements(By.CSS_SELECTOR, '#track-list .track[data-layer="5"] .key')
        assert len(marks) == 3, f"{len(marks)} keyframe marks on layer 5's track"
        assert len(driver.find_elements(By.CSS_SELECTOR, '#track-list .track[data-layer="7"] .key')) == 2
        fps = driver.execute_script("return state.job.job.fps")
        ActionChains(driver).click_and_hold(marks[1]).move_by_offset(6, 0).move_by_offset(10, 0).release().perform()
        moved = lambda: json.load(open(job))["layers"][5]["opacity"]["keyframes"][1]["t"]
        wait_for("the keyframe's new time", lambda: moved() != 0.25)
        t = moved()
        assert 0.25 < t < 0.9 and abs(t * fps - round(t * fps)) < 1e-6, f"moved to t = {t}"
        wait_for("the keyframe editor", lambda: driver.find_element(By.ID, "key-editor").is_displayed())
        # A preset (an easings.net curve) from the editor's list, which the studio's /api/job gives. The editor is
        # drawn again when the move's save returns: a list found before may be gone, and wait_for tries again.
        wait_saved(driver)
        wait_for("the preset chosen", lambda: Select(driver.find_element(
            By.CSS_SELECTOR, "#key-editor [data-role=key-timing]")).select_by_value("easeOutBack") or True)
        wait_for("the new timing", lambda: json.load(open(job))["layers"][5]["opacity"]["keyframes"][1]["timing"]
                 == "easeOutBack")
        # The editor is drawn again with each save: read what it shows in one script.
        wait_for("the editor to show the moved time", lambda: float(driver.execute_script(
            "return document.querySelector('#key-editor [data-role=key-t]').value")) == t)
        driver.find_element(By.ID, "undo").click()
        wait_for("undo of the timing", lambda: json.load(open(job))["layers"][5]["opacity"]["keyframes"][1]["timing"] == "easeOut")
        driver.find_element(By.ID, "undo").click()
        wait_for("undo of the move", lambda: open(job).read() == edited_before)
        log(f"keyframes: 3 and 2 on their tracks; one dragged to t = {t} s (whole frames), its timing set to "
            "easeOutBack in its editor, both undone")
        # The combo group's own keyframes (scale 2, opacity 4) on a track of its own, above its layers';
        # a click on its third opacity keyframe (t = 1.7 s of the group, which starts at 2.2 s) opens it.
        wait_saved(driver)
        group = '#track-list .track.group[data-group="layers[6]"]'
        marks = driver.find_elements(By.CSS_SELECTOR, group + " .key")
        assert len(marks) == 6, f"{len(marks)} keyframes on the group's track"
        labels = [n.text for n in driver.find_elements(By.CSS_SELECTOR, "#track-labels .track-label")]
        assert labels.index("combo · group") + 1 == labels.index("layers[6].group[0] · shape"), labels
        opacity = [m for m in marks if m.get_attribute("title").startswith("opacity 1 at 1.7")]
        assert len(opacity) == 1, [m.get_attribute("title") for m in marks]
        ActionChains(driver).click(opacity[0]).perform()
        editor = driver.find_element(By.ID, "key-editor")
        wait_for("the group keyframe's editor", lambda: editor.is_displayed() and "combo" in editor.text
                 and "(group)" in editor.text)
        assert float(editor.find_element(By.CSS_SELECTOR, "[data-role=key-t]").get_attribute("value")) == 1.7
        wait_for("the playhead at 3.9 s", lambda: frame_state(driver)["frame"] == str(round(3.9 * fps)))
        log("the combo group's 6 keyframes on its own track above its layers; one opened at 3.9 s in the job")
        # Lock (the layers panel): the glow's controls, handles, bar and keyframes take no edit; unlocked, they do.
        before = open(job).read()
        driver.find_element(By.CSS_SELECTOR, '#layers .locked[data-layer="5"]').click()
        driver.find_element(By.CSS_SELECTOR, '#layers .layer-item[data-layer="5"]').click()
        fieldset = driver.find_element(By.CSS_SELECTOR, '#controls fieldset[data-layer="5"]')
        assert fieldset.is_displayed() and fieldset.get_attribute("disabled"), "the locked layer's controls are enabled"
        assert not driver.find_elements(By.CSS_SELECTOR, '#handles [data-path^="layers[5]"]'), "a locked layer's handles"
        assert not driver.find_element(By.ID, "remove-layer").is_enabled()
        mark = driver.find_elements(By.CSS_SELECTOR, '#track-list .track[data-layer="5"] .key')[1]
        ActionChains(driver).click_and_hold(mark).move_by_offset(30, 0).release().perform()
        bar = driver.find_element(By.CSS_SELECTOR, '#track-list .track[data-layer="5"] .bar')
        ActionChains(driver).click_and_hold(bar).move_by_offset(40, 0).release().perform()
        time.sleep(0.5)
        assert open(job).read() == before, "a locked layer was edited"
        driver.find_element(By.CSS_SELECTOR, '#layers .locked[data-layer="5"]').click()
        wait_for("the glow's handles back", lambda: driver.find_elements(By.CSS_SELECTOR, '#handles [data-path^="layers[5]"]'))
        assert not driver.find_element(By.CSS_SELECTOR, '#controls fieldset[data-layer="5"]').get_attribute("disabled")
        log("lock: the locked glow's controls disabled, no handles, Remove off, its keyframe and bar drags left the "
            "file as it was; unlocked, all back")
        # The saves drew the tracks again: once they are answered, the text layer's label is a new element.
        wait_saved(driver)
        label = driver.find_element(By.CSS_SELECTOR, '#track-labels .track-label[data-layer="9"]')
        label.click()
        # Zoomed ×8 and scrolled to the end, the tracks still say whose they are.
        driver.execute_script("setZoom(8); document.getElementById('tracks').scrollLeft = 1e9;")
        time.sleep(0.2)
        assert label.is_displayed() and label.text == "layers[6].group[3] · text"
        driver.execute_script("setZoom(1)")
        legend = row.find_element(By.XPATH, "ancestor::fieldset").text
        assert "layers[6].group[3] · text" in legend and "group: until 4.4 s" in legend, legend
        size = row.find_element(By.CSS_SELECTOR, "input[type=number]")
        size.clear()
        size.send_keys("30", Keys.TAB)
        wait_for("size 30 in the group's text layer",
                 lambda: json.load(open(job))["layers"][6]["group"][3]["params"]["size"] == 30)
        assert open(job).read() == original.replace('"size": 26', '"size": 30'), "the edit changed more than the size"
        # The saved edit rebuilds the tracks (when the job's new frame comes): read the bar the page shows then.
        wait_for("the group's span on layer 9's track", lambda: "from 2.2 s to 4.4 s" in driver.find_element(
            By.CSS_SELECTOR, '#track-list .track[data-layer="9"] .bar').get_attribute("title"))
        driver.save_screenshot(os.path.join(outdir, "studio-composed.png"))
        log("layers panel: 11 named, nested layers, one shown at a time (page about a screen high), the canvas in view "
            "at the page's end, a track label selects; a group's text layer edited at layers[6].group[3], its legend and "
            "track show the group's span; an unset radius shows as unset")
        # Hide and solo (the layers panel): the preview's frames leave those layers out; the file keeps them.
        wait_saved(driver)
        wait_for("the frame of the saved version", lambda: "&v=%s&" % driver.execute_script(
            "return state.job.version") in (frame_state(driver)["url"] or ""))
        before = open(job).read()
        plain = shown_sha256(driver)
        toggle = lambda kind, layer: driver.find_element(By.CSS_SELECTOR, f'#layers .{kind}[data-layer="{layer}"]')
        toggle("hidden", 10).click()
        wait_for("a frame without the hearts", lambda: "&hide=10&" in (frame_state(driver)["url"] or ""))
        assert shown_sha256(driver) != plain, "hiding the hearts changed no pixel"
        assert driver.find_element(By.ID, "view-state").text == "1 of 11 layers left out of the preview"
        toggle("solo", 0).click()
        toggle("solo", 10).click()
        everything_else = "&hide=" + ",".join(str(n) for n in range(1, 11)) + "&"
        wait_for("only the gradient (the soloed hearts stay hidden)",
                 lambda: everything_else in (frame_state(driver)["url"] or ""))
        only_gradient = shown_sha256(driver)
        dimmed = driver.find_elements(By.CSS_SELECTOR, "#track-list .track.left-out")
        assert [d.get_attribute("data-layer") for d in dimmed] == [str(n) for n in range(1, 11)], "dimmed tracks"
        driver.save_screenshot(os.path.join(outdir, "studio-solo.png"))
        # Kept by this browser for the job file, as lock is: a reload shows the same.
        frame = frame_state(driver)["frame"]
        driver.refresh()
        wait_for("the page after a reload", lambda: frame_state(driver)["frame"] is not None)
        driver.execute_script("showFrame(arguments[0])", int(frame))
        wait_for("the soloed view after a reload", lambda: everything_else in (frame_state(driver)["url"] or "")
                 and frame_state(driver)["frame"] == frame)
        assert shown_sha256(driver) == only_gradient
        assert toggle("solo", 0).get_attribute("aria-pressed") == "true"
        for kind, layer in [("solo", 0), ("solo", 10), ("hidden", 10)]:
            toggle(kind, layer).click()
        wait_for("every layer shown again", lambda: "hide=" not in (frame_state(driver)["url"] or "x"))
        wait_for("the first frame's pixels back", lambda: shown_sha256(driver) == plain)
        assert open(job).read() == before, "hide or solo changed the file"
        log("hide and solo: the hearts hidden, then the gradient soloed, kept over a reload, all shown again with "
            "the same pixels; the file unchanged")
        # Turned off in the file (`enabled`, issue 49): the hearts' box unchecked writes "enabled": false; the panel
        # lists them as off; "turn on" gives the file back byte for byte.
        wait_saved(driver)
        before = open(job).read()
        driver.find_element(By.CSS_SELECTOR, '#layers .layer-item[data-layer="10"]').click()
        driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[7].enabled"] input[type=checkbox]').click()
        wait_for("the hearts turned off in the file", lambda: json.load(open(job))["layers"][7].get("enabled") is False)
        wait_for("the hearts listed as off", lambda: driver.find_elements(
            By.CSS_SELECTOR, '#layers .turn-on[data-path="layers[7]"]'))
        assert len(driver.execute_script("return state.job.layers")) == 10
        wait_saved(driver)
        # The panel is drawn again when the saved file's plan arrives: click the button it shows then (a button
        # found before may be gone, and wait_for tries again).
        wait_for("the hearts' turn-on clicked", lambda: driver.find_element(
            By.CSS_SELECTOR, '#layers .turn-on[data-path="layers[7]"]').click() or True)
        wait_for("the file as it was", lambda: open(job).read() == before)
        wait_for("eleven layers again", lambda: len(driver.execute_script("return state.job.layers")) == 11)
        log("enabled: the hearts' box unchecked wrote \"enabled\": false (10 layers drawn, the hearts listed as off); "
            "turn on gave the file back byte for byte")
    finally:
        stop_studio(server)


def check_view(driver):
    """The preview's view (issue 48): 100 % shows the frame at the job's own pixel size, one pixel per screen
    pixel, in a pane that scrolls to pan; 200 % doubles it; Fit comes back to the preview scale; the safe areas
    sit at 93 % and 90 % of the canvas."""
    job = driver.execute_script("return state.job.job")
    fit = frame_state(driver)
    driver.find_element(By.ID, "view-100").click()
    wait_for("the frame at the job's scale", lambda: float(frame_state(driver)["scale"] or 0) == job["scale"])
    full = round(job["width"] * job["scale"])
    wait_for("the full-size frame decoded", lambda: frame_state(driver)["width"] == full)
    ratio = driver.execute_script("return window.devicePixelRatio")
    shown = driver.execute_script("return document.getElementById('frame').getBoundingClientRect().width")
    assert abs(shown * ratio - full) <= 1, f"100 %: {shown} CSS px × {ratio} for a {full} px frame"
    pannable = driver.execute_script(
        "const s = document.getElementById('stage'); return s.scrollHeight > s.clientHeight || s.scrollWidth > s.clientWidth")
    assert pannable, "the zoomed pane does not scroll"
    driver.find_element(By.ID, "view-200").click()
    wait_for("200 %", lambda: abs(driver.execute_script(
        "return document.getElementById('frame').getBoundingClientRect().width") - 2 * shown) <= 1)
    driver.find_element(By.ID, "safe").click()
    driver.find_element(By.ID, "view-fit").click()
    wait_for("Fit again", lambda: frame_state(driver)["scale"] == fit["scale"])
    canvas, action, title = driver.execute_script(
        "return ['frame', 'safe-areas'].map((id) => document.getElementById(id)).slice(0, 1)"
        ".concat([...document.querySelectorAll('#safe-areas .safe')]).map((n) => {"
        " const r = n.getBoundingClientRect(); return [r.width, r.height]; })")
    for (name, box, share) in [("action", action, 0.93), ("title", title, 0.90)]:
        assert abs(box[0] / canvas[0] - share) < 0.01 and abs(box[1] / canvas[1] - share) < 0.01, (name, box, canvas)
    driver.find_element(By.ID, "safe").click()
    log(f"view: 100 % drew the {full} px frame pixel for pixel in a pane that pans, 200 % doubled it, Fit came "
        "back; safe areas at 93 % and 90 %")


def check_reset_and_alpha(driver, job):
    """Reset to default removes a parameter from the job (the default applies; Undo brings it back), and a
    colour's alpha slider writes #RRGGBBAA."""
    before = job_params(job)
    assert "size" in before, before
    row = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.size"]')
    reset = row.find_element(By.CSS_SELECTOR, "button.reset")
    assert reset.is_displayed(), "no reset on a parameter the job sets"
    reset.click()
    wait_for("size to leave the job", lambda: "size" not in job_params(job))
    default = driver.execute_script(
        "return state.job.layers[0].parameters.find((p) => p.name === 'size').default")
    wait_for("the default shown", lambda: row.find_element(By.CSS_SELECTOR, "input[type=number]").get_attribute("value")
             == str(default) and not reset.is_displayed())
    driver.find_element(By.ID, "undo").click()
    wait_for("undo to bring size back", lambda: job_params(job).get("size") == before["size"])
    alpha = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.stroke"] input[data-role=alpha]')
    set_value(driver, alpha, 128)
    wait_for("an #RRGGBBAA stroke", lambda: str(job_params(job).get("stroke", "")).endswith("80")
             and len(job_params(job)["stroke"]) == 9)
    stroke = job_params(job)["stroke"]
    driver.find_element(By.ID, "undo").click()
    wait_for("undo of the alpha", lambda: job_params(job).get("stroke") != stroke)
    # Scrubbing the name: 30 px to the right is 30 steps more, saved as it goes and undone in one step.
    steps = driver.execute_script("return state.undo.length")
    start = job_params(job)["size"]
    label = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.size"] label')
    ActionChains(driver).click_and_hold(label).move_by_offset(10, 0).pause(0.3).move_by_offset(20, 0).release().perform()
    step = float(driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.size"] input[type=number]')
                 .get_attribute("step"))
    wait_for("the scrubbed size", lambda: abs(job_params(job)["size"] - (start + 30 * step)) < 1e-9)
    wait_saved(driver, "the scrub's saves")
    assert driver.execute_script("return state.undo.length") == steps + 1, "a scrub made more than one undo step"
    driver.find_element(By.ID, "undo").click()
    wait_for("undo of the scrub", lambda: job_params(job)["size"] == start)
    log(f"reset removed size (default {default} shown), undo put {before['size']} back; alpha 128 wrote {stroke}; "
        f"scrubbing the name 30 px moved size {start} to {start + 30 * step}, one undo step")


def check_add_layer(driver, job):
    """Add layer puts a layer of the chosen effect on top with its defaults and selects it; Remove takes it out
    again, leaving the file as it was, byte for byte."""
    before = open(job).read()
    effects = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#add-effect option")]
    assert {"floating-heart", "shape", "text"} <= set(effects), effects
    Select(driver.find_element(By.ID, "add-effect")).select_by_value("floating-heart")
    driver.find_element(By.ID, "add-layer").click()
    wait_for("the new layer in the file", lambda: len(json.load(open(job))["layers"]) == 2)
    assert json.load(open(job))["layers"][1] == {"effect": "floating-heart"}
    wait_for("the new layer selected", lambda: "selected" in (driver.find_element(
        By.CSS_SELECTOR, '#layers .layer-item[data-layer="1"]').get_attribute("class") or ""))
    wait_for("its controls", lambda: driver.find_element(
        By.CSS_SELECTOR, '.control[data-path="layers[1].params.rate"]').is_displayed())
    driver.find_element(By.ID, "remove-layer").click()
    wait_for("the layer removed", lambda: open(job).read() == before)
    wait_settled(driver, job)
    log(f"add layer: floating-heart added on top (one of {len(effects)} effects), selected with its controls; "
        "Remove gave back the file byte for byte")


def check_styles(driver, binary, work):
    """A job with layer styles and motion blur (gift-alert): each layer's panel says what the host draws it with,
    and a frame with a motion-blurred drop is, byte for byte, the frame render writes."""
    folder = os.path.join(work, "styles")
    os.makedirs(os.path.join(folder, "assets"))
    job = os.path.join(folder, "gift-alert.json")
    shutil.copy(os.path.join(ROOT, "jobs", "gift-alert.json"), job)
    shutil.copy(os.path.join(ROOT, "jobs", "assets", "avatar.jpg"), os.path.join(folder, "assets"))
    server, url = start_studio(binary, job)
    try:
        driver.get(url)
        wait_for("frame 0 of the gift alert", lambda: frame_state(driver)["frame"] == "0")
        driver.find_element(By.CSS_SELECTOR, '#layers .layer-item[data-layer="all"]').click()
        hints = {f.get_attribute("data-layer"): f.find_element(By.CSS_SELECTOR, ".hint.fields").text
                 for f in driver.find_elements(By.CSS_SELECTOR, "#controls fieldset[data-layer]")
                 if f.find_elements(By.CSS_SELECTOR, ".hint.fields")}
        assert hints.get("0") == "style: blur", hints
        assert "style: drop shadow, stroke" in hints.get("1", ""), hints
        assert hints.get("5") == "motion blur 180°, 8 samples, style: drop shadow, inner glow", hints
        expected = show_and_render(driver, binary, job, 14, os.path.join(folder, "reference"))
        assert shown_sha256(driver) == expected, "the styled, motion-blurred frame 14 is not render's"
        log("gift-alert: styles and motion blur described per layer; frame 14 byte-identical to render's")
        check_style_editors(driver, binary, job, folder)
    finally:
        stop_studio(server)


def show_and_render(driver, binary, job, frame, out):
    """Scrubs the page to `frame` and returns the SHA-256 of that frame as `render` writes it into `out`, at the
    page's preview scale."""
    driver.execute_script(
        "const s = document.getElementById('scrub'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));",
        str(frame))
    state = wait_for(f"frame {frame} shown",
                     lambda: (lambda s: s if s["frame"] == str(frame) else None)(frame_state(driver)))
    subprocess.run([binary, "render", job, "--frames", str(frame), "--scale", state["scale"], "--out", out],
                   check=True, timeout=120, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "frame_%05d.png" % frame), "rb") as rendered:
        return hashlib.sha256(rendered.read()).hexdigest()


def check_style_editors(driver, binary, job, folder):
    """The style, motion blur and motion path editors of a layer (issue 49): a style the engine refuses is told
    at its editor and kept out of the file; a good style, motion blur and path are written on Apply, and the
    frame shown is then render's, byte for byte."""
    def editor(path):
        row = driver.find_element(By.CSS_SELECTOR, f'.control[data-path="{path}"]')
        # Folded away unless the file sets one of them: opened as a user opens it.
        driver.execute_script("arguments[0].closest('details').open = true", row)
        return row, row.find_element(By.TAG_NAME, "textarea")

    def apply(path, text):
        wait_saved(driver)
        row, area = editor(path)
        area.clear()
        area.send_keys(text)
        row.find_element(By.CSS_SELECTOR, "button:not(.reset)").click()

    before = open(job).read()
    apply("layers[0].style", '{"blur": -3}')
    said = wait_for("the engine's problem at the style editor", lambda: driver.find_element(
        By.CSS_SELECTOR, '.control[data-path="layers[0].style"] [data-role="problems"]').text)
    assert "layers[0].style.blur" in said, said
    time.sleep(0.3)
    assert open(job).read() == before, "a refused style reached the job file"
    written = [("layers[0].style", '{"blur": 2, "adjust": {"saturation": -1}}', ["style"],
                {"blur": 2, "adjust": {"saturation": -1}}),
               ("layers[2].motionBlur", '{"shutterAngle": 360, "samples": 4}', ["motionBlur"],
                {"shutterAngle": 360, "samples": 4}),
               ("layers[3].transform.path", '{"d": "M 40 300 C 120 80 260 80 330 300", "progress": 0.3, '
                '"autoOrient": true}', ["transform", "path"],
                {"d": "M 40 300 C 120 80 260 80 330 300", "progress": 0.3, "autoOrient": True})]
    for path, text, keys, value in written:
        apply(path, text)
        index = int(path.split("]")[0].split("[")[1])
        wait_for(f"{path} in the job file", lambda: functools.reduce(
            lambda node, key: (node or {}).get(key), keys, json.load(open(job))["layers"][index]) == value)
    wait_saved(driver)
    expected = show_and_render(driver, binary, job, 20, os.path.join(folder, "edited"))
    wait_for("the edited frame 20 as render draws it", lambda: shown_sha256(driver) == expected)
    log(f"style editors: a bad blur told at its editor ({said.splitlines()[0]!r}) and kept out; a style, motion "
        "blur and motion path written; frame 20 byte-identical to render's")


def check_sound(driver, binary, work):
    """A job with sound (stream-replay): with "sound" on, the page loads the studio's mix (the bytes renderfarm
    mix writes) and, playing, shows the frame of the sound's own clock; a job without sound says so."""
    folder = os.path.join(work, "sound")
    os.makedirs(os.path.join(folder, "assets"))
    job = os.path.join(folder, "stream-replay.json")
    shutil.copy(os.path.join(ROOT, "jobs", "stream-replay.json"), job)
    for asset in ["bed.ogg", "ding.mp3", "stream-gifts.jsonl", "stream-likes.csv"]:
        shutil.copy(os.path.join(ROOT, "jobs", "assets", asset), os.path.join(folder, "assets"))
    mixed = os.path.join(folder, "mixed.wav")
    subprocess.run([binary, "mix", job, "-o", mixed], check=True, timeout=120, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    server, url = start_studio(binary, job)
    try:
        driver.get(url)
        wait_for("frame 0 of the replay", lambda: frame_state(driver)["frame"] == "0")
        driver.find_element(By.ID, "sound").click()
        wait_for("the mix loaded", lambda: driver.execute_script("return document.getElementById('audio').dataset.ready") == "1", 60)
        # What the page loaded (by its address), as SHA-256: the bytes renderfarm mix wrote.
        digest = driver.execute_script(
            "return fetch(document.getElementById('audio').dataset.source).then(r => r.arrayBuffer())"
            ".then(b => crypto.subtle.digest('SHA-256', b)).then(d => [...new Uint8Array(d)]"
            ".map(x => x.toString(16).padStart(2, '0')).join(''))")
        assert digest == hashlib.sha256(open(mixed, "rb").read()).hexdigest(), "the page's mix is not renderfarm mix's"
        size = os.path.getsize(mixed)
        wait_for("the audio element ready", lambda: driver.execute_script(
            "return document.getElementById('audio').readyState") >= 2, 30)
        duration = driver.execute_script("return document.getElementById('audio').duration")
        assert abs(duration - 120) < 0.1, f"the mix lasts {duration} s, the job 120 s"
        driver.execute_script("showFrame(300)")
        driver.find_element(By.ID, "play").click()
        wait_for("the sound to play", lambda: driver.execute_script(
            "const a = document.getElementById('audio'); return !a.paused && a.currentTime > 10.5"), 20)
        time.sleep(1)
        clock, frame = driver.execute_script(
            "return [document.getElementById('audio').currentTime, state.frame / state.job.job.fps]")
        driver.find_element(By.ID, "play").click()
        assert abs(clock - frame) < 0.25, f"the frame shown ({frame:.2f} s) is not the sound's time ({clock:.2f} s)"
        assert driver.execute_script("return document.getElementById('audio').paused"), "Pause left the sound playing"
        log(f"sound: the mix ({size} bytes, as renderfarm mix) played from frame 300; the frame followed its clock "
            f"({frame:.2f} s shown at {clock:.2f} s)")
    finally:
        stop_studio(server)


def check_token_page(driver, binary, work):
    """A token studio (token from the environment): the token leaves the address bar; the page works."""
    server, url = start_studio(binary, os.path.join(work, "live-hearts.json"),
                               env={"RENDERFARM_STUDIO_TOKEN": "browser-token-123"})
    try:
        assert url.endswith("?token=browser-token-123"), url
        driver.get(url)
        wait_for("frame 0 with the token cookie", lambda: frame_state(driver)["frame"] == "0")
        assert "token" not in driver.current_url, driver.current_url
        log(f"token studio: the page works and the address bar reads {driver.current_url}")
    finally:
        stop_studio(server)


def wait_settled(driver, job):
    """Waits until the page shows the job file as it is, with no save in flight: the controls it builds for a
    save's answer are then built, and elements found afterwards stay in the page."""
    wait_for("the page to show the saved file", lambda: driver.execute_script(
        "return !state.saving && state.pending === null && state.job && state.job.text === arguments[0]",
        open(job).read()))


def job_params(job):
    return json.load(open(job))["layers"][0]["params"]


def check_point_drag(driver, job, outdir):
    """The emitter handle dragged on the canvas: nothing is saved while it moves; on release one
    save writes the moved point, in whole canvas points (pixels times canvas width / image width)."""
    handle = driver.find_element(By.CSS_SELECTOR, '.handle[data-path="layers[0].params.emitter"]')
    start = job_params(job)["emitter"]
    saves = driver.execute_script("return state.saves")
    per_pixel = driver.execute_script(
        "return state.job.job.width / document.getElementById('frame').getBoundingClientRect().width")
    chain = ActionChains(driver).click_and_hold(handle)
    for dx, dy in [(10, -5), (15, -10), (25, -15)]:
        chain.move_by_offset(dx, dy).pause(0.1)
    chain.perform()
    expected = [round(start[0] + 50 * per_pixel), round(start[1] - 30 * per_pixel)]
    time.sleep(0.3)
    assert driver.execute_script("return state.saves") == saves, "a save before the drag ended"
    assert job_params(job)["emitter"] == start, "the file changed during the drag"
    shown = driver.find_elements(By.CSS_SELECTOR, '.control[data-path="layers[0].params.emitter"] input')
    assert [float(f.get_attribute("value")) for f in shown] == expected, "the control does not follow the drag"
    driver.save_screenshot(os.path.join(outdir, "studio-drag.png"))
    ActionChains(driver).release().perform()
    wait_for(f"emitter {expected} in the job file", lambda: job_params(job)["emitter"] == expected)
    assert driver.execute_script("return state.saves") == saves + 1, "not exactly one save for the drag"
    wait_for("the handle redrawn at the saved point", lambda: driver.execute_script(
        "const h = document.querySelector('.handle[data-path=\"layers[0].params.emitter\"]');"
        "return h && h.textContent.includes(arguments[0])", json.dumps(expected, separators=(",", ":"))))
    log(f"emitter dragged 50,-30 px: {start} -> {expected} (whole points), one save at release")


def check_list_editor(driver, job, outdir):
    """The number list `times`: a syntax error and an out-of-range item are shown located and
    nothing is written; a good list is written on Apply; a problem the server finds inside the
    value (an event's colour) is shown at that editor."""
    row = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.times"]')
    area = row.find_element(By.TAG_NAME, "textarea")
    problems = row.find_element(By.CSS_SELECTOR, '[data-role="problems"]')
    before = open(job).read()
    for text, said in [("[1, 2,\n 3,]", "line 2, column 4"), ("[1,\n 2, 99999]", "line 2, column 5: item 2: 99999 is above the maximum 86400")]:
        area.clear()
        area.send_keys(text)
        wait_for(f"the located problem {said!r}", lambda: said in problems.text)
        row.find_element(By.CSS_SELECTOR, "button:not(.reset)").click()
        time.sleep(0.3)
        assert open(job).read() == before, f"{text!r} reached the job file"
    driver.save_screenshot(os.path.join(outdir, "studio-editors.png"))
    area.clear()
    area.send_keys("[0.5, 1, 2]")
    area.send_keys(Keys.CONTROL, Keys.ENTER)
    wait_for("times [0.5, 1, 2] in the job file", lambda: job_params(job).get("times") == [0.5, 1, 2])
    events = driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.events"] textarea')
    events.clear()
    events.send_keys('[{"time": 1, "color": "not a colour", "size": 30}]')
    driver.find_element(By.CSS_SELECTOR, '.control[data-path="layers[0].params.events"] button:not(.reset)').click()
    said = wait_for("the server's problem at the events editor", lambda: driver.find_element(
        By.CSS_SELECTOR, '.control[data-path="layers[0].params.events"] [data-role="problems"]').text)
    assert "layers[0].params.events" in said, said
    assert "events" not in job_params(job), "an invalid event list reached the job file"
    log(f"list editor: located syntax and range errors kept out, times written; server said {said.splitlines()[0]!r}")


def check_zoom(driver, outdir):
    """Zoom in: the tracks grow, the ruler's step shrinks, a click still lands on the frame under
    it, and the in/out range stays settable; Fit shows the whole job again."""
    tick_gap = lambda: driver.execute_script(
        "const t = document.querySelectorAll('#ruler .tick');"
        "return t[1].getBoundingClientRect().left - t[0].getBoundingClientRect().left")
    # Read in one script: the ruler may be drawn again between finding its ticks and reading them.
    labels = lambda: driver.execute_script(
        "return [...document.querySelectorAll('#ruler .tick')].slice(0, 3).map(t => t.innerText)")
    fit_labels = labels()
    width = lambda: driver.execute_script(
        "return [document.getElementById('tracks-inner').getBoundingClientRect().width,"
        " document.getElementById('tracks').clientWidth]")
    assert abs(width()[0] - width()[1]) <= 2, width()
    for _ in range(3):
        driver.find_element(By.ID, "zoom-in").click()
    inner, box = width()
    assert abs(inner - 8 * box) <= 16, f"zoomed ×8 but the tracks are {inner} px in a {box} px box"
    zoomed_labels = labels()
    assert zoomed_labels != fit_labels and tick_gap() > 20, f"the ruler did not follow the zoom: {zoomed_labels}"
    driver.execute_script("document.getElementById('tracks').scrollLeft = arguments[0]", int(box * 3))
    expected = driver.execute_script("""
        const box = document.getElementById('tracks'), inner = document.getElementById('tracks-inner');
        const r = box.getBoundingClientRect(), all = inner.getBoundingClientRect(), count = state.job.job.frameCount;
        // The middle of the frame 40 px into the view.
        const frame = Math.floor((r.left + 40 - all.left) / all.width * count);
        const x = all.left + (frame + 0.5) * all.width / count;
        box.dispatchEvent(new MouseEvent('click', {clientX: x, clientY: r.top + 30, bubbles: true}));
        return frame;""")
    assert expected > 0
    wait_for(f"the click to go to frame {expected}", lambda: frame_state(driver)["frame"] == str(expected))
    body = driver.find_element(By.TAG_NAME, "body")
    driver.execute_script("document.activeElement.blur()")
    body.send_keys("i")
    driver.execute_script("showFrame(arguments[0] + 12)", expected)
    body.send_keys("o")
    command = driver.find_element(By.ID, "inout-command").text
    assert command.endswith(f"--frames {expected}-{expected + 12}"), command
    shown = driver.execute_script(
        "const r = document.getElementById('inout').getBoundingClientRect(), b = document.getElementById('tracks').getBoundingClientRect();"
        "return [r.width > 40 && r.left >= b.left && r.right <= b.right, r.left, r.right, b.left, b.right]")
    assert shown[0], f"the in/out range is not in view at this zoom: {shown}"
    driver.save_screenshot(os.path.join(outdir, "studio-zoom.png"))
    driver.execute_script("showFrame(state.job.job.frameCount - 1)")
    assert driver.execute_script(
        "const p = document.getElementById('playhead').getBoundingClientRect(), b = document.getElementById('tracks').getBoundingClientRect();"
        "return p.left >= b.left && p.left <= b.right"), "the playhead left the view"
    body.send_keys("0")
    inner, box = width()
    assert abs(inner - box) <= 2, "Fit did not show the whole job"
    assert driver.execute_script(
        "const t = document.getElementById('tracks'); return t.scrollWidth <= t.clientWidth"), "Fit still scrolls"
    driver.find_element(By.ID, "clear-inout").click()
    log(f"zoom ×8: ruler {zoomed_labels} (whole job: {fit_labels}), click to frame {expected}, in/out {expected}-{expected + 12}; 0 fits again")


def check_many_tabs(driver, url, job):
    """Seven tabs of one studio: every one shows frames and hears of an edit (issue 48, finding 6). A browser
    opens six connections to a host; one event stream per tab would leave the seventh none."""
    first = driver.current_window_handle
    tabs = []
    for _ in range(6):
        driver.switch_to.new_window("tab")
        driver.get(url)
        tabs.append(driver.current_window_handle)
    wait_for("a frame in the seventh tab", lambda: frame_state(driver)["width"], 30)
    spec = json.load(open(job))
    spec["layers"][0]["params"]["size"] = 41
    write_atomically(job, json.dumps(spec, indent=2))
    for handle in [first] + tabs:
        driver.switch_to.window(handle)
        wait_for("every tab to hear of the edit", lambda: '"size": 41' in (driver.execute_script("return state.saved") or ""), 20)
    shown = driver.find_element(By.ID, "connection").text
    for handle in tabs:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(first)
    log(f"seven tabs: each showed a frame and heard of an edit (the last said {shown!r})")


def check_explicit_save(driver, job):
    """Autosave off: an edit stays in the text box (marked unsaved) until Ctrl+S; Revert puts the
    file's text back and writes nothing."""
    driver.find_element(By.ID, "autosave").click()
    before = open(job).read()
    rate = lambda: driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
    set_value(driver, rate(), 7)
    wait_for("the unsaved mark", lambda: driver.find_element(By.ID, "dirty").is_displayed())
    time.sleep(0.5)
    assert open(job).read() == before, "an edit was written with autosave off"
    assert '"rate": 7' in driver.find_element(By.ID, "source").get_attribute("value")
    driver.execute_script("document.activeElement.blur()")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.CONTROL, "s")
    wait_for("Ctrl+S to write rate 7", lambda: job_params(job)["rate"] == 7)
    wait_for("the unsaved mark to go", lambda: not driver.find_element(By.ID, "dirty").is_displayed())
    saved = open(job).read()
    set_value(driver, rate(), 9)
    wait_for("the unsaved mark", lambda: driver.find_element(By.ID, "dirty").is_displayed())
    driver.find_element(By.ID, "revert").click()
    wait_for("the file's text back", lambda: driver.find_element(By.ID, "source").get_attribute("value") == saved)
    assert not driver.find_element(By.ID, "dirty").is_displayed()
    time.sleep(0.3)
    assert open(job).read() == saved, "Revert wrote to the file"
    driver.find_element(By.ID, "autosave").click()
    log("autosave off: edit kept unsaved, Ctrl+S wrote rate 7, Revert restored the file's text")


def check_docs(driver, binary, work, docs, outdir):
    """/docs serves the installed DocC pages: the index lists every catalog, and the EffectKit page
    renders in Chromium (its title drawn by DocC's script) with no policy violation."""
    installed = os.path.join(work, "share-doc", "docs")
    for name in sorted(os.listdir(docs)):
        if name.endswith(".doccarchive"):
            shutil.copytree(os.path.join(docs, name), os.path.join(installed, name[: -len(".doccarchive")]))
    server, url = start_studio(binary, os.path.join(work, "live-hearts.json"), extra=["--docs", os.path.dirname(installed)])
    try:
        driver.get(url)
        link = wait_for("the docs link", lambda: driver.find_element(By.ID, "docs-link"))
        assert link.get_attribute("href").endswith("/docs/"), link.get_attribute("href")
        driver.get(link.get_attribute("href"))
        modules = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "li a")]
        assert modules == ["EffectKit", "Motion", "RenderFarm"], modules
        driver.get_log("browser")
        driver.find_element(By.LINK_TEXT, "EffectKit").click()
        title = wait_for("DocC to draw the EffectKit page", lambda: driver.execute_script(
            "const h = document.querySelector('main h1'); return h && h.textContent.trim()"), 30)
        assert "EffectKit" in title, title
        violations = [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]
        assert not violations, violations
        driver.save_screenshot(os.path.join(outdir, "studio-docs.png"))
        log(f"/docs: {modules}; the EffectKit page renders ({title!r}) with no CSP violation")
    finally:
        stop_studio(server)


def check_manual(driver, binary, work, outdir):
    """The manual's web pages (`renderfarm docs --html`, installed by `make install`) read in Chromium with
    JavaScript turned off: the index links every topic, a topic's page shows its text and its tables, and
    its links to other topics lead to their pages."""
    folder = os.path.join(work, "manual")
    subprocess.run([binary, "docs", "--html", folder], check=True, timeout=60, stdout=subprocess.DEVNULL)
    topics = [line.split()[0] for line in subprocess.run(
        [binary, "docs"], check=True, timeout=60, capture_output=True, text=True).stdout.splitlines()
        if line.startswith("  ")]
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        driver.get("file://" + os.path.join(folder, "index.html"))
        links = [a.get_attribute("href").rsplit("/", 1)[-1] for a in driver.find_elements(By.CSS_SELECTOR, "main a")]
        assert sorted(links) == sorted(f"{topic}.html" for topic in topics), (links, topics)
        driver.find_element(By.LINK_TEXT, "Composing layers").click()
        main = wait_for("the topic's page", lambda: driver.find_element(By.TAG_NAME, "main"))
        text = " ".join(main.text.split())
        assert "blend combines the layer with what is under it" in text, text[:400]
        table = driver.find_element(By.CSS_SELECTOR, "main table")
        assert table.size["width"] > 200 and len(table.find_elements(By.TAG_NAME, "tr")) > 2, table.size
        driver.save_screenshot(os.path.join(outdir, "manual-composing-layers.png"))
        driver.find_element(By.LINK_TEXT, "The output folder").click()
        heading = wait_for("the linked topic", lambda: driver.find_element(By.CSS_SELECTOR, "main h1").text)
        assert heading == "The output folder", heading
        assert driver.current_url.endswith("/output-folder.html"), driver.current_url
    finally:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    log(f"manual: {len(topics)} topics linked from the index, read and followed with JavaScript off")


def stop_studio(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()


def main():
    binary, outdir, docs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="rf-studio-browser-")
    job = os.path.join(work, "live-hearts.json")
    shutil.copy(os.path.join(ROOT, "jobs", "live-hearts.json"), job)
    server, url = start_studio(binary, job)
    log(f"studio at {url}")
    render = None
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1500,1000", "--no-first-run", "--disable-extensions"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    try:
        driver.get(url)
        wait_for("frame 0 on the page", lambda: frame_state(driver)["frame"] == "0")
        log("page loaded, frame 0 shown")

        # Scrub to frame 120: the image shown is the frame `render --scale S` writes.
        driver.execute_script(
            "const s = document.getElementById('scrub'); s.value = '120'; s.dispatchEvent(new Event('input'));")
        state = wait_for("frame 120 shown", lambda: (lambda s: s if s["frame"] == "120" else None)(frame_state(driver)))
        scale = state["scale"]
        reference = os.path.join(work, "reference")
        subprocess.run([binary, "render", job, "--frames", "120", "--scale", scale, "--out", reference],
                       check=True, timeout=60, stdout=subprocess.DEVNULL)
        with open(os.path.join(reference, "frame_00120.png"), "rb") as frame:
            expected = hashlib.sha256(frame.read()).hexdigest()
        shown = shown_sha256(driver)
        assert shown == expected, f"the image shown is not frame 120 at scale {scale}: {shown} != {expected}"
        assert state["width"] == round(375 * float(scale)), state
        assert "120" in driver.find_element(By.ID, "frame-label").text
        log(f"frame 120 shown, byte-identical to render --scale {scale}")
        exact, rounded = check_decoders(driver, os.path.join(reference, "frame_00120.png"))
        log(f"frame 120 decoded alike by Chromium and ffmpeg: {exact} pixels exactly, {rounded} under partial alpha")

        # Drag the rate slider with a pause mid-drag (a save answers meanwhile): the slider under the
        # pointer stays the same element and the drag goes on to its end.
        before = shown
        slider = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        version = driver.execute_script("return state.job.version")
        steps, saves = driver.execute_script("return [state.undo.length, state.saves]")
        ActionChains(driver).click_and_hold(slider).move_by_offset(-60, 0).pause(0.2).perform()
        wait_for("a save during the drag", lambda: driver.execute_script("return state.job.version") > version)
        ActionChains(driver).move_by_offset(40, 0).release().perform()
        assert driver.execute_script("return arguments[0].isConnected", slider), \
            "the slider under the pointer was rebuilt during the drag"
        dragged = driver.execute_script("return arguments[0].value", slider)
        wait_for(f"the job file to get the dragged rate {dragged}", lambda: f'"rate": {dragged}' in open(job).read())
        wait_saved(driver, "the drag's saves")
        steps_after, saves_after = driver.execute_script("return [state.undo.length, state.saves]")
        assert steps_after == steps + 1, f"one drag made {steps_after - steps} undo steps ({saves_after - saves} saves)"
        slider = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        set_value(driver, slider, 20)
        original = open(os.path.join(ROOT, "jobs", "live-hearts.json")).read()
        wait_for("the job file to get rate 20", lambda: '"rate": 20' in open(job).read())
        assert open(job).read() == original.replace('"rate": 4', '"rate": 20'), "the edit changed more than the value"
        wait_for("a new frame 120", lambda: frame_state(driver)["url"] != state["url"])
        after = shown_sha256(driver)
        assert after != before, "the frame did not change with the slider"
        log(f"slider dragged to {dragged} with a pause ({saves_after - saves} saves, one undo step), not rebuilt "
            "under the pointer; set to 20: frame changed")

        # Scrub to a frame not drawn yet and straight back: the late answer is dropped.
        for far in [200, 260, 330]:
            driver.execute_script("showFrame(5)")
            wait_for("frame 5", lambda: frame_state(driver)["frame"] == "5")
            driver.execute_script(
                "const s = document.getElementById('scrub');"
                "s.value = arguments[0]; s.dispatchEvent(new Event('input'));"
                "s.value = '5'; s.dispatchEvent(new Event('input'));", str(far))
            wait_for(f"the answer for frame {far}", lambda: driver.execute_script(
                "return performance.getEntriesByType('resource').some("
                "(e) => e.name.includes('/api/frames/' + arguments[0] + '.png') && e.responseEnd > 0)", far))
            time.sleep(0.3)  # the image decodes and its onload runs
            shown_frame = frame_state(driver)["frame"]
            label = driver.find_element(By.ID, "frame-label").text
            assert shown_frame == "5" and label.startswith("frame 5 "), \
                f"scrubbed back to 5 but the image shows frame {shown_frame} ({label})"
        log("scrubbed ahead and back three times: the late frames were dropped")

        # Undo and redo the slider's last edit: the file goes back to the dragged rate, then to 20.
        driver.find_element(By.ID, "undo").click()
        wait_for(f"undo to write rate {dragged}", lambda: f'"rate": {dragged}' in open(job).read())
        driver.find_element(By.ID, "redo").click()
        wait_for("redo to write rate 20", lambda: '"rate": 20' in open(job).read())
        assert open(job).read() == original.replace('"rate": 4', '"rate": 20'), "undo/redo changed more than the value"
        log(f"undo wrote rate {dragged} back, redo rate 20")

        # Another program edits the title while the page's rate edit is the last undo step: Undo takes back
        # only the rate, and the other program's edit stays (issue 48, finding 1).
        theirs = open(job).read().replace('"name": "live-hearts"', '"name": "edited-elsewhere"')
        write_atomically(job, theirs)
        wait_for("the page to see the other program's edit",
                 lambda: "edited-elsewhere" in (driver.execute_script("return state.saved") or ""))
        driver.find_element(By.ID, "undo").click()
        wait_for(f"undo to write rate {dragged}", lambda: f'"rate": {dragged}' in open(job).read())
        assert open(job).read() == theirs.replace('"rate": 20', f'"rate": {dragged}'), \
            "undo over another program's edit did not keep that edit"
        # The other program now sets the same rate: Redo would lose it, so the page asks; "Cancel" keeps it.
        theirs = open(job).read().replace(f'"rate": {dragged}', '"rate": 7')
        write_atomically(job, theirs)
        wait_for("the page to see rate 7", lambda: '"rate": 7' in (driver.execute_script("return state.saved") or ""))
        driver.find_element(By.ID, "redo").click()
        alert = WebDriverWait(driver, 10).until(expected_conditions.alert_is_present())
        assert "layers[0].params.rate" in alert.text, alert.text
        alert.dismiss()
        time.sleep(0.5)
        assert open(job).read() == theirs, "a declined redo changed the file"
        assert driver.find_element(By.ID, "redo").is_enabled(), "a declined redo was dropped from the history"
        log("undo over another program's title edit kept it; a redo over its rate asked and, declined, kept it")

        # The history survives a reload of the page (issue 48, finding 8), and a restart of the studio on
        # another port (kept by the studio, in the user's state folder): an edit made before is undone after.
        slider = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        set_value(driver, slider, 12)
        wait_for("rate 12", lambda: job_params(job)["rate"] == 12)
        wait_saved(driver, "the save's answer")
        history = driver.execute_script("return state.undo.length")
        driver.refresh()
        wait_for("the page again", lambda: driver.execute_script("return state.job !== null && state.historyRestored"))
        assert driver.execute_script("return state.undo.length") == history, "the undo history was lost on reload"
        kept = os.path.join(work, ".studio-state", "renderfarm", "studio-history")
        wait_for("the history kept by the studio", lambda: os.path.isdir(kept) and os.listdir(kept))
        [kept_file] = os.listdir(kept)
        assert oct(os.stat(os.path.join(kept, kept_file)).st_mode & 0o777) == "0o600"
        old_port = url.split(":")[2].split("/")[0]
        server.terminate()
        server.wait(10)
        server, url = start_studio(binary, job)
        assert url.split(":")[2].split("/")[0] != old_port
        driver.execute_script("localStorage.clear()")
        driver.get(url)
        wait_for("the restarted studio's page", lambda: driver.execute_script("return state.job !== null && state.historyRestored"))
        assert driver.execute_script("return state.undo.length") == history, "the undo history was lost on restart"
        driver.find_element(By.ID, "undo").click()
        wait_for("undo after the reload to put rate 7 back", lambda: open(job).read() == theirs)
        slider = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        set_value(driver, slider, 20)
        wait_for("rate 20 again", lambda: job_params(job)["rate"] == 20)
        log(f"the history ({history} undo steps) survived a reload and a restart on another port (kept by the studio, "
            f"mode 600); undo after it put rate 7 back")

        # A read of the job answered after a newer save's answer (the file watcher's reload racing
        # a save, as on a slow machine) is older than the page: it must not put the older text and
        # version back, or the next edit is made from them and refused with 409.
        driver.execute_script("""
            const real = window.fetch;
            window.fetch = (url, init) => {
              const answer = real(url, init);
              if (String(url).startsWith('/api/job') && !(init && init.method === 'PUT')) {
                window.fetch = real;
                return answer.then((r) => new Promise((done) => setTimeout(() => done(r), 1500)));
              }
              return answer;
            };
            loadJob();""")
        rate = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        set_value(driver, rate, 21)
        wait_for("rate 21 in the job file", lambda: '"rate": 21' in open(job).read())
        time.sleep(2)  # the held read lands
        assert driver.find_element(By.ID, "conflict").get_attribute("hidden") is not None, "a conflict is shown"
        assert '"rate": 21' in driver.find_element(By.ID, "source").get_attribute("value"), \
            "a late answer to an older read put the older text back"
        set_value(driver, rate, 20)
        wait_for("rate 20 in the job file", lambda: '"rate": 20' in open(job).read())
        log("a read answered after a newer save did not put the older version back")

        # Sliders move in whole steps: lifetime (0.05…600, step 1) set to 6 writes 6, not 6.05.
        lifetime = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="lifetime"]')
        set_value(driver, lifetime, 3)
        wait_for("lifetime 3 in the job file", lambda: json.load(open(job))["layers"][0]["params"]["lifetime"] == 3)
        set_value(driver, lifetime, 6)
        wait_for("lifetime 6 in the job file", lambda: json.load(open(job))["layers"][0]["params"]["lifetime"] == 6)
        log("the lifetime slider writes whole steps (3, then 6)")

        # The timeline: a ruler, the frame set and a track per layer; a click goes to that frame;
        # I and O set the in/out range that Home and End go to and the render command names.
        layers = len(json.load(open(job))["layers"])
        tracks = driver.find_elements(By.CSS_SELECTOR, "#track-list .track[data-layer]")
        assert len(tracks) == layers, f"{len(tracks)} tracks for {layers} layers"
        assert driver.find_elements(By.CSS_SELECTOR, '#track-list .track[data-track="frames"] .bar')
        assert len(driver.find_elements(By.CSS_SELECTOR, "#ruler .tick")) >= 4
        box = driver.find_element(By.ID, "tracks")
        ActionChains(driver).move_to_element_with_offset(box, 0, 0).perform()
        driver.execute_script("""
            const box = document.getElementById('tracks').getBoundingClientRect();
            document.getElementById('tracks').dispatchEvent(new MouseEvent('click',
              {clientX: box.left + box.width * 0.5, clientY: box.top + 30, bubbles: true}));""")
        wait_for("the frame in the middle", lambda: abs(int(frame_state(driver)["frame"] or -1) - 240) <= 2)
        body = driver.find_element(By.TAG_NAME, "body")
        driver.execute_script("document.activeElement.blur(); showFrame(30)")
        body.send_keys("i")
        driver.execute_script("showFrame(60)")
        body.send_keys("o")
        assert driver.find_element(By.ID, "inout-command").text.endswith("--frames 30-60"), \
            driver.find_element(By.ID, "inout-command").text
        body.send_keys(Keys.HOME)
        wait_for("Home to go to the in point", lambda: frame_state(driver)["frame"] == "30")
        body.send_keys(Keys.END)
        wait_for("End to go to the out point", lambda: frame_state(driver)["frame"] == "60")
        body.send_keys(Keys.ARROW_LEFT)
        wait_for("← to step back", lambda: frame_state(driver)["frame"] == "59")
        driver.save_screenshot(os.path.join(outdir, "studio-timeline.png"))
        driver.find_element(By.ID, "clear-inout").click()
        log(f"timeline: {layers} layer tracks, click to frame 240, I/O 30-60, Home/End/← move the frame")

        # A slider just touched keeps the focus, but not the keys: → steps a frame and Space plays and
        # pauses, and the parameter stays as it was (issue 48, finding 9).
        slider = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        ActionChains(driver).click(slider).perform()
        wait_saved(driver, "the click's save")
        written = open(job).read()
        assert driver.execute_script("return document.activeElement") == slider
        driver.execute_script("showFrame(100)")
        slider.send_keys(Keys.ARROW_RIGHT)
        wait_for("→ on a slider to step a frame", lambda: frame_state(driver)["frame"] == "101")
        slider.send_keys(Keys.SPACE)
        wait_for("Space on a slider to play", lambda: driver.execute_script("return state.playing"))
        slider.send_keys(Keys.SPACE)
        wait_for("Space again to pause", lambda: not driver.execute_script("return state.playing"))
        time.sleep(0.4)
        assert open(job).read() == written, "a key on a touched slider changed its parameter"
        set_value(driver, slider, 20)
        wait_for("rate 20 again", lambda: job_params(job)["rate"] == 20)
        log("a touched slider left → and Space to the timeline: stepped to 101, played and paused, file unchanged")

        # Type an invalid value: the located validation error appears; the file keeps rate 20.
        field = driver.find_element(
            By.CSS_SELECTOR, '.control[data-path="layers[0].params.rate"] input[type=number]')
        field.clear()
        field.send_keys("500", Keys.TAB)
        errors = wait_for("the located validation error",
                          lambda: (lambda t: t if "layers[0].params.rate" in t and "line" in t else None)(
                              driver.find_element(By.ID, "errors").text))
        assert '"rate": 20' in open(job).read(), "an invalid edit reached the job file"
        assert "invalid" in driver.find_element(
            By.CSS_SELECTOR, '.control[data-path="layers[0].params.rate"]').get_attribute("class")
        log("invalid value shown as: " + errors.splitlines()[0])
        # The text is highlighted under the box: the same text, keys and numbers coloured, scrolled with it.
        shown = driver.execute_script("""
            const s = document.getElementById('source'), h = document.getElementById('source-highlight');
            s.style.height = '120px'; s.scrollTop = 90; s.dispatchEvent(new Event('scroll'));
            const seen = [h.textContent === s.value, h.querySelectorAll('.key').length, h.querySelectorAll('.number').length,
                          h.scrollTop === s.scrollTop && h.scrollLeft === s.scrollLeft, s.scrollTop,
                          [...h.querySelectorAll('.other')].map((n) => n.textContent)];
            s.style.height = ''; s.scrollTop = 0; s.dispatchEvent(new Event('scroll'));
            return seen;""")
        assert shown[0] and shown[1] > 10 and shown[2] > 5 and shown[3] and shown[4] > 0 and shown[5] == [], shown
        # Its place jumps to the value in the text box: selected, and in view.
        driver.find_element(By.CSS_SELECTOR, '#errors li[data-path="layers[0].params.rate"] code.jump').click()
        chosen = driver.execute_script(
            "const s = document.getElementById('source'); return [document.activeElement === s,"
            " s.value.slice(s.selectionStart, s.selectionEnd), s.scrollTop]")
        assert chosen[:2] == [True, "500"], chosen
        driver.save_screenshot(os.path.join(outdir, "studio-author-invalid.png"))
        # The refused edit stays in the text box (unsaved work is never replaced) until Revert drops it.
        driver.find_element(By.ID, "revert").click()
        wait_for("the file's text back", lambda: '"rate": 20' in driver.find_element(By.ID, "source").get_attribute("value"))
        # Hot reload: another editor saves the job; the page shows the new text and validation.
        spec = json.load(open(job))
        spec["layers"][0]["params"]["rate"] = 30
        saved = time.monotonic()
        write_atomically(job, json.dumps(spec, indent=2))
        wait_for("the page to reload the edited file", lambda: '"rate": 30' in driver.execute_script(
            "return document.getElementById('source').value") and "valid:" in driver.find_element(By.ID, "validity").text, 5)
        reload_seconds = time.monotonic() - saved
        assert reload_seconds < 2, f"hot reload took {reload_seconds:.2f} s"
        log(f"external edit shown after {reload_seconds:.2f} s")

        # The cursor merely in the text box keeps nothing back: another program's save is shown at once, and
        # the next control change is made from it (no 409; issue 48, finding 3).
        source = driver.find_element(By.ID, "source")
        source.click()
        theirs = json.load(open(job))
        theirs["layers"][0]["params"]["size"] = 50
        write_atomically(job, json.dumps(theirs, indent=2))
        wait_for("the other program's text in the focused text box", lambda: '"size": 50' in source.get_attribute("value"))
        rate = lambda: driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        set_value(driver, rate(), 8)
        wait_for("rate 8 saved over size 50", lambda: job_params(job)["rate"] == 8 and job_params(job)["size"] == 50)
        assert not driver.find_element(By.ID, "conflict").is_displayed(), "a control change after an external save got 409"

        # An unsaved edit (autosave off) made before another program's save: Ctrl+S gets 409, and the
        # conflict is shown in view with the two versions' difference; "Make my edit in the file's
        # version" saves both changes.
        driver.find_element(By.ID, "autosave").click()
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        set_value(driver, rate(), 9)
        wait_for("the unsaved mark", lambda: driver.find_element(By.ID, "dirty").is_displayed())
        theirs = json.load(open(job))
        theirs["layers"][0]["params"]["size"] = 44
        version = driver.execute_script("return state.job.version")
        write_atomically(job, json.dumps(theirs, indent=2))
        wait_for("the page to hear of the other save", lambda: driver.execute_script("return state.job.version") > version)
        assert '"rate": 9' in source.get_attribute("value"), "the unsaved edit was replaced"
        driver.execute_script("document.activeElement.blur()")
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.CONTROL, "s")
        wait_for("the conflict to be shown", lambda: driver.find_element(By.ID, "conflict").is_displayed())
        box = driver.execute_script(
            "const r = document.getElementById('conflict').getBoundingClientRect();"
            "return [r.top, r.bottom, window.innerHeight];")
        assert 0 <= box[0] and box[1] <= box[2], f"the conflict box is out of view: {box}"
        diff = driver.find_element(By.ID, "conflict-text").text
        assert any(line.startswith("-") and '"size": 44' in line for line in diff.splitlines()), diff
        assert any(line.startswith("+") and '"rate": 9' in line for line in diff.splitlines()), diff
        assert job_params(job)["size"] == 44, "the other program's save was overwritten"
        driver.save_screenshot(os.path.join(outdir, "studio-conflict.png"))
        driver.find_element(By.ID, "conflict-merge").click()
        wait_for("both changes in the file", lambda: job_params(job)["rate"] == 9 and job_params(job)["size"] == 44)
        wait_for("the merged text in the editor", lambda: '"size": 44' in source.get_attribute("value"))
        driver.find_element(By.ID, "autosave").click()
        log("focused text box showed another program's save; an unsaved edit's save got 409, shown in view with the "
            "difference, and merged into the file's version")

        # Play at the job's fps, then pause; the debug overlay toggle gives another image.
        driver.find_element(By.ID, "play").click()
        played = set()
        wait_for("playback to show several frames",
                 lambda: played.add(frame_state(driver)["frame"]) or len(played) >= 4, 20)
        driver.find_element(By.ID, "play").click()
        paused = frame_state(driver)["frame"]
        driver.find_element(By.ID, "debug").click()
        wait_for("the debug overlay frame", lambda: "debug=1" in (frame_state(driver)["url"] or ""))
        log(f"played through {len(played)} frames, paused at {paused}, --debug overlay shown")
        driver.save_screenshot(os.path.join(outdir, "studio-author.png"))

        # At 1024 px wide the page still fits: nothing scrolls sideways, the frame stays in view.
        driver.set_window_size(1024, 768)
        wait_for("the layout at 1024 px", lambda: driver.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth"
            " && document.getElementById('frame').getBoundingClientRect().right <= window.innerWidth"), 10)
        driver.save_screenshot(os.path.join(outdir, "studio-author-1024.png"))
        driver.set_window_size(1500, 1000)
        log("the layout fits at 1024 px")

        check_view(driver)
        check_point_drag(driver, job, outdir)
        check_zoom(driver, outdir)
        check_explicit_save(driver, job)
        check_reset_and_alpha(driver, job)
        check_add_layer(driver, job)
        check_list_editor(driver, job, outdir)
        check_docs(driver, binary, work, docs, outdir)
        check_manual(driver, binary, work, outdir)

        check_variants(driver, binary, work, outdir)
        check_composed(driver, binary, work, outdir)
        check_sound(driver, binary, work)
        check_styles(driver, binary, work)
        check_token_page(driver, binary, work)
        driver.get(url)
        wait_for("the first studio again", lambda: frame_state(driver)["frame"] is not None)

        # The render button renders the in/out range and opens the farm view on its row.
        driver.execute_script("state.in = 0; state.out = 29; showInOut();")
        driver.find_element(By.ID, "render").click()
        own = 'tr[data-folder$="/out/live-hearts"]'
        wait_for("the farm view", lambda: driver.find_element(By.ID, "farm").is_displayed())
        wait_for("the rendered range complete in the farm view", lambda: driver.execute_script(
            f"const r = document.querySelector('{own}'); return r && r.dataset.state === 'complete' && r.dataset.done === '30'"
            " && r.classList.contains('highlight');"), 60)
        assert sorted(f for f in os.listdir(os.path.join(work, "out", "live-hearts")) if f.endswith(".png"))[-1] \
            == "frame_00029.png"
        said = wait_for("the render finished", lambda: (lambda t: t if "complete" in t else None)(
            driver.find_element(By.ID, "render-state").get_attribute("textContent")))
        # The progress the render's --progress json lines gave, relayed over the event stream.
        assert "(30 of 30 frames)" in said, said
        driver.save_screenshot(os.path.join(outdir, "studio-render.png"))
        log(f"render button: frames 0-29 rendered, the farm view opened on its row; the page said {said!r}")
        driver.find_element(By.ID, "tab-author").click()

        # A long render stopped from the farm view: Stop is at the top in both views (issue 48, finding 10).
        driver.execute_script("state.in = 0; state.out = 479; showInOut();")
        driver.find_element(By.ID, "render").click()
        wait_for("the farm view", lambda: driver.find_element(By.ID, "farm").is_displayed())
        wait_for("the render's row", lambda: driver.find_elements(By.CSS_SELECTOR, own + ".highlight"))
        stop = driver.find_element(By.ID, "render-stop")
        wait_for("Stop in the farm view", stop.is_displayed)
        stop.click()
        said = wait_for("the render stopped", lambda: (lambda t: t if "finished: exit 130" in t else None)(
            driver.find_element(By.ID, "render-state").get_attribute("textContent")))
        assert not stop.is_displayed(), "Stop still shown after the render ended"
        log(f"a 480-frame render stopped from the farm view's Stop: {said!r}")
        driver.find_element(By.ID, "tab-author").click()
        check_render_queue(driver, work, outdir)
        check_build_from_empty(driver, binary, work, outdir)
        driver.get(url)
        wait_for("the first studio again", lambda: frame_state(driver)["frame"] is not None)

        # The farm view while a render runs: its progress advances.
        farm_job = os.path.join(work, "farm-demo.json")
        spec = json.load(open(os.path.join(ROOT, "jobs", "live-hearts.json")))
        spec.update({"name": "farm-demo", "duration": 120})
        spec["output"]["dir"] = "out/farm-demo"
        json.dump(spec, open(farm_job, "w"), indent=2)
        render = subprocess.Popen([binary, "render", farm_job, "-j", "1", "--scale", "0.5"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        driver.find_element(By.ID, "tab-farm").click()
        row = 'tr[data-folder$="/out/farm-demo"]'

        def progress():
            rows = driver.find_elements(By.CSS_SELECTOR, row)
            if not rows:
                return None
            return rows[0].get_attribute("data-state"), int(rows[0].get_attribute("data-done"))

        first = wait_for("the render in the farm view", lambda: (lambda p: p if p and p[0] == "rendering" and p[1] > 0 else None)(progress()), 60)
        later = wait_for("its progress to advance", lambda: (lambda p: p if p and p[1] > first[1] else None)(progress()), 60)
        wait_for("the last frame's thumbnail", lambda: driver.execute_script(
            f"const i = document.querySelector('{row} img'); return i && i.complete && i.naturalWidth > 0;"), 20)
        assert driver.find_element(By.CSS_SELECTOR, row).is_displayed(), "the farm view is not visible"
        assert not driver.find_element(By.ID, "author").is_displayed(), "the author view is still visible"
        text = driver.find_element(By.CSS_SELECTOR, row).text
        assert "of 7200 done" in text, text
        log(f"farm view: {first[1]} then {later[1]} frames done while {later[0]}")
        driver.save_screenshot(os.path.join(outdir, "studio-farm.png"))
        render.terminate()
        render.wait(timeout=30)
        check_many_tabs(driver, url, job)
        log(f"screenshots in {outdir}")
    finally:
        driver.quit()
        if render is not None and render.poll() is None:
            render.send_signal(signal.SIGINT)
            try:
                render.wait(timeout=20)
            except subprocess.TimeoutExpired:
                render.kill()
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            raise AssertionError("renderfarm studio did not stop within 15 s of SIGTERM")
        shutil.rmtree(work, ignore_errors=True)
    assert code == 0, f"renderfarm studio exited {code} on SIGTERM: {server.stderr.read()}"
    log("studio stopped cleanly on SIGTERM; all browser checks passed")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`make studio-test`: RenderFarm Studio in real headless Chromium, driven over WebDriver.

Loads the page, scrubs to frame 120 and checks the image shown is the PNG `render --scale` writes
for it, moves a slider and sees the frame change, types an invalid value and sees the located
validation error, then opens the farm view while a render runs and sees its progress advance.
Screenshots of both views go to OUTDIR. Every wait polls with a deadline; every process started
here has one too. Usage: browser_test.py RENDERFARM OUTDIR
"""
import hashlib
import json
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
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STARTED = time.monotonic()
TOTAL_SECONDS = 170


def log(message):
    print(f"[{time.monotonic() - STARTED:6.1f}s] {message}", flush=True)


def wait_for(what, condition, seconds=30):
    """Polls `condition` every 50 ms until it returns something truthy; fails after `seconds`."""
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
    raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))


def start_studio(binary, job):
    server = subprocess.Popen(
        [binary, "studio", job, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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


def frame_state(driver):
    return driver.execute_script(
        "const f = document.getElementById('frame');"
        "return {frame: f.dataset.frame, url: f.dataset.url, scale: f.dataset.scale, width: f.naturalWidth};")


def main():
    binary, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
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

        # Move the rate slider: the job file changes and so does the frame.
        before = shown
        slider = driver.find_element(By.CSS_SELECTOR, 'input[type=range][data-param="rate"]')
        driver.execute_script(
            "arguments[0].value = '20'; arguments[0].dispatchEvent(new Event('change'));", slider)
        original = open(os.path.join(ROOT, "jobs", "live-hearts.json")).read()
        wait_for("the job file to get rate 20", lambda: '"rate": 20' in open(job).read())
        assert open(job).read() == original.replace('"rate": 4', '"rate": 20'), "the edit changed more than the value"
        wait_for("a new frame 120", lambda: frame_state(driver)["url"] != state["url"])
        after = shown_sha256(driver)
        assert after != before, "the frame did not change with the slider"
        log("slider moved: job file written, frame changed")

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
        driver.save_screenshot(os.path.join(outdir, "studio-author-invalid.png"))
        # Hot reload: another editor saves the job; the page shows the new text and validation.
        spec = json.load(open(job))
        spec["layers"][0]["params"]["rate"] = 30
        saved = time.monotonic()
        with open(job + ".tmp", "w") as edited:
            json.dump(spec, edited, indent=2)
        os.replace(job + ".tmp", job)
        wait_for("the page to reload the edited file", lambda: '"rate": 30' in driver.execute_script(
            "return document.getElementById('source').value") and "valid:" in driver.find_element(By.ID, "validity").text, 5)
        reload_seconds = time.monotonic() - saved
        assert reload_seconds < 2, f"hot reload took {reload_seconds:.2f} s"
        log(f"external edit shown after {reload_seconds:.2f} s")

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

#!/usr/bin/env python3
"""make bench-peers: RenderFarm against what a Python team would write instead, on the bench's 720p job.

The same hearts at the same frames of a job of one floating-heart layer over a transparent background (positions, sizes, colours and opacities from `renderfarm trace`, the
numbers the plugin draws with) are drawn by:

- a pycairo pool: the heart's cairo calls (the C floor's, Sources/RenderFarmBenchFloor/floor_plan.c), one
  process per core, each frame written with `ImageSurface.write_to_png`;
- a skia-python pool: the same path (quadratic curves and two arcs, filled, stroked 1 pt with round caps and
  joins, in a layer at the heart's opacity), each frame encoded by Skia's PNG encoder;
- a Manim Community Edition scene (MANIM_SCENE, Cairo renderer, the traced hearts in a JSON file beside it):
  each heart a VMobject of the same path in cubic Béziers (the quadratics raised, the arcs as Manim's `Arc`
  draws them) in scene units (8 high, y up), filled, stroked 1 pt with round caps and joins, fill and stroke
  each at the heart's opacity (Manim has no group opacity). A time-based updater gives the hearts of each
  frame, so Manim draws every frame (a wait without one is drawn once and repeated); the wait is half a frame
  short of COUNT frames, as Manim's frame times, np.arange(0, wait, 1 / fps), give COUNT + 1 frames for a
  wait of COUNT / fps at some counts (23, 31, 46, ...). It runs as users run it, `manim render` in a process
  of its own (start-up timed), drawing frame after frame (Manim has no parallel rendering of a scene, hence
  the `-j 1` row): `--format png-sequence --transparent` writes PIL PNGs (`--format png` writes only the last
  frame), with cairo's premultiplied colours as straight ones (half-transparent hearts come out darker);
  `--format mp4` is its movie, H.264 by PyAV (crf 23, encoded on a thread beside the drawing) over Manim's
  black background. `--silent`: else Manim asks PyPI for its newest version after each render;
- `renderfarm render -j 1` and `-j <cores>` as users run it (start-up, journal and manifest included), and
  `renderfarm render --video` into mp4 at `-j <cores>` (crf 18): its mp4 preset draws the transparent frames
  over black, as Manim's movie is, so both draw the same job.

Each program writes every frame to a fresh folder (the frames are counted, a video's by ffprobe); the
programs run interleaved, in a rotated order each round, and a ratio, against the RenderFarm rows named on
its line, is the median of the per-round ratios. Python's start-up and the pool's are timed, as RenderFarm's
is. The pixels differ (Skia rasterises otherwise; the encoders differ), the work does not.

usage: bench-peers.py RENDERFARM JOB FIRST COUNT [ROUNDS]
"""
import importlib.metadata
import inspect
import json
import math
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import cairo
import skia

SCENE = {}


def load_scene(renderfarm, job, first, count):
    """The job's canvas and, per frame, its visible hearts as `renderfarm trace` reports them."""
    with open(job) as f:
        spec = json.load(f)
    canvas = spec["canvas"]
    effects = [l.get("effect", "a group") for l in spec["layers"]]
    if effects != ["floating-heart"] or canvas.get("background", "#00000000")[7:9] != "00":
        sys.exit(f"bench-peers: {job}: only a job of one floating-heart layer over a transparent background is "
                 f"drawn here (it has {', '.join(effects)} over {canvas.get('background', '#00000000')})")
    layer = spec["layers"][0]
    stroke = layer.get("params", {}).get("stroke", "#FFFFFF")
    trace = subprocess.run(
        [renderfarm, "trace", job, "--frames", f"{first}-{first + count - 1}"],
        check=True, capture_output=True, text=True).stdout
    frames = []
    for line in trace.splitlines():
        frame = json.loads(line)
        hearts = []
        for layer in frame["layers"]:
            if layer.get("effect") != "floating-heart":
                continue
            for item in layer["items"]:
                if item.get("visible"):
                    plan = item["plan"]
                    hearts.append((item["x"], item["y"], item["scale"], item["alpha"], plan["size"],
                                   rgb(plan["color"])))
        frames.append((frame["frame"], hearts))
    scale = canvas.get("scale", 1)
    return {
        "width": round(canvas["width"] * scale), "height": round(canvas["height"] * scale), "scale": scale,
        "fps": spec.get("fps", 60), "stroke": rgb(stroke), "frames": frames,
    }


def rgb(hex_colour):
    value = hex_colour.lstrip("#")
    return tuple(int(value[i:i + 2], 16) / 255 for i in (0, 2, 4))


def heart_geometry(size):
    padding = 2.0
    radius = math.floor((size - 2 * padding) / 4)
    return radius, (math.floor(size / 2), size - padding), (padding, math.floor(size / 3))


# ---- pycairo ----

def cairo_quad(cr, x, y, cx, cy):
    x0, y0 = cr.get_current_point()
    cr.curve_to(x0 + 2 / 3 * (cx - x0), y0 + 2 / 3 * (cy - y0), x + 2 / 3 * (cx - x), y + 2 / 3 * (cy - y), x, y)


def cairo_frame(task):
    index, hearts, out = task
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, SCENE["width"], SCENE["height"])
    cr = cairo.Context(surface)
    cr.scale(SCENE["scale"], SCENE["scale"])
    stroke = SCENE["stroke"]
    for x, y, scale, alpha, size, colour in hearts:
        radius, (tip_x, tip_y), (left_x, left_y) = heart_geometry(size)
        cr.save()
        cr.translate(x, y)
        cr.scale(scale, scale)
        cr.translate(-size / 2, -size)
        cr.rectangle(-1, -1, size + 2, size + 2)
        cr.clip()
        cr.push_group()
        cr.move_to(tip_x, tip_y)
        cairo_quad(cr, left_x, left_y, left_x, left_y + radius)
        cr.arc(left_x + radius, left_y, radius, math.pi, 2 * math.pi)
        cr.arc(left_x + 3 * radius, left_y, radius, math.pi, 2 * math.pi)
        cairo_quad(cr, tip_x, tip_y, left_x + 4 * radius, left_y + radius)
        cr.set_source_rgba(*colour, 1)
        cr.fill_preserve()
        cr.set_source_rgba(*stroke, 1)
        cr.set_line_width(1)
        cr.set_line_cap(cairo.LINE_CAP_ROUND)
        cr.set_line_join(cairo.LINE_JOIN_ROUND)
        cr.stroke()
        cr.pop_group_to_source()
        cr.paint_with_alpha(alpha)
        cr.restore()
    surface.write_to_png(os.path.join(out, f"frame_{index:05d}.png"))


# ---- skia-python ----

def skia_frame(task):
    index, hearts, out = task
    surface = skia.Surface(SCENE["width"], SCENE["height"])
    canvas = surface.getCanvas()
    canvas.clear(skia.ColorTRANSPARENT)
    canvas.scale(SCENE["scale"], SCENE["scale"])
    stroke = SCENE["stroke"]
    for x, y, scale, alpha, size, colour in hearts:
        radius, (tip_x, tip_y), (left_x, left_y) = heart_geometry(size)
        canvas.save()
        canvas.translate(x, y)
        canvas.scale(scale, scale)
        canvas.translate(-size / 2, -size)
        canvas.clipRect(skia.Rect(-1, -1, size + 1, size + 1))
        canvas.saveLayerAlpha(skia.Rect(-1, -1, size + 1, size + 1), round(alpha * 255))
        path = skia.Path()
        path.moveTo(tip_x, tip_y)
        path.quadTo(left_x, left_y + radius, left_x, left_y)
        path.arcTo(skia.Rect(left_x, left_y - radius, left_x + 2 * radius, left_y + radius), 180, 180, False)
        path.arcTo(skia.Rect(left_x + 2 * radius, left_y - radius, left_x + 4 * radius, left_y + radius), 180, 180,
                   False)
        path.quadTo(left_x + 4 * radius, left_y + radius, tip_x, tip_y)
        fill = skia.Paint(AntiAlias=True, Color=skia.Color4f(*colour, 1).toColor())
        canvas.drawPath(path, fill)
        line = skia.Paint(AntiAlias=True, Style=skia.Paint.kStroke_Style, StrokeWidth=1,
                          StrokeCap=skia.Paint.kRound_Cap, StrokeJoin=skia.Paint.kRound_Join,
                          Color=skia.Color4f(*stroke, 1).toColor())
        canvas.drawPath(path, line)
        canvas.restore()
        canvas.restore()
    data = surface.makeImageSnapshot().encodeToData(skia.kPNG, 100)
    with open(os.path.join(out, f"frame_{index:05d}.png"), "wb") as f:
        f.write(bytes(data))


def pool_run(draw, out, cores):
    """Draws every frame on `cores` processes; seconds, pool start-up included."""
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(cores) as pool:
        for _ in pool.imap_unordered(draw, [(i, h, out) for i, h in SCENE["frames"]], chunksize=4):
            pass
    return time.perf_counter() - start


# ---- Manim ----

# The scene file, with heart_geometry put in; it reads hearts.json beside it (write_manim_scene).
MANIM_SCENE = '''\
import json
import math
import os
from functools import cache

import numpy as np
from manim import PI, Arc, CapStyleType, LineJointType, ManimColor, Scene, VGroup, VMobject, config

with open(os.path.join(os.path.dirname(__file__), "hearts.json")) as f:
    HEARTS = json.load(f)
UNITS = HEARTS["scale"] * config.frame_height / config.pixel_height  # scene units per point


HEART_GEOMETRY


@cache
def outline(size):
    """The heart's path in its points (y down, origin at its bottom centre), in cubic Bezier points."""
    radius, (tip_x, tip_y), (left_x, left_y) = heart_geometry(size)
    tip, left, right = np.array([[tip_x, tip_y, 0], [left_x, left_y, 0], [left_x + 4 * radius, left_y, 0]])
    below = np.array([0, radius, 0])
    path = VMobject().start_new_path(tip)
    path.add_quadratic_bezier_curve_to(left + below, left)
    for centre in (left + [radius, 0, 0], right - [radius, 0, 0]):
        path.append_points(Arc(radius, PI, PI, arc_center=centre).points)
    path.add_quadratic_bezier_curve_to(right + below, tip)
    return path.points - [size / 2, size, 0]


def heart(x, y, scale, alpha, size, colour):
    """The heart in scene units (y up, origin at the frame's centre), placed as cairo_frame places it."""
    factor = UNITS * scale
    centre = [x * UNITS - config.frame_width / 2, config.frame_height / 2 - y * UNITS, 0]
    mobject = VMobject(fill_color=ManimColor.from_rgb(colour), fill_opacity=alpha,
                       stroke_color=ManimColor.from_rgb(HEARTS["stroke"]), stroke_opacity=alpha,
                       stroke_width=100 * factor,  # Manim's camera strokes width w as w / 100 scene units
                       joint_type=LineJointType.ROUND, cap_style=CapStyleType.ROUND)
    return mobject.set_points(outline(size) * [factor, -factor, 1] + centre)


def frame(index):
    return VGroup(*(heart(*item) for item in HEARTS["frames"][index]))


class Hearts(Scene):
    def construct(self):
        elapsed = 0.0

        def redraw(hearts, dt):
            nonlocal elapsed
            elapsed += dt
            hearts.become(frame(round(elapsed * config.frame_rate)))

        self.add(frame(0).add_updater(redraw))
        # Frames at 0, 1/fps, ... below the wait's length: half a frame short, so float error adds none.
        self.wait((len(HEARTS["frames"]) - 0.5) / config.frame_rate)
'''


def write_manim_scene(folder):
    """The scene file, in `folder` beside the traced hearts it reads."""
    with open(os.path.join(folder, "hearts.json"), "w") as f:
        json.dump({"scale": SCENE["scale"], "stroke": SCENE["stroke"],
                   "frames": [hearts for _, hearts in SCENE["frames"]]}, f)
    path = os.path.join(folder, "hearts.py")
    with open(path, "w") as f:
        f.write(MANIM_SCENE.replace("HEART_GEOMETRY\n", inspect.getsource(heart_geometry)))
    return path


def manim_run(scene, out, movie):
    """`manim render` of the scene into `out`: a transparent PNG sequence, or its mp4 movie."""
    output = ["--format", "mp4"] if movie else ["--format", "png-sequence", "--transparent"]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "manim", "render", scene, "Hearts", *output, "--disable_caching",
                    "--resolution", f"{SCENE['width']},{SCENE['height']}", "--frame_rate", str(SCENE["fps"]),
                    "--media_dir", out, "--progress_bar", "none", "--verbosity", "WARNING", "--silent"],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


# ---- RenderFarm ----

def renderfarm_run(renderfarm, job, first, count, out, cores, movie=False):
    output = ["--video", os.path.join(out, "renderfarm.mp4")] if movie else ["--out", out]
    start = time.perf_counter()
    subprocess.run([renderfarm, "render", job, *output, "--frames", f"{first}-{first + count - 1}", "-j",
                    str(cores), "--progress", "none"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def written(out):
    """The frames a program wrote under `out`, and their bytes: its PNGs, or the frames of its one video
    (Manim's partial movie files left out)."""
    files = []
    for folder, subfolders, names in os.walk(out):
        subfolders[:] = [name for name in subfolders if name != "partial_movie_files"]
        files += [os.path.join(folder, name) for name in names if name.endswith((".png", ".mp4"))]
    size = sum(os.path.getsize(path) for path in files)
    if len(files) == 1 and files[0].endswith(".mp4"):
        packets = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets",
                                  "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", files[0]],
                                 check=True, capture_output=True, text=True).stdout
        return int(packets), size
    return len([path for path in files if path.endswith(".png")]), size


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__.strip().splitlines()[-1])
    renderfarm, job, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rounds = int(sys.argv[5]) if len(sys.argv) == 6 else 3
    cores = os.cpu_count() or 1
    SCENE.update(load_scene(renderfarm, job, first, count))
    scratch = tempfile.mkdtemp(prefix="renderfarm-peers-")
    try:
        scene = write_manim_scene(scratch)
        parallel, single, movie = f"renderfarm -j {cores}", "renderfarm -j 1", f"renderfarm mp4 -j {cores}"
        # name: (run into a folder, the RenderFarm rows it is compared with)
        programs = {
            parallel: (lambda out: renderfarm_run(renderfarm, job, first, count, out, cores), []),
            single: (lambda out: renderfarm_run(renderfarm, job, first, count, out, 1), []),
            "pycairo pool": (lambda out: pool_run(cairo_frame, out, cores), [parallel]),
            "skia-python pool": (lambda out: pool_run(skia_frame, out, cores), [parallel]),
            "manim": (lambda out: manim_run(scene, out, False), [single, parallel]),
            movie: (lambda out: renderfarm_run(renderfarm, job, first, count, out, cores, True), []),
            "manim mp4": (lambda out: manim_run(scene, out, True), [movie]),
        }
        names = list(programs)
        seconds = {name: [] for name in names}
        sizes = {}
        for round_ in range(rounds):
            for name in names[round_ % len(names):] + names[:round_ % len(names)]:
                out = os.path.join(scratch, name.replace(" ", "-"))
                shutil.rmtree(out, ignore_errors=True)
                os.makedirs(out)
                seconds[name].append(programs[name][0](out))
                frames, size = written(out)
                if frames != count:
                    sys.exit(f"bench-peers: {name} wrote {frames} frames, not {count}")
                sizes[name] = size / count / 1024
            print(f"bench-peers: round {round_ + 1} of {rounds}", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"peers: {os.path.basename(job)}, frames {first}-{first + count - 1}, {cores} cores, {rounds} rounds, "
          f"python {sys.version.split()[0]}, pycairo {cairo.version}, skia-python {skia.__version__}, "
          f"manim {importlib.metadata.version('manim')}")
    for name in names:
        median = statistics.median(seconds[name])
        line = f"  {name:20} {count / median:7.1f} fps  {sizes[name]:6.1f} KB/frame"
        ratios = [f"{baseline} {statistics.median(a / b for a, b in zip(seconds[name], seconds[baseline])):.2f}x"
                  for baseline in programs[name][1]]
        if ratios:
            line += f"  {', '.join(ratios)} as fast"
        print(line)


if __name__ == "__main__":
    main()

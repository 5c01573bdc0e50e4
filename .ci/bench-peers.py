#!/usr/bin/env python3
"""make bench-peers: RenderFarm against what a Python team would write instead, on the bench's 720p job.

The same hearts at the same frames of a job of one floating-heart layer over a transparent background (positions, sizes, colours and opacities from `renderfarm trace`, the
numbers the plugin draws with) are drawn by:

- a pycairo pool: the heart's cairo calls (the C floor's, Sources/RenderFarmBenchFloor/floor_plan.c), one
  process per core, each frame written with `ImageSurface.write_to_png`;
- a skia-python pool: the same path (quadratic curves and two arcs, filled, stroked 1 pt with round caps and
  joins, in a layer at the heart's opacity), each frame encoded by Skia's PNG encoder;
- `renderfarm render -j <cores>` as users run it (start-up, journal and manifest included).

Each program writes every frame to a fresh folder; the programs run interleaved, in a rotated order each
round, and a ratio is the median of the per-round ratios. Python's start-up and the pool's are timed, as
RenderFarm's is. The pixels differ (Skia rasterises otherwise; the PNG encoders differ), the work does not.

usage: bench-peers.py RENDERFARM JOB FIRST COUNT [ROUNDS]
"""
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
        "stroke": rgb(stroke), "frames": frames,
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


def renderfarm_run(renderfarm, job, first, count, out, cores):
    start = time.perf_counter()
    subprocess.run([renderfarm, "render", job, "--out", out, "--frames", f"{first}-{first + count - 1}", "-j",
                    str(cores), "--progress", "none"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__.strip().splitlines()[-1])
    renderfarm, job, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rounds = int(sys.argv[5]) if len(sys.argv) == 6 else 3
    cores = os.cpu_count() or 1
    SCENE.update(load_scene(renderfarm, job, first, count))
    programs = {
        "renderfarm": lambda out: renderfarm_run(renderfarm, job, first, count, out, cores),
        "pycairo pool": lambda out: pool_run(cairo_frame, out, cores),
        "skia-python pool": lambda out: pool_run(skia_frame, out, cores),
    }
    names = list(programs)
    seconds = {name: [] for name in names}
    sizes = {}
    scratch = tempfile.mkdtemp(prefix="renderfarm-peers-")
    try:
        for round_ in range(rounds):
            for name in names[round_ % len(names):] + names[:round_ % len(names)]:
                out = os.path.join(scratch, name.replace(" ", "-"))
                shutil.rmtree(out, ignore_errors=True)
                os.makedirs(out)
                seconds[name].append(programs[name](out))
                pngs = [f for f in os.listdir(out) if f.endswith(".png")]
                if len(pngs) != count:
                    sys.exit(f"bench-peers: {name} wrote {len(pngs)} frames, not {count}")
                sizes[name] = sum(os.path.getsize(os.path.join(out, f)) for f in pngs) / count / 1024
            print(f"bench-peers: round {round_ + 1} of {rounds}", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"peers: {os.path.basename(job)}, frames {first}-{first + count - 1}, {cores} cores, {rounds} rounds, "
          f"python {sys.version.split()[0]}, pycairo {cairo.version}, skia-python {skia.__version__}")
    for name in names:
        median = statistics.median(seconds[name])
        line = f"  {name:18} {count / median:7.1f} fps  {sizes[name]:6.1f} KB/frame"
        if name != "renderfarm":
            ratios = [theirs / mine for theirs, mine in zip(seconds[name], seconds["renderfarm"])]
            line += f"  renderfarm {statistics.median(ratios):.2f}x as fast"
        print(line)


if __name__ == "__main__":
    main()

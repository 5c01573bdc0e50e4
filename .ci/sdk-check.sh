#!/usr/bin/env bash
# The plugin SDK end to end, as a third party uses it: `make install` into a temporary prefix, after which the
# repository is out of reach, so everything after it works from the installed files alone (as root: installed
# from this repository's build, which an empty tmpfs then hides in a mount namespace of the check's own; otherwise
# installed from a copy of the repository, built from scratch and then deleted);
# a symlinked renderfarm in another folder; `renderfarm plugin new` for one C and two Swift plugins outside
# the repository, built against the installed SDK (header + pkg-config, and the installed EffectKit package),
# tested and checked with `renderfarm plugin check`; the Swift one without trace through `trace` and
# `preview --debug`; then one job with the new plugins and the built-in floating heart rendered at -j 1 and
# -j 2: every frame must have drawn pixels and the two renders must be byte-identical. Last, the installed C
# examples of the optional callbacks (share/doc/renderfarm/examples/c): each built as C99 from its installed copy,
# checked with `plugin check --frames all` (as root, then as nobody), and its job rendered and its pixels checked;
# last, the scaffolds' installed plugins checked as root and as nobody too.
# INSTALL_CONFIG (debug or release) picks the build that is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
repository=$(pwd)
# As root, the check runs again in a private mount namespace, where it can hide the repository once installed.
if [ "$(id -u)" = 0 ] && [ -z "${RENDERFARM_SDK_CHECK_HIDES:-}" ] && unshare --mount --propagation private true 2>/dev/null
then
    RENDERFARM_SDK_CHECK_HIDES=1 exec unshare --mount --propagation private bash "$repository/.ci/sdk-check.sh" "$@"
fi
start=$(date +%s)
work=$(mktemp -d /tmp/renderfarm-sdk.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
step() { echo; echo "== sdk-check: $* ($(( $(date +%s) - start )) s)"; }

if [ -n "${RENDERFARM_SDK_CHECK_HIDES:-}" ]; then
    step "make install PREFIX=$prefix from this repository's ${INSTALL_CONFIG:-release} build, then the repository hidden"
    source=$repository
else
    step "make install PREFIX=$prefix from a copy of the repository, then the copy deleted"
    source=$work/renderfarm-copy
    mkdir -p "$source"
    git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c '[ -e "$1" ] && echo "$1"' _ {} |
        tar -cf - -T - | tar -xf - -C "$source"
fi
make --no-print-directory -C "$source" install PREFIX="$prefix" INSTALL_CONFIG="${INSTALL_CONFIG:-release}" \
    >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
tail -n 4 "$work/install.log"
cd "$work"
if [ -n "${RENDERFARM_SDK_CHECK_HIDES:-}" ]; then
    # Only in this namespace: the sources and every build of them are an empty folder from here on.
    mount -t tmpfs -o size=64k,mode=0755 renderfarm-hidden "$repository"
    [ -z "$(ls -A "$repository")" ] || { echo "the repository is still visible at $repository"; exit 1; }
else
    rm -rf "$source"
fi
test -s "$prefix/share/renderfarm/swift/EffectKit/Package.swift"

step "a symlinked renderfarm in another folder finds the installed plugins"
mkdir -p "$work/bin"
ln -s "$prefix/bin/renderfarm" "$work/bin/renderfarm"
export PATH="$work/bin:$PATH" PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
unset RENDERFARM_PLUGIN_PATH RENDERFARM_SOURCE
(cd "$work" && renderfarm plugins) >"$work/plugins.txt"
for id in floating-heart gradient lottie parabolic-drop physics-bounce; do
    grep -q "^$id " "$work/plugins.txt" || { echo "symlinked renderfarm does not list $id"; exit 1; }
done
grep -q "$prefix/lib/renderfarm/plugins/" "$work/plugins.txt"
# The installed binary and plugins run on the bundled Swift runtime, not the toolchain's folder.
# (Through a file: with pipefail, grep -q ending early can fail ldd with SIGPIPE.)
ldd "$prefix/bin/renderfarm" >"$work/ldd.txt"
grep -q "=> $prefix/bin/../lib/renderfarm/swift/libswiftCore.so" "$work/ldd.txt"
test -s "$prefix/share/man/man1/renderfarm.1" && test -s "$prefix/include/renderfarm/renderfarm_plugin.h"
# Every topic of the manual as a manual page groff reads without a warning (one per topic `renderfarm docs` lists),
# read by `man` as a user reads it, and as a web page without JavaScript that a plain HTTP client gets whole.
topics=$(renderfarm docs | awk '/^  [a-z]/ {print $1}')
pages=$(ls "$prefix"/share/man/man5/*.5 "$prefix"/share/man/man7/*.7 | wc -l)
[ "$pages" = "$(echo "$topics" | wc -l)" ] || { echo "$pages manual pages for $(echo "$topics" | wc -l) topics"; exit 1; }
for page in "$prefix"/share/man/man5/*.5 "$prefix"/share/man/man7/*.7; do
    groff -k -man -Tutf8 -ww "$page" 2>"$work/groff.txt" >/dev/null
    [ ! -s "$work/groff.txt" ] || { echo "$page:"; cat "$work/groff.txt"; exit 1; }
done
# (Lines joined: each reader wraps at its own width.)
joined() { tr -s ' \n' '  '; }
MANPATH="$prefix/share/man" man --nh --nj renderfarm-composing-layers 2>&1 | col -b | joined >"$work/man.txt"
grep -q "blend combines the layer with what is under it" "$work/man.txt" || { head -c 600 "$work/man.txt"; exit 1; }
# (Through files, as ldd's output above.)
renderfarm docs composing-layers | joined >"$work/docs.txt"
grep -q "blend combines the layer with what is under it" "$work/docs.txt"
renderfarm help composing-layers | joined >"$work/help-topic.txt"
grep -q "blend combines the layer with what is under it" "$work/help-topic.txt"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$prefix/share/doc/renderfarm" "$port" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/html/index.html" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/html/composing-layers.html" >"$work/page.html"
curl -sf "http://127.0.0.1:$port/html/index.html" >"$work/index.html"
kill "$server"
grep -q "blend</code> combines the layer with what is under it" "$work/page.html"
grep -q 'href="composing-layers.html"' "$work/index.html"
! grep -qi "<script" "$work/page.html" "$work/index.html"
# The DocC catalogs as static web pages too.
for module in RenderFarm EffectKit; do
    lower=$(echo "$module" | tr A-Z a-z)
    test -s "$prefix/share/doc/renderfarm/docs/$module/index.html"
    test -s "$prefix/share/doc/renderfarm/docs/$module/data/documentation/$lower.json"
done
# Users' reference pages show the SDK's public surface only: RenderFarm's pages are its articles, with no page of
# a host type (those are `package`, for the project's own `make docs`).
python3 - "$prefix/share/doc/renderfarm/docs/RenderFarm/data/documentation/renderfarm" <<'PY'
import glob, json, sys
kinds = {page: json.load(open(page))["kind"] for page in glob.glob(sys.argv[1] + "/**/*.json", recursive=True)}
symbols = sorted(page for page, kind in kinds.items() if kind != "article")
assert kinds and not symbols, f"installed RenderFarm reference pages of host types: {symbols[:5]}"
PY
renderfarm help plugin >"$work/help.txt"
grep -q "man renderfarm-plugin" "$work/help.txt"
pkg-config --exists renderfarm-plugin
# The installed completions load in their shells, and bash completes a subcommand's options.
bash -n "$prefix/share/bash-completion/completions/renderfarm"
zsh -n "$prefix/share/zsh/site-functions/_renderfarm"
fish -n "$prefix/share/fish/vendor_completions.d/renderfarm.fish"
words=$(bash -c 'source "$1"; COMP_WORDS=(renderfarm plugin new x --lang ""); COMP_CWORD=5; _renderfarm; echo "${COMPREPLY[*]}"' \
    _ "$prefix/share/bash-completion/completions/renderfarm")
[ "$words" = "c swift" ] || { echo "bash completion of --lang gave \"$words\""; exit 1; }
man -l "$prefix/share/man/man1/renderfarm.1" >/dev/null 2>&1 || groff -man -Tutf8 "$prefix/share/man/man1/renderfarm.1" >/dev/null 2>&1 \
    || echo "(man and groff not installed: the man page was not rendered)"
echo "ok: $(grep -c '^[a-z]' "$work/plugins.txt") plugins listed by $work/bin/renderfarm"

step "plugin new: a C and two Swift plugins outside the repository"
mkdir -p "$work/projects"
cd "$work/projects"
renderfarm plugin new sdk-bubbles --lang c
renderfarm plugin new sdk-orbits --lang swift | tee orbits.txt
grep -q "EffectKit from: $prefix/share/renderfarm/swift/EffectKit" orbits.txt
grep -q "$prefix/share/renderfarm/swift/EffectKit" sdk-orbits/Package.swift
# A wrong EffectKit path given by option or variable is an error, never passed over for the installed copy.
status=0; renderfarm plugin new sdk-wrong --lang swift --renderfarm-source "$work/nowhere" 2>wrong.txt || status=$?
[ "$status" -eq 66 ] && grep -q "holds no EffectKit package" wrong.txt || { echo "--renderfarm-source: $status"; exit 1; }
status=0; RENDERFARM_SOURCE="$work/nowhere" renderfarm plugin new sdk-wrong --lang swift 2>wrong.txt || status=$?
[ "$status" -eq 66 ] && grep -q "RENDERFARM_SOURCE" wrong.txt || { echo "RENDERFARM_SOURCE: $status"; exit 1; }
# The same scaffold without trace: an effect that is not a TracingEffect.
renderfarm plugin new sdk-plain --lang swift
sed -i -e 's/: TracingEffect {/: Effect {/' -e '/^    func trace(at frame/,/^    }$/d' sdk-plain/Sources/SdkPlain/SdkPlain.swift
if grep -q "func trace\|TracingEffect" sdk-plain/Sources/SdkPlain/SdkPlain.swift; then echo "sdk-plain still traces"; exit 1; fi

step "C plugin: make, make test, make check, make install (pkg-config renderfarm-plugin)"
make -C sdk-bubbles --no-print-directory all test check install

step "Swift plugin: make, make test, make check, make install (release, EffectKit installed under the prefix)"
make -C sdk-orbits --no-print-directory all test check install

step "Swift plugin without trace: make, make check, make install; listed as trace: no"
make -C sdk-plain --no-print-directory all check install
renderfarm plugins sdk-plain >plain.txt
grep -q "trace: no" plain.txt

step "one job with the new plugins and the built-in floating heart: trace, preview --debug, render at -j 1 and -j 2"
cat >sdk-job.json <<'JOB'
{
  "version": 1,
  "name": "sdk-check",
  "seed": 99,
  "canvas": { "width": 375, "height": 667, "scale": 1, "background": "#00000000" },
  "fps": 30,
  "duration": 2,
  "output": { "dir": "out" },
  "layers": [
    { "effect": "sdk-bubbles", "params": { "count": 20, "colors": ["#5AC8FA", "#FF2D55"] } },
    { "effect": "sdk-orbits", "params": { "count": 10 } },
    { "effect": "sdk-plain", "params": { "count": 4 } },
    { "effect": "floating-heart", "params": { "rate": 6 } }
  ]
}
JOB
renderfarm plugins | grep -E '^(sdk-bubbles|sdk-orbits|sdk-plain|floating-heart) '
# trace: JSON lines of the layers that trace (the plain layer is left out), preview --debug draws what it can.
renderfarm trace sdk-job.json >trace.jsonl
python3 -c 'import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
assert len(lines) == 60, len(lines)
assert all([layer["layer"] for layer in line["layers"]] == [0, 1, 3] for line in lines), lines[0]' trace.jsonl
renderfarm preview sdk-job.json --debug -o sheet.png --frames 0-59:10
test -s sheet.png
renderfarm render sdk-job.json -j 1 --out j1 --progress none
renderfarm render sdk-job.json -j 2 --out j2 --progress none
frames=$(ls j1/*.png | wc -l)
[ "$frames" -eq 60 ] || { echo "expected 60 frames, got $frames"; exit 1; }
for f in j1/*.png; do cmp -s "$f" "j2/$(basename "$f")" || { echo "$f differs between -j 1 and -j 2"; exit 1; }; done
# Every frame has drawn pixels (the canvas is transparent: some alpha must be non-zero).
cat >drawn.c <<'C'
#include <cairo.h>
#include <stdio.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        cairo_surface_t *s = cairo_image_surface_create_from_png(argv[i]);
        if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) { fprintf(stderr, "cannot read %s\n", argv[i]); return 1; }
        const unsigned char *d = cairo_image_surface_get_data(s);
        int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
        int stride = cairo_image_surface_get_stride(s), drawn = 0;
        for (int y = 0; y < h && !drawn; y++)
            for (int x = 0; x < w && !drawn; x++) drawn = d[y * stride + 4 * x + 3] != 0;
        if (!drawn) { fprintf(stderr, "%s is blank\n", argv[i]); return 1; }
        cairo_surface_destroy(s);
    }
    return 0;
}
C
cc -O2 -o drawn drawn.c $(pkg-config --cflags --libs cairo)
./drawn j1/*.png
echo "ok: $frames frames, each non-blank, byte-identical at -j 1 and -j 2"

step "C examples of the optional callbacks: each installed copy built as C99, plugin check --frames all, rendered"
examples=$prefix/share/doc/renderfarm/examples/c
mkdir -p "$work/examples"
cd "$work/examples"
cp "$examples"/*.json "$examples"/*.csv "$examples"/*.palette .
# pixel FRAME X Y …: the colour at each point as #RRGGBBAA, straight alpha.
cat >pixel.c <<'C'
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    cairo_surface_t *s = cairo_image_surface_create_from_png(argc > 1 ? argv[1] : "");
    if (argc < 4 || argc % 2 || cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) { fprintf(stderr, "pixel FRAME X Y …\n"); return 2; }
    const unsigned char *d = cairo_image_surface_get_data(s);
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), stride = cairo_image_surface_get_stride(s);
    for (int i = 2; i < argc; i += 2) {
        int x = atoi(argv[i]), y = atoi(argv[i + 1]);
        if (x < 0 || y < 0 || x >= w || y >= h) { fprintf(stderr, "%d,%d is outside %s\n", x, y, argv[1]); return 1; }
        uint32_t p = *(const uint32_t *)(d + y * stride + 4 * x); /* premultiplied ARGB32 */
        unsigned a = p >> 24, c[3] = {(p >> 16) & 255, (p >> 8) & 255, p & 255};
        for (int k = 0; k < 3; k++) c[k] = a ? (c[k] * 255 + a / 2) / a : 0;
        printf("#%02X%02X%02X%02X\n", c[0], c[1], c[2], a);
    }
    return 0;
}
C
cc -O2 -o pixel pixel.c $(pkg-config --cflags --libs cairo)
check_users=$(id -un)
if [ "$(id -u)" = 0 ]; then check_users="root nobody"; chmod 755 "$work"; chmod -R a+rX "$work/examples"; fi
for source in "$examples"/*.c; do
    name=$(basename "$source" .c)
    lib=librenderfarm-example-$name.so
    cc -std=c99 -Wall -Wextra -Werror -pedantic -shared -fPIC -o "$lib" "$source" \
        $(pkg-config --cflags --libs renderfarm-plugin) -lm
    chmod a+r "$lib"
    # The check runs the parameters of the example's job (data-dots needs its file), from this folder, the job's.
    python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["layers"][0]["params"]))' \
        "$name.json" >"$name.params.json"
    chmod a+r "$name.params.json"
    for user in $check_users; do
        run=renderfarm
        [ "$user" = nobody ] && run="setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp renderfarm"
        begin=$(date +%s%N)
        $run plugin check "./$lib" --params "$name.params.json" --frames all >"$name.check.txt" 2>&1 ||
            { cat "$name.check.txt"; echo "plugin check of the $name example failed as $user"; exit 1; }
        echo "as $user: $(tail -n 1 "$name.check.txt") in $(( ($(date +%s%N) - begin) / 1000000 )) ms"
    done
done

# falling-dot: frame 60 has the dot where trace says, over the background; its cache folder holds one checkpoint
# (a hash-named file of 48 bytes, no temporary left), and a garbled checkpoint is ignored and written again.
renderfarm render falling-dot.json --plugin-path . --frames 60 --progress none >/dev/null
renderfarm trace falling-dot.json --plugin-path . --frames 60 >falling-dot.trace
read -r x y < <(python3 -c 'import json, sys
item = json.load(open(sys.argv[1]))["layers"][0]["items"][0]
assert item["visible"], item
print(int(item["x"]), int(item["y"]))' falling-dot.trace) || { echo "falling-dot: no visible dot traced at frame 60"; exit 1; }
colors=$(./pixel out/example-falling-dot/frame_00060.png "$x" "$y" 0 0 | tr '\n' ' ')
[ "$colors" = "#FF9500FF #101820FF " ] || { echo "falling-dot frame 60: $colors at the dot ($x, $y) and at 0,0"; exit 1; }
cache=out/example-falling-dot/renderfarm.cache/example-falling-dot
ls -A "$cache" >cache.txt
grep -qxE 'falling-dot-[0-9a-f]{64}' cache.txt && [ "$(wc -l <cache.txt)" -eq 1 ] || { echo "cache:"; cat cache.txt; exit 1; }
checkpoint=$cache/$(cat cache.txt)
[ "$(stat -c %s "$checkpoint")" -eq 48 ] || { echo "$checkpoint is not 48 bytes"; exit 1; }
cp "$checkpoint" checkpoint.good
printf 'garbled' >"$checkpoint"
renderfarm render falling-dot.json --plugin-path . --frames 75 --progress none >/dev/null
cmp -s "$checkpoint" checkpoint.good || { echo "a garbled checkpoint was not written again"; exit 1; }
[ -z "$(ls -A "$cache" | grep -v '^falling-dot-')" ] || { echo "files left in the cache:"; ls -A "$cache"; exit 1; }
echo "ok: falling-dot frame 60 drawn where trace puts the dot; one checkpoint, rewritten after it was garbled"

# data-dots: the whole job; at frame 60 every row's dot shows in its colour (the layer's for rows without one).
renderfarm render data-dots.json --plugin-path . --progress none >render.txt
points=$(tail -n +2 data-dots.csv | cut -d, -f1,2 | tr ',' ' ')
expected=$(tail -n +2 data-dots.csv | awk -F, '{ print ($4 == "" ? "#5AC8FA" : $4) "FF" }')
# shellcheck disable=SC2086
[ "$(./pixel out/example-data-dots/frame_00060.png $points)" = "$expected" ] || { echo "data-dots frame 60 colours differ"; exit 1; }
# input_files and keys that cover the file: recolouring the first eye (row 13, shown from 0.96 s, frame 29 on)
# redraws only frames 29 and later.
sed -i 's/^125,95,12,#FFCC00$/125,95,12,#34C759/' data-dots.csv
renderfarm render data-dots.json --plugin-path . --progress none >rerender.txt
grep -q "29 already done" rerender.txt || { echo "after the edit:"; cat rerender.txt; exit 1; }
[ "$(./pixel out/example-data-dots/frame_00060.png 125 95)" = "#34C759FF" ] || { echo "the edited row is not drawn"; exit 1; }
# verify: validate refuses a file with bad rows (exit 65), naming each row at its place in the job.
printf 'x,y,radius,color\n10,20\n1,2,3,4,5\n7,8,3,red\n' >data-dots.csv
status=0; renderfarm validate data-dots.json --plugin-path . 2>invalid.txt || status=$?
[ "$status" -eq 65 ] && grep -q "params.file: line 3: more than 4 fields" invalid.txt &&
    grep -q "params.file: line 4: color is not" invalid.txt || { echo "validate: $status"; cat invalid.txt; exit 1; }
echo "ok: data-dots:$(head -n 1 render.txt | cut -d: -f2-); an edited row redrew only its frames; bad rows refused"

# stripes: its palette is read beside the library (plugin_dir, here this folder) through create_with_plugin; frame 0
# has the palette's first three colours in the first three stripes, and a new palette redraws every frame.
renderfarm render stripes.json --plugin-path . --progress none >/dev/null
[ "$(./pixel out/example-stripes/frame_00000.png 10 60 30 60 50 60 | tr '\n' ' ')" = "#FF2D55FF #FFCC00FF #5AC8FAFF " ] ||
    { echo "stripes frame 0 does not show the palette"; exit 1; }
sed -i 's/^#FF2D55$/#34C759/' example-stripes.palette
renderfarm render stripes.json --plugin-path . --progress plain 2>restripe.txt >/dev/null
grep -qE "60 because an input file changed \((.*/)?example-stripes.palette\)" restripe.txt ||
    { echo "after the palette edit:"; cat restripe.txt; exit 1; }
[ "$(./pixel out/example-stripes/frame_00000.png 10 60)" = "#34C759FF" ] || { echo "the new palette is not drawn"; exit 1; }
echo "ok: stripes drawn in the palette beside the library; a new palette redrew all 60 frames"

step "the scaffolds' plugins as installed: plugin check --frames all by id, as root and as nobody"
for id in sdk-bubbles sdk-orbits sdk-plain; do
    for user in $check_users; do
        run=renderfarm
        [ "$user" = nobody ] && run="setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp renderfarm"
        $run plugin check "$id" --frames all >"$id.check.txt" 2>&1 ||
            { cat "$id.check.txt"; echo "plugin check of the $id scaffold failed as $user"; exit 1; }
        echo "as $user: $(tail -n 1 "$id.check.txt")"
    done
done

step "done"

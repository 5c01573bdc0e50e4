#!/usr/bin/env bash
# `make bench-video`: `render --video` against the encoder alone, in one interleaved run.
#
# For each preset (mp4 on the 720p hearts job with an opaque background, 480 frames; webm-alpha on
# the transparent 720p hearts job, 120 frames, VP9 being slow) and each of ROUNDS rounds, in turn:
#   floor     the encoder alone (ffmpeg with the preset's codec options) on the same frames, prepared
#             beforehand as raw YUV in the encoder's format (not timed): the best a pipe can do;
#   --video   renderfarm render --video (draw, convert in the workers, pipe to ffmpeg);
#   PNGs      renderfarm render to PNGs, then renderfarm encode (both timed, summed).
# Then checks that the --video route's peak memory does not grow with the frame count (GNU time's
# maximum resident set size, which covers renderfarm and the ffmpeg it waits for).
set -euo pipefail
cd "$(dirname "$0")/.."
RENDERFARM=${1:-.build/release/renderfarm}
ROUNDS=${ROUNDS:-3}
J=${J:-2}
JOBS=Sources/RenderFarmBench/Jobs
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Wall and CPU seconds (user + system, children included) of one command: "wall cpu".
measure() {
    /usr/bin/time -f "%e %U %S" "$@" 2>&1 > /dev/null | tail -1 | awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }'
}
# "median min max" of the numbers on standard input.
spread() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f\n", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

# bench PRESET JOB FRAMES CODEC-OPTIONS...: one preset's rows.
bench() {
    local preset=$1 job=$2 frames=$3 ext pixfmt size
    shift 3
    ext=$([ "$preset" = mp4 ] && echo mp4 || echo webm)
    pixfmt=$([ "$preset" = mp4 ] && echo yuv420p || echo yuva420p)
    local dir="$WORK/$preset"
    mkdir -p "$dir"
    # The floor's input: the frames as PNGs, converted once to raw YUV by ffmpeg.
    "$RENDERFARM" render "$job" --frames "$frames" --out "$dir/ref" --force --progress none -j "$J" > /dev/null
    size=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 \
        "$(ls "$dir"/ref/*.png | head -1)")
    local count
    count=$(ls "$dir"/ref/*.png | wc -l)
    # (The mp4 job's background is opaque, so its PNGs need no matte.)
    local matrix=()
    [ "$preset" = mp4 ] && matrix=(-vf scale=out_color_matrix=bt709:out_range=tv)
    ffmpeg -v error -y -framerate 60 -pattern_type glob -i "$dir/ref/*.png" "${matrix[@]}" -frames:v "$count" \
        -pix_fmt "$pixfmt" -f rawvideo "$dir/frames.yuv"
    for round in $(seq "$ROUNDS"); do
        read -r w c < <(measure ffmpeg -v error -y -f rawvideo -pixel_format "$pixfmt" -video_size "$size" \
            -framerate 60 -i "$dir/frames.yuv" "$@" "$dir/floor.$ext")
        echo "$w $c" >> "$dir/floor"
        read -r w c < <(measure "$RENDERFARM" render "$job" --frames "$frames" --video "$dir/video.$ext" \
            --preset "$preset" --progress none -j "$J")
        echo "$w $c" >> "$dir/video"
        read -r w1 c1 < <(measure "$RENDERFARM" render "$job" --frames "$frames" --out "$dir/png" --force \
            --progress none -j "$J")
        read -r w2 c2 < <(measure "$RENDERFARM" encode "$dir/png" -o "$dir/png.$ext" --preset "$preset" \
            --progress none)
        awk -v a="$w1" -v b="$w2" -v c="$c1" -v d="$c2" 'BEGIN { printf "%.2f %.2f\n", a + b, c + d }' >> "$dir/png-encode"
    done
    local floor
    floor=$(cut -d' ' -f1 "$dir/floor" | spread | cut -d' ' -f1)
    echo "$preset, $count frames of $size ($(basename "$job")), $ROUNDS interleaved rounds, -j $J:"
    printf "  %-24s %8s %15s %8s %9s\n" route "wall s" "(min-max)" "CPU s" "vs floor"
    for route in floor video png-encode; do
        read -r median low high < <(cut -d' ' -f1 "$dir/$route" | spread)
        read -r cpu _ _ < <(cut -d' ' -f2 "$dir/$route" | spread)
        local label=$route
        [ "$route" = floor ] && label="encoder alone (floor)"
        [ "$route" = video ] && label="render --video"
        [ "$route" = png-encode ] && label="PNGs + encode"
        printf "  %-24s %8s %15s %8s %8.2fx\n" "$label" "$median" "($low-$high)" "$cpu" \
            "$(awk -v a="$median" -v b="$floor" 'BEGIN { print a / b }')"
    done
}

bench mp4 "$JOBS/hd720-video.json" 360-839 -c:v libx264 -preset medium -crf 18 -pix_fmt yuv420p \
    -colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv -movflags +faststart -f mp4
bench webm-alpha "$JOBS/hd720-transparent.json" 360-479 -c:v libvpx-vp9 -pix_fmt yuva420p -b:v 0 -crf 30 \
    -deadline good -cpu-used 4 -row-mt 1 -f webm
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"

for frames in 360-479 360-839; do
    rss=$(/usr/bin/time -f "%M" "$RENDERFARM" render "$JOBS/hd720-video.json" --frames "$frames" \
        --video "$WORK/m.mp4" --progress none -j "$J" 2>&1 > /dev/null | tail -1)
    echo "peak RSS with --frames $frames: $rss KiB"
    eval "rss_${frames//-/_}=$rss"
done
growth=$(awk -v a="$rss_360_839" -v b="$rss_360_479" 'BEGIN { printf "%.2f", a / b }')
echo "peak RSS ratio 480 / 120 frames: $growth (bounded when close to 1)"
if ! awk -v g="$growth" 'BEGIN { exit !(g < 1.3) }'; then
    echo "bench-video: peak memory grows with the frame count" >&2
    exit 1
fi

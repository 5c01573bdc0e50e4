#!/usr/bin/env bash
# `make bench-video`: compares `render --video` with writing PNGs then `encode` (same mp4 preset) on
# jobs/live-hearts.json, and checks that the --video route's peak memory does not grow with the frame
# count (GNU time's maximum resident set size, which covers renderfarm and the ffmpeg it waits for).
set -euo pipefail
cd "$(dirname "$0")/.."
RENDERFARM=${1:-.build/release/renderfarm}
JOB=${JOB:-jobs/live-hearts.json}
J=${J:-2}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Wall and CPU seconds (user + system, including ffmpeg) of one command: "wall cpu".
measure() {
    /usr/bin/time -f "%e %U %S" "$@" 2>&1 > /dev/null | tail -1 | awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }'
}
sum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

read -r render_wall render_cpu < <(measure "$RENDERFARM" render "$JOB" --out "$WORK/png" --force --progress none -j "$J")
read -r encode_wall encode_cpu < <(measure "$RENDERFARM" encode "$WORK/png" -o "$WORK/png.mp4" --progress none)
read -r video_wall video_cpu < <(measure "$RENDERFARM" render "$JOB" --video "$WORK/video.mp4" --progress none -j "$J")
png_wall=$(sum "$render_wall" "$encode_wall")
png_cpu=$(sum "$render_cpu" "$encode_cpu")
echo "PNGs + encode:  $png_wall s wall, $png_cpu s CPU (render $render_wall s, encode $encode_wall s)"
echo "render --video: $video_wall s wall, $video_cpu s CPU"
echo "speed-up: $(ratio "$png_wall" "$video_wall")x wall, $(ratio "$png_cpu" "$video_cpu")x CPU" \
    "(load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores)"

for frames in 0-119 0-479; do
    rss=$(/usr/bin/time -f "%M" "$RENDERFARM" render "$JOB" --frames "$frames" --video "$WORK/m.mp4" \
        --progress none -j "$J" 2>&1 > /dev/null | tail -1)
    echo "peak RSS with --frames $frames: $rss KiB"
    eval "rss_${frames//-/_}=$rss"
done
growth=$(ratio "$rss_0_479" "$rss_0_119")
echo "peak RSS ratio 480 / 120 frames: $growth (bounded when close to 1)"
if ! awk -v g="$growth" 'BEGIN { exit !(g < 1.3) }'; then
    echo "bench-video: peak memory grows with the frame count" >&2
    exit 1
fi

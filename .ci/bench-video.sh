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

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

start=$(now)
"$RENDERFARM" render "$JOB" --out "$WORK/png" --force --progress none -j "$J" > /dev/null
rendered=$(now)
"$RENDERFARM" encode "$WORK/png" -o "$WORK/png.mp4" --progress none > /dev/null
encoded=$(now)
"$RENDERFARM" render "$JOB" --video "$WORK/video.mp4" --progress none -j "$J" > /dev/null
streamed=$(now)

png=$(seconds "$start" "$encoded")
video=$(seconds "$encoded" "$streamed")
echo "PNGs + encode: $png s (render $(seconds "$start" "$rendered") s, encode $(seconds "$rendered" "$encoded") s)"
echo "render --video: $video s"
echo "speed-up: $(ratio "$png" "$video")x"

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

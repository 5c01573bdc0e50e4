#!/usr/bin/env bash
# CI render targets (RenderFarm article VideosAndTimelines, "Reference renders in CI"):
#   render-check.sh check    `make ci-render`: every job in jobs/ at reduced scale, twice; fails when a
#                            manifest is incomplete, the two runs' frame hashes differ, or a frame differs
#                            from its reference image in Tests/References/<job>/ beyond the tolerances.
#   render-check.sh update   `make update-references`: writes the reference frames (3 per job) again.
# Contact sheets and diff images go to $WORK (default .build/ci-render).
set -uo pipefail
cd "$(dirname "$0")/.."

MODE=${1:-check}
RENDERFARM=${RENDERFARM:-.build/debug/renderfarm}
JOBS_DIR=${JOBS_DIR:-jobs}
REFERENCES=${REFERENCES:-Tests/References}
WORK=${WORK:-.build/ci-render}
SCALE=${CI_SCALE:-0.5}
JOBS_FLAG=${CI_JOBS:-2}

case "$MODE" in check|update) ;; *) echo "usage: $0 check|update" >&2; exit 64 ;; esac
[ -x "$RENDERFARM" ] || { echo "ci-render: $RENDERFARM is missing; run make build" >&2; exit 66; }

failures=0
compared=0
fail() { echo "ci-render: FAIL: $*"; failures=$((failures + 1)); }

shopt -s nullglob
jobs=("$JOBS_DIR"/*.json)
[ ${#jobs[@]} -gt 0 ] || { echo "ci-render: no jobs in $JOBS_DIR" >&2; exit 66; }

for job in "${jobs[@]}"; do
    name=$(basename "$job" .json)
    before=$failures
    out="$WORK/$name"
    rm -rf "$out"
    mkdir -p "$out"
    ok=1
    # A job whose variants.matrix varies canvas.scale renders at its own scales: --scale would give
    # every variant one scale (render refuses it).
    scale=(--scale "$SCALE")
    if grep -q '"canvas.scale"' "$job"; then scale=(); fi
    for run in 1 2; do
        if ! "$RENDERFARM" render "$job" "${scale[@]}" --out "$out/run$run" --force --progress none \
            -j "$JOBS_FLAG" > "$out/run$run.log" 2>&1; then
            fail "$name: render $run failed:"; sed 's/^/    /' "$out/run$run.log"; ok=0; break
        fi
        # One manifest, or one per variant of a job with variants.
        manifests=$(find "$out/run$run" -name manifest.json | sort)
        [ -n "$manifests" ] || { fail "$name: run $run wrote no manifest"; ok=0; }
        for manifest in $manifests; do
            grep -q '"complete": true' "$manifest" || { fail "$name: run $run: $manifest is incomplete"; ok=0; }
        done
    done
    [ $ok = 1 ] || continue
    hashes() { find "$out/run$1" -name manifest.json | sort | xargs grep -h '"sha256"'; }
    if ! diff <(hashes 1) <(hashes 2) > /dev/null; then
        fail "$name: two renders of the same job gave different frames (not deterministic):" \
            "compare $out/run1 and $out/run2"
    fi
    sheet_folder=$(dirname "$(find "$out/run1" -name manifest.json | sort | head -1)")
    "$RENDERFARM" preview "$sheet_folder" -o "$out/sheet.png" --width 960 > /dev/null \
        || fail "$name: contact sheet failed"

    refs="$REFERENCES/$name"
    # Frames by path below the run folder; a variant's frames are named <variant>__frame_….png.
    mapfile -t frames < <(cd "$out/run1" && find . -name '*.png' | sed 's|^\./||' | sort)
    if [ "$MODE" = update ]; then
        rm -rf "$refs"
        mkdir -p "$refs"
        count=${#frames[@]}
        for quarter in 1 2 3; do
            frame=${frames[$((count * quarter / 4))]}
            cp "$out/run1/$frame" "$refs/${frame//\//__}"
        done
        echo "ci-render: $name: references written: $(cd "$refs" && ls | tr '\n' ' ')"
        continue
    fi
    references=("$refs"/*.png)
    if [ ${#references[@]} -eq 0 ]; then
        fail "$name: no reference frames in $refs; run make update-references and commit them"
        continue
    fi
    for reference in "${references[@]}"; do
        file=$(basename "$reference")
        frame=${file//__//}
        compared=$((compared + 1))
        if [ ! -f "$out/run1/$frame" ]; then
            fail "$name: reference $reference has no matching frame; run make update-references if the job changed"
            continue
        fi
        if ! "$RENDERFARM" compare "$out/run1/$frame" "$reference" --diff-image "$out/diff-$file" \
            > "$out/compare.log" 2>&1; then
            fail "$name: $file differs from its reference; diff image: $out/diff-$file"
            sed 's/^/    /' "$out/compare.log"
        fi
    done
    [ $failures = "$before" ] && echo "ci-render: $name: ok (contact sheet $out/sheet.png)"
done

echo "ci-render: ${#jobs[@]} jobs, $compared reference frames compared, $failures failures"
[ "$MODE" = update ] && echo "ci-render: review the new references (git diff --stat $REFERENCES) before committing"
[ $failures -eq 0 ]

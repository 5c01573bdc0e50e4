#!/bin/sh
# One scene of `make sandbox-attack` (Tests/RenderFarmCLITests/SandboxAttackTests.swift): run by the test as
# root inside `unshare --net --mount`, so that the "host" an attack could harm is a network namespace of its
# own, whose loopback this brings up, and a private mount namespace, where a loop-mounted ext4 holds the
# plugin when the attack is on a file system (FIFREEZE on the machine's disk would stop every program on it).
# It renders RF_JOB as RF_USER (root, or nobody through setpriv) and records in RF_OUT what the host looks
# like before and afterwards. Environment:
#   RF_BINARY RF_JOB RF_PLUGINS RF_OUT RF_USER   the render and where its results go
#   RF_SANDBOX (require) RF_ARGS                 --sandbox and more render options (words)
#   RF_WATCH                                     a file whose mode, time and attributes are recorded
#   RF_IMAGE RF_MOUNT RF_LIBRARY                 an ext4 image mounted on RF_MOUNT, holding RF_LIBRARY (watched)
#   RF_SIGNAL (e.g. TERM@3) RF_LIMIT (60)        a signal to the render after some seconds; SIGKILL past the limit
#   RF_MOUNTED                                   a folder that must not become a mount point
#   RF_INHERIT                                   a file the render gets open on descriptor 7 (no O_CLOEXEC)
set -u
ip link set lo up || exit 91
plugins=$RF_PLUGINS
watched=${RF_WATCH:-}
if [ -n "${RF_IMAGE:-}" ]; then
    mkdir -p "$RF_MOUNT" && mount -o loop "$RF_IMAGE" "$RF_MOUNT" || exit 92
    cp "$RF_LIBRARY" "$RF_MOUNT/" && chmod 755 "$RF_MOUNT" "$RF_MOUNT/$(basename "$RF_LIBRARY")" || exit 93
    plugins=$RF_MOUNT
    watched=$RF_MOUNT/$(basename "$RF_LIBRARY")
fi
watch() {
    [ -n "$watched" ] || return 0
    stat -c '%a %Y' "$watched"
    lsattr -d "$watched" 2>/dev/null | cut -d' ' -f1
}
watch > "$RF_OUT/before"
as=""
[ "$RF_USER" = nobody ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups --"
[ -n "${RF_INHERIT:-}" ] && exec 7< "$RF_INHERIT"
# shellcheck disable=SC2086 # RF_ARGS and as are lists of words
$as "$RF_BINARY" render "$RF_JOB" --isolate --sandbox "${RF_SANDBOX:-require}" -j 1 --progress none --force \
    --plugin-path "$plugins" ${RF_ARGS:-} > "$RF_OUT/stdout" 2> "$RF_OUT/stderr" &
render=$!
signal=${RF_SIGNAL:-}
ticks=0
# Until the render ends (a zombie has ended: the shell reaps it in `wait`).
while state=$(cut -d' ' -f3 "/proc/$render/stat" 2>/dev/null) && [ "$state" != Z ]; do
    if [ "$ticks" -ge $((${RF_LIMIT:-60} * 10)) ]; then
        kill -KILL "$render"
        echo killed > "$RF_OUT/killed"
        break
    fi
    if [ -n "$signal" ] && [ "$ticks" -eq $((${signal#*@} * 10)) ]; then
        kill -"${signal%@*}" "$render"
        echo "$(date +%s.%N)" > "$RF_OUT/signalled"
    fi
    sleep 0.1
    ticks=$((ticks + 1))
done
wait "$render"
echo $? > "$RF_OUT/status"
echo "$(date +%s.%N)" > "$RF_OUT/ended"
ip -o link show lo > "$RF_OUT/loopback"
watch > "$RF_OUT/after"
if [ -n "${RF_MOUNTED:-}" ] && grep -q " $RF_MOUNTED " /proc/self/mountinfo; then
    echo mounted > "$RF_OUT/mounted"
    umount -l "$RF_MOUNTED"
fi
if [ -n "${RF_IMAGE:-}" ]; then
    # FITHAW succeeds only on a frozen file system.
    fsfreeze --unfreeze "$RF_MOUNT" 2> /dev/null && echo frozen > "$RF_OUT/frozen"
    chattr -i "$watched" 2> /dev/null
    umount -l "$RF_MOUNT"
fi
exit 0

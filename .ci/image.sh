#!/usr/bin/env bash
# make image: the OCI image of RenderFarm (RenderFarm article RunningOnACluster, "The image"), pulled from no
# registry. A minimal Debian root file system from mmdebstrap (variant essential: dpkg, bash, coreutils, no apt,
# no compiler) and this machine's apt sources, plus the Debian packages the installed binary and plugins link
# (found with ldd and dpkg -S) and the text plugin's fonts; the install prefix STAGE/PREFIX copied in, renderfarm
# on PATH, a user renderfarm (10001, the user every pod of `submit --kubernetes` runs as). Imported into the local podman store as NAME:VERSION and NAME:latest, and
# written as an OCI archive to OUT/renderfarm-VERSION.oci.tar. .ci/Containerfile builds the same contents from a
# registry's debian:bookworm-slim, for teams with their own image tools.
#
# usage: .ci/image.sh STAGE PREFIX NAME OUT   (STAGE: the DESTDIR make install wrote PREFIX into)
set -euo pipefail
stage=$(cd "$1" && pwd) prefix=$2 name=$3 out=$4
start=$SECONDS
binary=$stage$prefix/bin/renderfarm
[ -x "$binary" ] || { echo "image: no $binary (make install DESTDIR=$stage PREFIX=$prefix first)" >&2; exit 1; }
version=$("$binary" --version | awk '{print $2}')
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The packages of every library the binary and the plugins load, except the Swift runtime the install carries.
libraries=$(ldd "$binary" "$stage$prefix"/lib/renderfarm/plugins/*.so |
    awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(/ {print $1}' | grep -v "^$stage" | sort -u)
# (ldd's output in a variable first: with pipefail, a grep -q that stops at its first match can fail ldd with
# SIGPIPE, and the check would pass.)
linked=$(ldd "$binary" "$stage$prefix"/lib/renderfarm/plugins/*.so)
if grep -q 'not found' <<<"$linked"; then
    echo "image: a library of the install is not found:" >&2
    grep 'not found' <<<"$linked" >&2; exit 1
fi
# Libraries the binary opens only when needed, which ldd does not list: libmicrohttpd for `renderfarm studio`.
for soname in libmicrohttpd.so.12; do
    # awk reads to the end: leaving at the match made ldconfig die of SIGPIPE when its output (about 60 KB) had
    # not all fit in the pipe yet, and with pipefail the script ended without a word (1 run in 6).
    lib=$(ldconfig -p | awk -v name="$soname" '$1 == name && /x86-64/ && !found {print $NF; found = 1}')
    [ -n "$lib" ] || { echo "image: $soname is not installed on this machine" >&2; exit 1; }
    libraries="$libraries $lib"
done
packages=$(for lib in $libraries; do
    dpkg-query -S "$lib" 2>/dev/null || dpkg-query -S "$(realpath "$lib")" 2>/dev/null ||
        dpkg-query -S "${lib#/usr}" 2>/dev/null || { echo "image: no Debian package has $lib" >&2; exit 1; }
done | cut -d: -f1 | sort -u)
# The fonts the text plugin draws with (plugins/text/PangoText/FontLibrary.swift; it reads their dpkg file lists).
packages=$(printf '%s\n' $packages ${IMAGE_FONT_PACKAGES:?the font packages, from make image} | sort -u)
printf '%s\n' $packages > "$out/packages"
echo "image: renderfarm $version with $(echo $packages | wc -w) Debian packages: $(echo $packages)"

# The same root file system every time from the same packages: file times from the commit's.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
rootfs=$out/rootfs.tar
rm -f "$rootfs"
sources=$(ls /etc/apt/sources.list.d/debian.sources 2>/dev/null || echo /etc/apt/sources.list)
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
mmdebstrap --quiet --variant=essential --include="$(echo $packages | tr ' ' ,)" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook="mkdir -p \"\$1$(dirname "$prefix")\"" \
    --customize-hook="copy-in $stage$prefix $(dirname "$prefix")" \
    --customize-hook="ln -sf $prefix/bin/renderfarm \"\$1/usr/local/bin/renderfarm\"" \
    --customize-hook='echo "renderfarm:x:10001:10001:RenderFarm:/home/renderfarm:/usr/sbin/nologin" >> "$1/etc/passwd"' \
    --customize-hook='echo "renderfarm:x:10001:" >> "$1/etc/group"' \
    --customize-hook='echo "renderfarm:!:19000::::::" >> "$1/etc/shadow"' \
    --customize-hook='install -d -o 10001 -g 10001 -m 755 "$1/home/renderfarm"' \
    --customize-hook="chown -R 0:0 \"\$1$prefix\" && chmod -R a+rX,go-w \"\$1$prefix\"" \
    --customize-hook='rm -rf "$1/var/cache/apt" "$1/var/lib/apt/lists" "$1/var/log"/*' \
    "$suite" "$rootfs" "$sources"

# No compiler came in with a package.
if tar -tf "$rootfs" | grep -E -q '^\./usr/bin/(cc|gcc|g\+\+|c\+\+|clang|swiftc|swift|ld)(-[0-9.]+)?$'; then
    echo "image: the root file system holds a compiler:" >&2
    tar -tf "$rootfs" | grep -E '^\./usr/bin/(cc|gcc|g\+\+|c\+\+|clang|swiftc|swift|ld)(-[0-9.]+)?$' >&2; exit 1
fi

nproc=$(ulimit -Hu); [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
podman rmi --force "$name:$version" "$name:latest" >/dev/null 2>&1 || true
podman import --quiet \
    --change 'USER 10001:10001' --change 'WORKDIR /home/renderfarm' \
    --change "ENV PATH=$prefix/bin:/usr/local/bin:/usr/bin:/bin" \
    --change 'CMD ["renderfarm", "--help"]' \
    --change "LABEL org.opencontainers.image.title=renderfarm" \
    --change "LABEL org.opencontainers.image.version=$version" \
    --change "LABEL org.opencontainers.image.revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
    --change 'LABEL org.opencontainers.image.description="RenderFarm batch renderer: renderfarm and its built-in plugins"' \
    --message "make image: mmdebstrap $suite + make install PREFIX=$prefix" \
    "$rootfs" "$name:$version" >/dev/null
podman tag "$name:$version" "$name:latest"
rm -f "$rootfs"

# The image works as the pods run it: any user, read-only, no capability; every plugin loads. runc, not crun
# (which refuses hosts with hybrid cgroups); podman's default limits exceed what runc may set where root lacks
# CAP_SYS_RESOURCE, so the open files are the hard limit here and processes at most conmon's 32768.
run="podman --runtime runc run --rm --read-only --cap-drop=all --security-opt no-new-privileges \
    --ulimit nofile=$(ulimit -Hn):$(ulimit -Hn) --ulimit nproc=$nproc:$nproc --network none"
$run "$name:$version" renderfarm --version
$run --user 10001:10001 "$name:$version" renderfarm plugins >/dev/null ||
    { echo "image: renderfarm plugins fails in the image" >&2; exit 1; }

archive=$out/renderfarm-$version.oci.tar
rm -f "$archive"
podman save --quiet --format oci-archive -o "$archive" "$name:$version"
size=$(podman image inspect --format '{{.Size}}' "$name:$version")
echo "image: $name:$version (and :latest) in the podman store, $((size / 1000000)) MB;" \
    "OCI archive $archive, $(($(stat -c %s "$archive") / 1000000)) MB; built in $((SECONDS - start)) s"

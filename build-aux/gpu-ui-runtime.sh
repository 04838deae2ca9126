#!/bin/sh
# Gathers, on the Debian bookworm build machine, what the window needs on a
# GPU host that has no GTK and no package access: GTK 4, libadwaita,
# GtkSourceView and their libraries, Xvfb, fonts, and the compiled GSettings
# schemas. build-aux/gpu-ui-check.sh uses it there.
# Usage (from the project root): build-aux/gpu-ui-runtime.sh [DIR]   (default .gpu-ui-runtime)
set -eu
dir=${1:-.gpu-ui-runtime}
mkdir -p "$dir/debs" "$dir/schemas"
# Found with ldd on tests/test-kernel-editor (GStreamer for the camera input
# included), Xvfb and xkbcomp, less what
# every host has (glibc, libstdc++, libgcc) and what the GPU runtime bundle
# already brings (GLib, gdk-pixbuf, libepoxy, json-glib, the GL loaders).
libs="libadwaita-1-0 libaudit1 libbrotli1 libbsd0 libcairo-gobject2
libcairo-script-interpreter2 libcairo2 libcap-ng0 libcloudproviders0 libdatrie1 libfontconfig1
libfontenc1 libfreetype6 libfribidi0 libgraphene-1.0-0 libgraphite2-3 libgtk-4-1
libgtksourceview-5-0 libharfbuzz0b libicu72 liblzo2-2 libmd0 libpango-1.0-0 libpangocairo-1.0-0
libpangoft2-1.0-0 libpixman-1-0 libpng16-16 libthai0 libunwind8 libwayland-client0
libwayland-egl1 libx11-6 libxau6 libxcb-render0 libxcb-shm0 libxcb1 libxcursor1 libxdamage1
libxdmcp6 libxext6 libxfixes3 libxfont2 libxi6 libxinerama1 libxkbcommon0 libxkbfile1 libxml2
libxrandr2 libxrender1 libxcvt0 libxshmfence1 libxcb-xfixes0 libxcb-randr0 libpcre2-8-0 libffi8
libexpat1 libx11-data libthai-data libgtksourceview-5-common libgtk-4-common
libgstreamer1.0-0 libgstreamer-plugins-base1.0-0 liborc-0.4-0 libdw1 libelf1"
# These go to / on the host: programs and data at the paths they were built for.
system="xvfb x11-xkb-utils xkb-data xserver-common fonts-dejavu-core fontconfig-config"
[ -n "$(ls /var/lib/apt/lists 2>/dev/null | grep -v lock | head -1)" ] || apt-get update -qq
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64'
# shellcheck disable=SC2086
(cd "$dir/debs" && apt-get $o download $libs $system >/dev/null)
printf '%s\n' $system > "$dir/system.txt"
tmp=$(mktemp -d)
dpkg -x "$dir"/debs/libgtk-4-common_*.deb "$tmp"
cp "$tmp"/usr/share/glib-2.0/schemas/*.gschema.xml resources/*.gschema.xml "$dir/schemas/"
rm -rf "$tmp"
glib-compile-schemas "$dir/schemas"
du -sh "$dir" | sed 's/^/gpu ui runtime bundle: /'

# shellcheck shell=bash
# build-aux/setup.sh: the set-up that ./run.sh and ./test.sh share. Source it
# from the project root; it defines functions and runs nothing by itself.
#
#   ks_install_deps      installs the missing Debian packages (as root or via sudo)
#   ks_cuda_path         puts /usr/local/cuda/bin on PATH when it exists
#   ks_configure DIR …   meson setup DIR (or reconfigure it; wipes a broken one)
#   ks_build DIR         meson compile -C DIR
#   ks_setup             all of the above for build/
#
# Environment: KS_WERROR=true builds with -Dwerror=true (CI sets it);
# KS_MESON_ARGS adds options to meson setup; KS_BUILD_DIR overrides build/.

KS_PACKAGES="meson ninja-build pkg-config gcc g++ libglib2.0-dev libgdk-pixbuf-2.0-dev
libjson-glib-dev libepoxy-dev libgtk-4-dev libadwaita-1-dev libgtksourceview-5-dev xvfb xauth
libegl-dev python3 librsvg2-common desktop-file-utils appstream libglib2.0-bin libgtk-4-bin
groff-base gettext libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-pipewire"

ks_log ()
{
  printf '\033[1m==> %s\033[0m\n' "$*" >&2
}

ks_die ()
{
  printf 'error: %s\n' "$*" >&2
  exit 1
}

ks_install_deps ()
{
  local missing="" pkg sudo=""

  command -v dpkg-query >/dev/null 2>&1 || {
    ks_log "Not a Debian system: skipping the package check"
    return 0
  }
  for pkg in $KS_PACKAGES; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" != installed ]; then
      missing="$missing $pkg"
    fi
  done
  [ -z "$missing" ] && return 0

  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      ks_die "missing packages:$missing — run as root or install sudo"
    fi
  fi
  ks_log "Installing:$missing"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q || ks_die "apt-get update failed"
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing \
    || ks_die "apt-get install failed"
}

ks_cuda_path ()
{
  if [ -d /usr/local/cuda/bin ]; then
    case ":$PATH:" in
      *:/usr/local/cuda/bin:*) ;;
      *) PATH="$PATH:/usr/local/cuda/bin"; export PATH ;;
    esac
  fi
}

# ks_configure DIR [meson options…]
ks_configure ()
{
  local dir="$1"
  shift
  local opts="-Dwerror=${KS_WERROR:-false}"

  if [ -f "$dir/meson-private/coredata.dat" ]; then
    # shellcheck disable=SC2086
    if meson setup --reconfigure "$dir" $opts ${KS_MESON_ARGS:-} "$@" \
         >"$dir/.ks-configure.log" 2>&1; then
      return 0
    fi
    cat "$dir/.ks-configure.log" >&2
    ks_log "The configuration in $dir is broken: starting again"
  fi
  if [ -e "$dir" ]; then
    rm -rf -- "$dir"
  fi
  ks_log "Configuring $dir"
  # shellcheck disable=SC2086
  meson setup "$dir" $opts ${KS_MESON_ARGS:-} "$@" || ks_die "meson setup failed"
}

ks_build ()
{
  ks_log "Building $1"
  meson compile -C "$1" || ks_die "the build failed"
}

ks_setup ()
{
  ks_install_deps
  ks_cuda_path
  ks_configure "${KS_BUILD_DIR:-build}"
  ks_build "${KS_BUILD_DIR:-build}"
}

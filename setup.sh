#!/usr/bin/env bash
# vidfilter set-up: installs the Debian packages, builds, and runs one of the jobs.
#   ./setup.sh demo     set-up + build + filter the sample video into out/ (no camera, no display)
#   ./setup.sh test     set-up + build + the whole test suite (ctest)
#   ./setup.sh build    set-up + build only
#   ./setup.sh deps     install the packages only
#   ./setup.sh check-deps   install what the code checks need (tools/check-format, check-tidy)
# Idempotent: packages already installed are skipped, the build is incremental.
# BUILD_DIR (default build) and BUILD_TYPE (default Release) may be set in the environment.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(
  cmake ninja-build g++ pkg-config git
  libopencv-dev opencv-doc
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libspdlog-dev libcli11-dev libgtest-dev libtomlplusplus-dev qtbase5-dev libxcb1-dev fonts-dejavu-core
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
  libgstreamer1.0-dev ffmpeg gstreamer1.0-plugins-base gstreamer1.0-plugins-good xvfb xauth x11-apps imagemagick xdotool
  nlohmann-json3-dev slurm-wlm munge
)
# The code checks CI runs besides the build and the tests.
CHECK_PACKAGES=(clang-format clang-tidy)
BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
SAMPLE=/usr/share/doc/opencv-doc/examples/data/vtest.avi

say() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }

deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    say "packages: all ${#PACKAGES[@]} installed"
    return
  fi
  say "installing ${missing[*]}"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {
  deps
  say "building ($BUILD_TYPE) in $BUILD_DIR"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" ${CMAKE_ARGS:-} >/dev/null
  cmake --build "$BUILD_DIR"
}

case "${1:-}" in
  deps) deps ;;
  check-deps)
    PACKAGES=("${CHECK_PACKAGES[@]}")
    deps
    ;;
  build) build ;;
  demo)
    build
    mkdir -p out
    say "filtering $SAMPLE -> out/vtest_edges.mp4"
    "$BUILD_DIR/app/vidfilter" -y -i "$SAMPLE" --chain blur,sobel,hist,brightness \
      -o out/vtest_edges.mp4 --no-preview
    ;;
  test)
    build
    say "running the test suite"
    ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 600 -j "$(nproc)"
    ;;
  *)
    sed -n '2,9p' "$0" >&2
    exit 2
    ;;
esac

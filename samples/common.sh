# Shared by the demo scripts: finds the repository and the vidfilter binary.
# VIDFILTER=/path/to/vidfilter overrides; BUILD_DIR (default build) is where setup.sh builds.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VIDFILTER=${VIDFILTER:-$ROOT/${BUILD_DIR:-build}/app/vidfilter}
SAMPLE=/usr/share/doc/opencv-doc/examples/data/vtest.avi
if [[ ! -x $VIDFILTER ]]; then
  echo "demo: $VIDFILTER not found; build first: ./setup.sh build (or set VIDFILTER=...)" >&2
  exit 2
fi
have_display() { [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} ]]; }
run() { printf '+ %s\n' "$*" >&2; "$@"; }

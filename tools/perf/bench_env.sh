# Sourced by gpu_host.sh and sweep.sh, from the checkout's root: where the programs are, how they
# run and on which device (their headers describe BIN, BENCH, RUN and DEVICE).
bin=${BIN:-.gpu/bin}
bench=${BENCH:-$bin/vidfilter-bench}
run=${RUN:-}
[[ -z $run && -x .gpu/run ]] && run=.gpu/run
devices=(--device "${DEVICE-nvidia}")
[[ -z ${DEVICE-nvidia} ]] && devices=()  # DEVICE= (empty): the default device
export VIDFILTER_CACHE_DIR=${VIDFILTER_CACHE_DIR:-/tmp/vidfilter-cache}

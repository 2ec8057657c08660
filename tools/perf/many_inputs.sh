#!/usr/bin/env bash
# Several files through one device against one file alone, in the same run: the product's own
# path (`vidfilter -i A -i B ... --json`, no output: decode, upload, the chain, download), so
# the figure is what a user's job gets. Prints per run the frames, the fps, the device's busy
# share (the time any command ran over the run's wall time, from vidfilter's --json) and the
# host's CPU use (from /proc/stat over the run: all cores busy is 100%), then the ratio of N at
# once to one alone. With CAPACITY=1, a third run: max(2N, cores) copies at once (at most 64)
# with one decoder thread each, every core busy with a decoder of its own: an estimate of what
# the host's cores decode of FILE (software decoding).
#
#   tools/perf/many_inputs.sh FILE [N]         # N (default 8) copies of FILE at once
# Environment:
#   VIDFILTER  the program (default build/app/vidfilter; on the GPU host the bundle's, run
#              through RUN)
#   RUN        a wrapper the program runs through (default .gpu/run when it exists)
#   DEVICE     --device selector (default: the default device)
#   CHAIN      the chain (default gray,blur,sobel,hist,brightness)
#   ARGS       more options for every run, e.g. "--hwdec cuda"
#   REPEAT     runs of each configuration (default 2; the best is reported)
#   FRAMES     frames of each input (default: all)
#   OUT        where the JSON summaries and the table go (default out/many_inputs)
#   CAPACITY   1: also the run of copies with one thread each, above
set -euo pipefail
cd "$(dirname "$0")/../.."
file=${1:?usage: tools/perf/many_inputs.sh FILE [N]}
n=${2:-8}
prog=${VIDFILTER:-build/app/vidfilter}
run=${RUN:-}
[[ -z $run && -x .gpu/run ]] && run=.gpu/run
chain=${CHAIN:-gray,blur,sobel,hist,brightness}
repeat=${REPEAT:-2}
out=${OUT:-out/many_inputs}
mkdir -p "$out/inputs"
rm -f "$out"/*.json
devices=()
[[ -n ${DEVICE:-} ]] && devices=(--device "$DEVICE")
read -r -a extra <<< "${ARGS:-}"
frames=()
[[ -n ${FRAMES:-} ]] && frames=(--frames "$FRAMES")

# N distinct names for the same file (each input its own demuxer and decoder), as --inputs lists;
# with CAPACITY=1, as many as the capacity run takes.
capacity=${CAPACITY:-0}
copies=$((2 * n > $(nproc) ? 2 * n : $(nproc)))
((copies > 64)) && copies=64
names=$n
[[ $capacity == 1 ]] && names=$copies
realpath "$file" > "$out/one.list"
: > "$out/many.list"
: > "$out/capacity.list"
for ((i = 1; i <= names; ++i)); do
  ln -sf "$(realpath "$file")" "$out/inputs/in$i.${file##*.}"
  ((i <= n)) && echo "$out/inputs/in$i.${file##*.}" >> "$out/many.list"
  echo "$out/inputs/in$i.${file##*.}" >> "$out/capacity.list"
done

# Kernels built once (the program cache), so neither configuration pays for it.
$run "$prog" "${devices[@]}" "${extra[@]}" -i "$file" --chain "$chain" --frames 5 --no-preview --quiet > /dev/null

measure() {  # NAME JOBS [OPTION...]: the inputs of $out/NAME.list
  local name=$1 jobs=$2
  shift 2
  for ((r = 1; r <= repeat; ++r)); do
    head -1 /proc/stat > "$out/$name.$r.cpu"
    $run "$prog" "${devices[@]}" "${extra[@]}" "${frames[@]}" --inputs "$out/$name.list" --chain "$chain" --no-preview --quiet \
      --jobs "$jobs" --json "$out/$name.$r.json" -y "$@"
    head -1 /proc/stat >> "$out/$name.$r.cpu"
  done
}
measure one "$n"
measure many "$n"
[[ $capacity == 1 ]] && measure capacity "$copies" --threads 1

python3 - "$out" "$repeat" "$n" "$chain${ARGS:+ $ARGS}" "$capacity" "$copies" <<'EOF' | tee "$out/summary.txt"
import json, sys
out, repeat, n, chain = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
capacity, copies = sys.argv[5] == "1", int(sys.argv[6])
def cpu(name, r):  # the share of all cores busy over the run, from /proc/stat's "cpu" lines
    a, b = ([int(v) for v in line.split()[1:]] for line in open(f"{out}/{name}.{r}.cpu"))
    d = [y - x for x, y in zip(a, b)]
    idle = d[3] + d[4]  # idle, iowait
    return 1 - idle / sum(d) if sum(d) else 0
def best(name):
    runs = [json.load(open(f"{out}/{name}.{r}.json")) for r in range(1, repeat + 1)]
    for r, d in enumerate(runs, 1):
        d["cpu"] = cpu(name, r)
    for d in runs:
        if d["exit_status"] != 0:
            sys.exit(f"{name}: exit status {d['exit_status']}")
    def fps(d):
        return sum(j["frames_out"] for j in d["inputs"]) / d["elapsed_s"]
    d = max(runs, key=fps)
    return d, fps(d)
one, f1 = best("one")
many, fn = best("many")
print(f"chain {chain}; device {one['device']}")
print(f"{'run':<12}{'frames':>8}{'seconds':>10}{'fps':>10}{'host CPU':>10}  device busy")
rows = [("1 input", one, f1), (f"{n} at once", many, fn)]
if capacity:
    cap, fc = best("capacity")
    rows.append((f"{copies}, 1 thread", cap, fc))
for label, d, f in rows:
    frames = sum(j["frames_out"] for j in d["inputs"])
    busy = ", ".join(f"{k} {v:.1%}" for k, v in d["device_busy"].items())
    print(f"{label:<12}{frames:>8}{d['elapsed_s']:>10.2f}{f:>10.1f}{d['cpu']:>10.0%}  {busy}")
print(f"{n} at once / 1 alone: {fn / f1:.2f}x (best of {repeat} runs each)")
if capacity:
    print(f"{copies} with one decoder thread each / 1 alone: {fc / f1:.2f}x; "
          f"{n} at once: {fn / fc:.0%} of it")
EOF

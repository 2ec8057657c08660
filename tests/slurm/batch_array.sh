#!/usr/bin/env bash
# vidfilter batch as a Slurm job array on a real single-node Slurm: an array of 3 tasks over 6
# clips (each task 2, every third of the list); task 1 is requeued (scontrol requeue: SIGTERM,
# then it runs again) while it writes its second output. At the end every output exists once,
# with no partial file beside it, and ffprobe decodes every frame of its input; the requeued
# task redid only its unfinished output (its first output kept its inode and time, its second
# run's --json says skipped and done), and the other tasks' outputs were not written again.
# Needs root (slurmctld and slurmd run as root) and slurm-wlm + munge: exits 77 (skipped)
# without them. VIDFILTER: the binary; OUT: a scratch directory.
set -euo pipefail
VIDFILTER=${VIDFILTER:?the vidfilter binary}
OUT=${OUT:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
for tool in sbatch slurmctld slurmd munged scontrol squeue ffmpeg ffprobe; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (slurm-wlm, munge)"; exit 77; }
done
[[ $(id -u) -eq 0 ]] || { echo "SKIP: single-node Slurm runs its daemons as root"; exit 77; }

rm -rf "$OUT" && mkdir -p "$OUT"/{clips,out,slurm}
OUT=$(realpath "$OUT")
fail() { echo "FAIL: $*" >&2; for f in "$OUT"/slurm/log/*.log "$OUT"/task-*.log; do [[ -f $f ]] && { echo "== $f"; tail -20 "$f"; }; done >&2; exit 1; }
stop_slurm() {
  for p in slurmd slurmctld munged; do
    [[ -f $OUT/slurm/$p.pid ]] && kill "$(cat "$OUT/slurm/$p.pid")" 2>/dev/null || true
  done
}
trap stop_slurm EXIT

# Six clips; the fifth (index 4, task 1's second) runs long enough to be requeued in the middle.
frames=(24 30 18 26 600 22)
for i in "${!frames[@]}"; do
  size=$((96 + 16 * i))x$((72 + 8 * i)); [[ $i -eq 4 ]] && size=640x360
  ffmpeg -nostdin -v error -f lavfi -i "testsrc2=size=$size:rate=25" -frames:v "${frames[$i]}" \
    -c:v libx264 -preset ultrafast "$OUT/clips/clip$i.mp4"
  echo "$OUT/clips/clip$i.mp4"
done >"$OUT/inputs.txt"

port=$((17000 + RANDOM % 20000))
conf=$("$here/single_node.sh" "$OUT/slurm" "$port" | tail -1)
export SLURM_CONF=$conf

cat >"$OUT/task.sh" <<TASK
#!/usr/bin/env bash
exec "$VIDFILTER" batch --inputs "$OUT/inputs.txt" --chain gray,blur=sigma=2,sobel,brightness \
  -o "$OUT/out/{name}.mkv" --jobs 1 --json "$OUT/out/report_{shard}.json" --no-progress \
  --log-level warn
TASK
chmod +x "$OUT/task.sh"
job=$(sbatch --parsable --array=0-2 --requeue --output="$OUT/task-%a.log" --open-mode=append \
  "$OUT/task.sh")
echo "submitted array job $job"

# Task 1 (clip1, then clip4): requeue it once clip1 is done and clip4 is being written.
for _ in $(seq 600); do
  [[ -f $OUT/out/clip1.mkv && -f $OUT/out/.clip4.partial.mkv ]] && break
  sleep 0.1
done
[[ -f $OUT/out/.clip4.partial.mkv ]] || fail "task 1 never started clip4"
first=$(stat -c '%i %Y' "$OUT/out/clip1.mkv")
scontrol requeue "${job}_1"
echo "requeued ${job}_1 while it wrote clip4"
sleep 1
scontrol update jobid="${job}_1" StartTime=now 2>/dev/null || true
scontrol release "${job}_1" 2>/dev/null || true

for _ in $(seq 1200); do
  [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.25
  # A requeued task waits for its begin time; ask for now again until it runs.
  scontrol update jobid="${job}_1" StartTime=now 2>/dev/null || true
done
[[ -z $(squeue -h -j "$job") ]] || fail "the array did not finish"

for i in "${!frames[@]}"; do
  n=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
    -of default=nw=1:nk=1 "$OUT/out/clip$i.mkv" 2>/dev/null || true)
  [[ $n == "${frames[$i]}" ]] || fail "clip$i.mkv: $n frames decoded, ${frames[$i]} expected"
done
left=$(find "$OUT/out" -name '.*partial*' | wc -l)
[[ $left -eq 0 ]] || fail "$left partial files left"
[[ $(find "$OUT/out" -name '*.mkv' | wc -l) -eq 6 ]] || fail "not exactly 6 outputs"
[[ $(stat -c '%i %Y' "$OUT/out/clip1.mkv") == "$first" ]] || fail "clip1.mkv was written again"
# The requeued task's last run: clip1 skipped, clip4 done.
python3 - "$OUT/out/report_1.json" <<'PY' || fail "report_1.json: the requeued run did not skip clip1 and redo clip4"
import json, sys
doc = json.load(open(sys.argv[1]))
st = {i["input"].rsplit("/", 1)[1]: i["status"] for i in doc["inputs"]}
assert st == {"clip1.mp4": "skipped", "clip4.mp4": "done"}, st
assert doc["shard"].startswith("1/3"), doc["shard"]
PY
grep -q "stopped by SIGTERM" "$OUT/task-1.log" || fail "task 1's log does not say it was stopped"
# Tasks 0 and 2 ran once: their reports say done for both of their inputs.
for t in 0 2; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [i["status"] for i in d["inputs"]]==["done","done"], d' \
    "$OUT/out/report_$t.json" || fail "report_$t.json"
done
echo "PASS: 6 outputs complete, task 1 requeued mid-run redid clip4 only"

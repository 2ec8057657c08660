#!/bin/bash
# The probes built here (nvcc -O3 -arch=sm_90 -o .gpu/probe/<name> docs/perf/cuda_probe/<name>.cu,
# blur_probe5 with -DRADIUS=2), carried in .gpu/probe; OUT: where the reports go.
P=.gpu/probe; NCU=/usr/local/cuda/bin/ncu
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats"
for p in sobel_probe blur_probe blur_probe5; do $P/$p > $OUT/$p.txt 2>&1; echo "rc=$?" >> $OUT/$p.txt; done
timeout 60 $NCU $S -k regex:sobel -s 1 -c 1 $P/sobel_probe > $OUT/ncu_sobel.txt 2>&1
timeout 60 $NCU $S -k regex:blur_fused -s 1 -c 1 $P/blur_probe > $OUT/ncu_blur.txt 2>&1
timeout 60 $NCU $S -k regex:copy16 -c 1 $P/sobel_probe > $OUT/ncu_copy.txt 2>&1
timeout 40 $NCU $S -k regex:blur_fused -s 1 -c 1 $P/blur_probe5 > $OUT/ncu_blur5.txt 2>&1
cat $OUT/sobel_probe.txt $OUT/blur_probe.txt $OUT/blur_probe5.txt
for f in ncu_sobel ncu_blur ncu_blur5 ncu_copy; do echo "== $f"; grep -E "^\s+(Duration|Memory Throughput|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Executed Ipc Active|Issue Slots Busy|No Eligible|Warp Cycles Per Issued Instruction|Executed Instructions|Block Limit Registers|Block Limit Shared Mem|Mem Busy|Max Bandwidth|Mem Pipes Busy)" $OUT/$f.txt | head -24; grep -iE "^\s+(OPT|WRN).*" $OUT/$f.txt | head -4; done

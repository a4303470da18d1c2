"""GPU call: record ncu counter outputs and racecheck reports (both report modes) for the
variants the diagnosis must tell apart. Usage: python3 .scratch/record.py OUTDIR"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from grader import fixtures

ROOT = Path.cwd()
OUT = Path(sys.argv[1])
OUT.mkdir(parents=True, exist_ok=True)
WORK = Path("/tmp/rec")
shutil.rmtree(WORK, ignore_errors=True)
WORK.mkdir()

CANDIDATES = [
    "smsp__sass_inst_executed_op_shared_ld", "smsp__sass_inst_executed_op_shared_st",
    "smsp__inst_executed_op_shared_ld", "smsp__inst_executed_op_shared_st",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld", "l1tex__t_requests_pipe_lsu_mem_global_op_ld",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st", "l1tex__t_requests_pipe_lsu_mem_global_op_st",
    "sm__warps_active", "sm__maximum_warps_per_active_cycle_pct", "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_blocks", "launch__occupancy_limit_warps",
    "sm__pipe_fma_cycles_active", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st",
    "smsp__sass_average_data_bytes_per_wavefront_mem_shared", "dram__bytes_read", "dram__bytes_write", "gpu__time_duration",
]


def sh(cmd, log, timeout=120):
    t = time.time()
    with open(OUT / log, "w") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        try:
            rc = subprocess.run(list(map(str, cmd)), stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    print(f"{log}: rc {rc} in {time.time() - t:.1f} s", flush=True)
    return rc


q = subprocess.run(["ncu", "--query-metrics", "--chip", "gh100"], capture_output=True, text=True)
(OUT / "query-metrics.txt").write_text(q.stdout + q.stderr)
have = set(re.findall(r"^(\w+)\s", q.stdout, re.M))
metrics = []
for m in CANDIDATES:
    if m in have:
        if m.startswith("sm__warps_active"):
            metrics.append(m + ".avg.pct_of_peak_sustained_active")
        elif "average_data_bytes" in m:
            metrics.append(m + ".pct")
        elif m.startswith("launch__") or m.startswith("sm__maximum"):
            metrics.append(m)
        else:
            metrics.append(m + ".sum")
print("metrics:", metrics, flush=True)
(OUT / "metrics-used.txt").write_text("\n".join(metrics) + "\n")


def variant(lab, kind, name):
    """Builds labs/<lab> with the solution, a known-bad fixture or an alternative; returns the binary."""
    d = WORK / f"{lab}-{name}"
    src = d / "src"
    shutil.copytree(ROOT / "labs" / lab, src)
    if kind == "solution":
        shutil.copy(ROOT / "solutions" / lab / "kernels.cu", src / "kernels.cu")
    else:
        folder = fixtures.alternatives_dir(ROOT) if kind == "alt" else fixtures.known_bad_dir(ROOT)
        sub = fixtures.apply(ROOT, folder / lab / f"{name}.toml", d / "sub")
        shutil.copy(sub / "kernels.cu", src / "kernels.cu")
    out = d / "out"
    rc = sh(["make", "-s", "-j4", "lab-bin", f"LAB_SRC={src}", f"LAB_OUT={out}"], f"build-{lab}-{name}.log", 300)
    return out / "lab" if rc == 0 else None


NCU = [
    ("3.3-tiling", "solution", "solution", "transpose_tiled", "2048,2048", "transpose_tiled_kernel"),
    ("3.3-tiling", "bad", "unpadded_transpose", "transpose_tiled", "2048,2048", "transpose_tiled_kernel"),
    ("3.3-tiling", "alt", "transpose_xor_swizzle", "transpose_tiled", "2048,2048", "transpose_tiled_kernel"),
    ("3.3-tiling", "bad", "transpose_untransposed_tile", "transpose_tiled", "2048,2048", "transpose_tiled_kernel"),
    ("3.3-tiling", "solution", "solution", "matmul_tiled", "1024,1024,1024", "matmul_tiled_kernel"),
    ("3.3-tiling", "bad", "no_shared_matmul", "matmul_tiled", "1024,1024,1024", "matmul_tiled_kernel"),
    ("3.1-registers", "solution", "solution", "coalescing", "2048,2048", None),
    ("3.1-registers", "bad", "scale_rows_threadx_along_rows", "coalescing", "2048,2048", None),
]
RACE = [
    ("3.3-tiling", "bad", "no_end_barrier", "matmul_tiled", "64,64,100"),
    ("3.1-registers", "bad", "chase_shared_no_barrier", "latency_ladder", "50,16"),
    ("3.5-project", "bad", "sobel_no_barrier", "sobel_magnitude", "31,17"),
]
bins = {}
for lab, kind, name, *_ in NCU + RACE:
    if (lab, name) not in bins:
        bins[(lab, name)] = variant(lab, kind, name)

for lab, kind, name, ex, size, kernel in NCU:
    b = bins[(lab, name)]
    if b is None:
        continue
    rep = WORK / f"{lab}-{name}-{ex}"
    cmd = ["ncu", "--metrics", ",".join(metrics), "--launch-count", "3", "-f", "-o", rep]
    if kernel:
        cmd[1:1] = ["--kernel-name", kernel]
    sh([*cmd, b, "--exercise", ex, "--size", size, "--seed", "1", "--json", WORK / "doc.json"], f"ncu-{lab}-{name}-{ex}.log", 120)
    sh(["ncu", "--import", f"{rep}.ncu-rep", "--csv", "--page", "raw"], f"ncu-{lab}-{name}-{ex}.csv", 60)

for lab, kind, name, ex, size in RACE:
    b = bins[(lab, name)]
    if b is None:
        continue
    for mode in ("analysis", "hazard"):
        sh(["compute-sanitizer", "--tool", "racecheck", "--racecheck-report", mode, "--error-exitcode", "99",
            "--print-limit", "20", b, "--exercise", ex, "--size", size, "--seed", "1", "--json", WORK / "doc.json"],
           f"race-{lab}-{name}-{mode}.log", 120)

#!/usr/bin/env bash
# Written in session 38 (2026-12-05) without a GPU: the measurement that lab 3.4c's remake
# waits for (lab.toml, stencil_readonly: "TO DO ON A GPU: remake the reference kernel"). It
# grades the exercise stencil_readonly only:
# 1. the 3.4 solution (--exercise stencil_readonly, no sanitizer): its ratio stencil_plain /
#    stencil_readonly, its GB/s and the copy's, on this card (H200 2026-11-29: 0.807,
#    1572 vs 1949 GB/s);
# 2. test_alternatives.py's GPU test of every stencil_ro_* alternative, the five of session 38
#    first (stencil_ro_ldg_rolling8_128x1, rolling16_256x1, 128x2_interior_8rows,
#    row_pointers_32x8, float4_rows8), then the eight measured in sessions 13 and 19, each
#    figure kept in $L/figures (CML_ALTERNATIVE_FIGURES) so a pass cut short keeps its figures;
# 3. the solution again where time is left (its spread beside the alternatives');
# 4. summary.txt: the card, then one row a design: its test's verdict, ratio, its median ms
#    and GB/s (8 bytes a pixel over that median: the copy roof's bytes, as the judge counts
#    them), and % of the copy GB/s the solution's run measured on the same card.
# Compare ratios only with the solution's of this same call: the card may be an H100.
# Run as: LIMIT=240 bash bench/h200-2026-12-05-session38/g125.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-240}
source bench/device_prelude.sh "${NAME:-g125}" "$1"
LAB=3.4-constant-texture
nvidia-smi -L 2>&1 | sed 's/^/device: /' | tee -a "$L/summary.txt"
# lab 3.4 alone (the grader builds what a grading lacks; built first so that the workers below
# do not race to build the judge)
s 90 build make -k -j16 common "build/$LAB/student/lab" "build/$LAB/solution/lab" \
    "build/$LAB/judge"
sol() { # sol TAG: the solution's stencil_readonly graded, its JSON in $L/TAG.json
    s 90 "$1" python3 -m grader grade "labs/$LAB" --submission "solutions/$LAB" \
        --exercise stencil_readonly --no-sanitizer --json "$L/$1.json"
}
sol sol1
# NEW (session 39): the alternatives run first; float4_rows8 became the reference in session 38
NEW=${NEW:-"rolling8_128x1 rolling16_256x1 128x2_interior_8rows row_pointers_32x8 float4_rows8"}
T=grader/tests/test_alternatives.py::test_alternative_keeps_its_points_on_the_gpu
ids=()
for n in $NEW; do
    ids+=("${T}[$LAB/stencil_ro_ldg_$n]")
done
for f in "grader/tests/alternatives/$LAB"/stencil_ro_*.toml; do
    n=$(basename "$f" .toml)
    case " $NEW " in *" ${n#stencil_ro_ldg_} "*) continue ;; esac
    ids+=("${T}[$LAB/$n]")
done
echo "alternatives: ${#ids[@]}" | tee -a "$L/summary.txt"
export CML_ALTERNATIVE_FIGURES=$L/figures
t=$(($(left) - 35))
s $((t > 20 ? t : 20)) alts python3 -m pytest -v -rA -m gpu -n 8 -p no:cacheprovider --tb=short \
    "${ids[@]}"
unset CML_ALTERNATIVE_FIGURES
echo "alts: $(grep -cE ' PASSED' "$L/alts.log") passed, $(grep -cE ' FAILED' "$L/alts.log")" \
    "failed, $(find "$L/figures" -name '*.txt' 2>/dev/null | wc -l) figures" | tee -a "$L/summary.txt"
grep -E "^(FAILED|ERROR) " "$L/alts.log" | cut -c1-300 | tee -a "$L/summary.txt"
[ "$(left)" -gt 30 ] && sol sol2
python3 - "$L" "$LAB" <<'PY' | tee -a "$L/summary.txt"
import json, re, sys
from pathlib import Path
L, lab = Path(sys.argv[1]), sys.argv[2]
bytes_ = 8.0 * 8192 * 8192  # lab.toml's performance size: 8 bytes a pixel (in once, out once)
copy = None
rows = []
for tag in ("sol1", "sol2"):
    try:
        ex = json.loads((L / f"{tag}.json").read_text())["exercises"][0]
    except (OSError, ValueError, KeyError, IndexError):
        continue
    perf = ex["parts"]["performance"]
    d = (perf.get("details") or [{}])[0]
    copy = copy or d.get("copy_gbps")
    m = re.search(r"yours ([\d.]+) ms", perf.get("info") or "")
    rows.append((f"solution ({tag})", perf.get("status"), d.get("ratio"),
                 float(m[1]) if m else None, d.get("gbps")))
log = (L / "alts.log").read_text() if (L / "alts.log").is_file() else ""
for f in sorted((L / "figures").glob("*.txt")):
    line = f.read_text().strip()
    name = line.split(":", 1)[0].split("/")[-1]
    verdict = re.search(rf"(?:^|\s)(PASSED|FAILED|ERROR|SKIPPED) \S*\[{re.escape(f'{lab}/{name}')}\]",
                        log, re.M)
    ratio = re.search(r": ratio ([\d.]+)", line)
    ms = re.search(r"yours ([\d.]+) ms", line)
    ms = float(ms[1]) if ms else None
    rows.append((name, verdict[1] if verdict else "?", float(ratio[1]) if ratio else None, ms,
                 bytes_ / (ms * 1e6) if ms else None))
print(f"copy roof (the solution's run): {copy} GB/s")
print(f"{'design':40} {'test':8} {'ratio':>6} {'ms':>8} {'GB/s':>6} {'% copy':>6}")
for name, verdict, ratio, ms, gbps in sorted(rows, key=lambda r: -(r[2] or 0)):
    pct = f"{100 * gbps / copy:.0f}" if gbps and copy else "-"
    print(f"{name:40} {verdict or '-':8} {ratio if ratio is not None else '-':>6} "
          f"{ms if ms is not None else '-':>8} {f'{gbps:.0f}' if gbps else '-':>6} {pct:>6}")
PY
cat "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

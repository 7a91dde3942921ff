#!/usr/bin/env python3
"""Writes docs/validation.md: every row of the validation set (tests/data/validation/training_throughput.csv)
with the step time the core predicts, the published one and the error, as the validation test computes them.

    cmake --build --preset dev && scripts/validation-report.py [--test-binary build/dev/tests/test_core]

The numbers come from running the test ("[validation]", MESHSCOPE_VALIDATION_DETAIL=1), not from this script;
the page says at which commit it was written. Run it again after a change to the cost core.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "tests/data/validation/training_throughput.csv")
OUT = os.path.join(ROOT, "docs/validation.md")

ROW = re.compile(
    r"\[fidelity\] validation (\S+) +(\d+) (.+?) +TP(\d+) PP(\d+) v(\d+) CP(\d+) EP(\d+) DP(\d+) mbs (\d+) (\S+) (\S+): "
    r"predicted .*?; step ([0-9.]+) s, published ([0-9.]+) s, error +([-+0-9.]+) %(.*)$")
DETAIL = re.compile(
    r"\[fidelity\] validation (\S+) +forward ([0-9.]+), backward ([0-9.]+), recompute ([0-9.]+), TP ([0-9.]+), "
    r"CP ([0-9.]+), EP ([0-9.]+), PP ([0-9.]+), bubble ([0-9.]+), DP ([0-9.]+), optimizer ([0-9.]+) s(?:; known gaps: (.*))?$")
SKIP = re.compile(r"\[fidelity\] validation (\S+) +skipped: (.*)$")
MEMORY = re.compile(r"memory ([0-9.]+) GiB, published ([0-9.]+), error ([-+0-9.]+) %")

SOURCES = {
    "dgxc": "NVIDIA DGX Cloud Benchmarking (dgxc-benchmarking READMEs, NeMo 24.09–25.04)",
    "mb2509": "Megatron-Bridge performance summary, NeMo 25.09",
    "mb2511": "Megatron-Bridge performance summary, NeMo 25.11",
    "mb2602": "Megatron-Bridge performance summary, NeMo 26.02",
    "mbapi": "Megatron-Bridge API reference recipe",
    "tt": "torchtitan's published performance tables",
    "megascale": "MegaScale (Jiang et al., NSDI 2024)",
    "mtnlg": "MT-NLG 530B (Smith et al. 2022)",
    "bloom": "BLOOM 176B (BigScience 2022)",
    "log": "training logs in ../shared/data/training_logs",
}


def run_test(binary):
    env = dict(os.environ, MESHSCOPE_VALIDATION_DETAIL="1")
    done = subprocess.run([binary, "[validation]", "-s"], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{binary} \"[validation]\" failed (exit {done.returncode}); fix the test first")
    return done.stdout.splitlines()


def run_plausibility(binary):
    """Every expressible row searched under its own framework (tests/core/test_plausibility.cpp)."""
    done = subprocess.run([binary, "[.plausibility-all]", "-s"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{binary} \"[.plausibility-all]\" failed (exit {done.returncode}); fix the test first")
    pattern = re.compile(r"^\[plausibility\] (\S+)\s+(\S+)\s+top (.*?)\s+([0-9.]+)x best published  runnable (\d)  "
                         r"within 15% (\d)  published near top (\d)")
    rows = []
    for line in done.stdout.splitlines():
        m = pattern.match(line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3), float(m.group(4)), m.group(5) == "1",
                         m.group(6) == "1", m.group(7) == "1"))
    return rows


def plausibility_section(rows, catalogue):
    """The section on the ranked list's top: the criteria, the summary and every row's verdict."""
    out = ["## A believable top of the ranked list\n"]
    passed = [r for r in rows if r[4] and r[5] and r[6]]
    out.append(
        "For every expressible row, `rank` searches the row's model, cluster, batch, sequence and precision under the "
        "framework its source ran (NeMo and Megatron-Bridge: `megatron-bridge`; torchtitan; Megatron-LM; "
        "Megatron-DeepSpeed: `deepspeed`) with the recipe settings the validation test uses, and its top layout is "
        "judged as issue 41 asks: (a) the framework runs it, (b) its predicted throughput is at most 1.15× the best "
        "published throughput of that model, GPU, GPU count, batch, sequence and precision, and (c) the published "
        "layout's TP · PP · CP · EP · DP is among the top 10, or the model predicts it within the top layout's "
        "uncertainty of it. `tests/core/test_plausibility.cpp` checks nine of these rows in CI (A100, H100 and "
        "GB200, dense and MoE); the hidden `[.plausibility-all]` case prints all of them.\n")
    out.append(f"**{len(passed)} of {len(rows)} rows meet all three.** (a) fails for "
               f"{sum(1 for r in rows if not r[4])}, (b) for {sum(1 for r in rows if not r[5])}, (c) for "
               f"{sum(1 for r in rows if not r[6])}.\n")
    out.append("Where (b) fails the model's top is faster than anything measured: the regimes of the validation set's "
               "known gaps (fine-grained MoE at small micro-batches, PyTorch's context parallelism, the MI300X log) "
               "and the A100 GPT-175B runs of MegaScale and MT-NLG, which the model already predicts 5–23 % fast "
               "at their own layouts; the search then adds what it finds in the knobs those runs did not use "
               "(TP overlap, no recompute, deeper interleaving).\n")
    out.append("| row | framework | top layout | top / best published | (a) runs | (b) ≤ 1.15× | (c) published near top |")
    out.append("|---|---|---|---:|:-:|:-:|:-:|")
    mark = lambda ok: "yes" if ok else "**no**"
    for row_id, framework, top, ratio, a, b, c in rows:
        out.append(f"| `{row_id}` | {framework} | {top} | {ratio:.2f}× | {mark(a)} | {mark(b)} | {mark(c)} |")
    out.append("")
    return out


def git_head():
    """The commit the numbers come from; a working tree that differs from it in core/ or tests/ says so."""
    head = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h (%cs)"], capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "core", "tests"], capture_output=True,
                           text=True, check=True).stdout.strip()
    return head + (" with uncommitted changes to core/ or tests/" if dirty else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--test-binary", default=os.path.join(ROOT, "build/dev/tests/test_core"))
    args = parser.parse_args()

    catalogue = {row["id"]: row for row in csv.DictReader(open(CSV, newline="", encoding="utf-8"))}
    rows, details, skipped = {}, {}, {}
    for line in run_test(args.test_binary):
        if m := ROW.search(line):
            rows[m.group(1)] = m
        elif m := DETAIL.search(line):
            details[m.group(1)] = m
        elif m := SKIP.search(line):
            skipped[m.group(1)] = m.group(2)
    if not rows:
        sys.exit("the test printed no validation rows")

    errors = [float(m.group(15)) for m in rows.values()]
    absolute = [abs(e) for e in errors]
    by_source = defaultdict(list)
    for row_id, m in rows.items():
        by_source[row_id.split("_")[0]].append(float(m.group(15)))

    out = []
    out.append("# Validation: the published runs the cost core is checked against\n")
    out.append(
        f"Written by `scripts/validation-report.py` at commit {git_head()} from the validation test "
        "(`tests/core/test_validation_set.cpp`), which predicts every row of "
        "[`tests/data/validation/training_throughput.csv`](../tests/data/validation/training_throughput.csv) "
        "with the configuration its source states and the recipe settings the test names beside each family "
        "(provenance: [`tests/data/validation/README.md`](../tests/data/validation/README.md)). Nothing here was "
        "fitted: the rows check the model, they do not tune it. The error is predicted step time / published "
        "step time − 1, so a negative error means the run was slower than predicted. How the model works and "
        "what the known gaps are: [estimate.md §5](estimate.md#5-how-close-it-comes).\n")
    out.append(
        f"**{len(rows)} rows: median |error| {statistics.median(absolute):.1f} %, maximum {max(absolute):.1f} %; "
        f"{sum(a > 10 for a in absolute)} beyond 10 %, {sum(a > 20 for a in absolute)} beyond 20 %.** "
        f"{len(skipped)} rows are skipped, each for the reason listed at the end. The target the model is held to: "
        "a median of 10 % and a maximum of 20 %.\n")

    out.append("## By source\n")
    out.append("| source | rows | median error | from | to |\n|---|---:|---:|---:|---:|")
    for source, values in sorted(by_source.items(), key=lambda item: -len(item[1])):
        out.append(f"| {SOURCES.get(source, source)} (`{source}_`) | {len(values)} | {statistics.median(values):+.1f} % "
                   f"| {min(values):+.1f} % | {max(values):+.1f} % |")
    out.append("")

    memory_rows = [(row_id, MEMORY.search(m.group(16))) for row_id, m in rows.items() if MEMORY.search(m.group(16))]
    if memory_rows:
        out.append("## Peak memory\n")
        out.append("| row | predicted GiB | published GiB | error |\n|---|---:|---:|---:|")
        for row_id, mm in memory_rows:
            out.append(f"| `{row_id}` | {mm.group(1)} | {mm.group(2)} | {float(mm.group(3)):+.1f} % |")
        out.append("")

    out.append("## Every row\n")
    out.append("Layout: TP · PP · virtual stages · CP · EP · DP, micro-batch; the busiest pipeline stage's step splits "
               "into compute (forward, backward, recompute) and the exposed communication and bubble. Rows beyond "
               "20 % are in bold; a known gap is a regime where the published runs disagree with the model and the "
               "estimate says so ([estimate.md, Known gaps](estimate.md#known-gaps)).\n")
    out.append("| row | model | GPUs | layout | precision, recompute | predicted s | published s | error | "
               "compute s | exposed comm + bubble s | known gaps |")
    out.append("|---|---|---:|---|---|---:|---:|---:|---:|---:|---|")
    for row_id, m in rows.items():
        d = details.get(row_id)
        compute = exposed = gaps = ""
        if d:
            compute = f"{sum(float(d.group(i)) for i in (2, 3, 4)):.3f}"
            exposed = f"{sum(float(d.group(i)) for i in range(5, 12)):.3f}"
            gaps = (d.group(12) or "").replace("_", "\\_")
        error = float(m.group(15))
        text = f"{error:+.1f} %"
        if abs(error) > 20:
            text = f"**{text}**"
        model = catalogue.get(row_id, {}).get("model", "")
        gpu = catalogue.get(row_id, {}).get("gpu", "") or m.group(3).strip()
        layout = (f"{m.group(4)} · {m.group(5)} · {m.group(6)} · {m.group(7)} · {m.group(8)} · {m.group(9)}, "
                  f"mbs {m.group(10)}")
        out.append(f"| `{row_id}` | {model} | {m.group(2)} × {gpu} | {layout} | {m.group(11)}, "
                   f"{m.group(12)} | {m.group(13)} | {m.group(14)} | {text} | {compute} | {exposed} | {gaps} |")
    out.append("")
    if skipped:
        out.append("## Skipped rows\n")
        out.append("| row | why |\n|---|---|")
        for row_id, why in skipped.items():
            out.append(f"| `{row_id}` | {why} |")
        out.append("")
    out += plausibility_section(run_plausibility(args.test_binary), catalogue)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {len(rows)} rows, {len(skipped)} skipped")
    # The search's uncertainty bands come from the document just written (core/search/ties.hpp).
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts/validation-bands.py")], check=True)


if __name__ == "__main__":
    main()

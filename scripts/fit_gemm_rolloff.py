#!/usr/bin/env python3
"""Fit the GEMM size roll-off of core/estimate/gemm_rate.cpp to XLA's measured GEMM tables.

The measured maximum achievable rate R of each GPU comes from ../shared/fidelity/mamf.csv (the
Maximum Achievable Matmul FLOPS table) and is NOT fitted; this script only shapes the roll-off
below it from the measured GEMMs of 375 shapes per GPU (b x m x n x k, 256..4096, batch 1/2/4) in

  gemm_measured_xla_multiarch.csv  sm_90 (H100), sm_100_B200 (B200)
  gemm_measured_xla_gfx942.csv     gfx942 (MI300X)

with the bf16 x bf16 -> bf16 rows. The model (docs/estimate.md, "GEMM rate"):

  t = floor + max(F / (R * u_k * u_wave), bytes / (HBM * bandwidth_share))
  u_k    = K / (K + k_half)                                   main-loop fill/drain per tile
  u_wave = max over tiles T of e_T * (tiles' work) / (waves * units * tile)   wave quantisation

Pure Python (no numpy); prints the catalogue fields. Run: python3 scripts/fit_gemm_rolloff.py ../shared
"""
import csv, math, sys

SHARED = sys.argv[1] if len(sys.argv) > 1 else "../shared"
# arch -> (table, measured achievable bf16 FLOP/s from mamf.csv, HBM B/s from resources/gpus.json, units)
GPUS = {
    "sm_90": ("gemm_measured_xla_multiarch.csv", 794.5e12, 3.35e12, 132),
    "sm_100_B200": ("gemm_measured_xla_multiarch.csv", 1745.0e12, 7.7e12, 148),
    "gfx942": ("gemm_measured_xla_gfx942.csv", 668.4e12, 5.3e12, 304),
}
TILES = [(256, 128), (128, 128), (64, 64)]


def wave(b, m, n, units, eff):
    best = 0.0
    for (tm, tn), e in zip(TILES, eff):
        for a, c in ((tm, tn), (tn, tm)):
            tiles = b * math.ceil(m / a) * math.ceil(n / c)
            best = max(best, e * (b * m * n / (a * c)) / (math.ceil(tiles / units) * units))
    return best


def rate(p, row, R, hbm, units):
    floor, k_half, e1, e2, share = p
    b, m, n, k = row[:4]
    flops = 2.0 * b * m * n * k
    u = k / (k + k_half) * wave(b, m, n, units, (1.0, e1, e2))
    t = floor + max(flops / (R * u), 2.0 * b * (m * k + k * n + m * n) / (hbm * share))
    return flops / t


def clamp(p):
    return [max(1e-7, p[0]), max(1.0, p[1]), min(1.0, max(0.05, p[2])), min(1.0, max(0.05, p[3])),
            min(1.0, max(0.5, p[4]))]  # a GEMM streams at least half of HBM


def nelder_mead(f, x0, iters=2000):
    n = len(x0)
    pts = [list(x0)] + [[x * (1.3 if i == j else 1.0) for j, x in enumerate(x0)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        r = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = f(r)
        if fr < vals[0]:
            e = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = f(e)
            pts[-1], vals[-1] = (e, fe) if fe < fr else (r, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = r, fr
        else:
            k = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fk = f(k)
            if fk < vals[-1]:
                pts[-1], vals[-1] = k, fk
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
    return clamp(pts[min(range(n + 1), key=lambda i: vals[i])])


for arch, (table, R, hbm, units) in GPUS.items():
    rows = [(int(r["b"]), int(r["m"]), int(r["n"]), int(r["k"]), float(r["flops_per_s"]))
            for r in csv.DictReader(open(f"{SHARED}/fidelity/{table}"))
            if r["arch"] == arch and r["dtype"] == "bf16xbf16->bf16"]
    loss = lambda p: sum(math.log(rate(clamp(p), r, R, hbm, units) / r[4]) ** 2 for r in rows) / len(rows)
    p = nelder_mead(loss, [5e-6, 100.0, 0.9, 0.6, 0.9])
    errs = sorted(abs(rate(p, r, R, hbm, units) / r[4] - 1) for r in rows)
    print(f'{arch}: "kernel_floor_us": {p[0] * 1e6:.2f}, "k_half": {p[1]:.0f}, '
          f'"tile_128x128": {p[2]:.2f}, "tile_64x64": {p[3]:.2f}, "bandwidth_share": {p[4]:.2f}'
          f'  (median {100 * errs[len(errs) // 2]:.1f} %, max {100 * errs[-1]:.1f} %)')

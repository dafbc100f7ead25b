#!/usr/bin/env python3
"""Draws Figs. 3 and 4 of the SVM-GSU paper's sampling experiment from bench/sampling.sh's
rows and prints the numbers drawn as Markdown.

    python3 bench/sampling_figures.py RUNS.tsv TOY.tsv FIG3.svg FIG4.svg

RUNS.tsv: dim, n, rep, angle (degrees between LSVM-sampling's and LSVM-GSU's normals),
lsvm_angle (... and LSVM's), w, b, rows, seconds. TOY.tsv: kind ('toy' rows: the 2-D
Gaussians' label, mean and covariance; 'LSVM' and 'LSVM-GSU' rows: a model's w and b per
dim). Fig. 3: the 2-D Gaussians drawn as the ellipse where the density is 0.03 % of its
maximum (as the paper draws them), LSVM (blue, dashed) and LSVM-GSU (red) in panel (a),
LSVM-sampling of the first sampling at N = 10, 100, 1000 against LSVM-GSU in (b)-(d).
Fig. 4: the angle against N (log axis), mean over the samplings with the range as a band,
2-D and 3-D, and the paper's two printed points (1.7 degrees at N = 10^3 in 2-D and at
N = 5 * 10^4 in 3-D) as hollow markers. Needs python3-matplotlib (Debian).
"""
import collections
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the back end is chosen)

PAPER = {2: (1000, 1.7), 3: (50000, 1.7)}  # Sect. 4.1: theta ~ 1.7 degrees at these N
THRESHOLD = 1.7


def floats(text):
    return [float(x) for x in text.replace("{", "").replace("}", "").split(",")] if text else []


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def line(ax, w, b, style, label, lim):
    """the line w'x + b = 0 across the box [-lim, lim]^2"""
    xs = [-lim, lim]
    if abs(w[1]) > abs(w[0]):
        ax.plot(xs, [-(b + w[0] * x) / w[1] for x in xs], style, label=label)
    else:
        ax.plot([-(b + w[1] * y) / w[0] for y in xs], xs, style, label=label)


def ellipses(ax, toy):
    r = math.sqrt(-2 * math.log(0.0003))  # density 0.03 % of its maximum
    for t in toy:
        m = floats(t["mean"])
        c = floats(t["cov"])  # {{a,b},{b,d}} flattened
        a, b, d = c[0], c[1], c[3]
        # eigen-decomposition of the 2 x 2 covariance
        tr, det = a + d, a * d - b * b
        disc = math.sqrt(max(tr * tr / 4 - det, 0))
        l1, l2 = tr / 2 + disc, max(tr / 2 - disc, 0)
        ang = 0.5 * math.atan2(2 * b, a - d)
        pts = [
            (m[0] + r * (math.sqrt(l1) * math.cos(s) * math.cos(ang) - math.sqrt(l2) * math.sin(s) * math.sin(ang)),
             m[1] + r * (math.sqrt(l1) * math.cos(s) * math.sin(ang) + math.sqrt(l2) * math.sin(s) * math.cos(ang)))
            for s in [2 * math.pi * k / 60 for k in range(61)]
        ]
        colour = "tab:green" if int(t["label"]) > 0 else "tab:red"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colour, lw=0.5, alpha=0.6)
        ax.plot(m[0], m[1], "+" if int(t["label"]) > 0 else "x", color=colour)


def main():
    runs_path, toy_path, fig3, fig4 = sys.argv[1:5]
    runs = read_tsv(runs_path)
    toyrows = read_tsv(toy_path)
    toy = [t for t in toyrows if t["kind"] == "toy"]
    model = {(t["kind"], int(t["dim"])): (floats(t["w"]), float(t["b"])) for t in toyrows if t["kind"] != "toy"}

    by = collections.defaultdict(list)
    for r in runs:
        by[(int(r["dim"]), int(r["n"]))].append(r)
    dims = sorted({d for d, _ in by})
    ns = sorted({n for _, n in by})

    # the angle between LSVM and LSVM-GSU: what sampling has to close
    print("Angle between LSVM's and LSVM-GSU's normals: " + ", ".join(
        "%d-D %.2f°" % (d, math.degrees(math.acos(max(-1, min(1, sum(x * y for x, y in zip(model[("LSVM", d)][0], model[("LSVM-GSU", d)][0]))
                                                              / math.sqrt(sum(x * x for x in model[("LSVM", d)][0]) * sum(y * y for y in model[("LSVM-GSU", d)][0])))))))
        for d in dims if ("LSVM", d) in model) + ".")
    print()
    print("Angle θ (degrees) between LSVM-sampling's and LSVM-GSU's normals, mean (min–max) over the samplings:")
    print()
    print("| N per Gaussian | " + " | ".join("%d-D θ" % d for d in dims) + " | " + " | ".join("%d-D rows" % d for d in dims) + " |")
    print("|---|" + "---|" * (2 * len(dims)))
    stats = {}
    for n in ns:
        cells, rows = [], []
        for d in dims:
            a = [float(r["angle"]) for r in by.get((d, n), [])]
            if a:
                stats[(d, n)] = (sum(a) / len(a), min(a), max(a))
                cells.append("%.3f (%.3f–%.3f)" % stats[(d, n)])
                rows.append(by[(d, n)][0]["rows"])
            else:
                cells.append("")
                rows.append("")
        print("| %d | %s | %s |" % (n, " | ".join(cells), " | ".join(rows)))
    print()
    for d in dims:
        first = next((n for n in ns if (d, n) in stats and stats[(d, n)][0] <= THRESHOLD), None)
        pn, pa = PAPER.get(d, (None, None))
        print("* %d-D: the mean θ first falls to %.1f° or below at N = %s (the paper: θ ≈ %.1f° at N = %s)." % (
            d, THRESHOLD, first if first else "none of those run", pa or 0, pn))
    print()

    # Fig. 3
    if toy and ("LSVM-GSU", 2) in model:
        lim = max(max(abs(v) for v in floats(t["mean"])) for t in toy) + 3
        fig, axes = plt.subplots(1, 4, figsize=(16, 4.4))
        panels = [("(a) LSVM and LSVM-GSU", None), ("(b) N = 10", 10), ("(c) N = 100", 100), ("(d) N = 1000", 1000)]
        for ax, (title, n) in zip(axes, panels):
            ellipses(ax, toy)
            w, b = model[("LSVM-GSU", 2)]
            line(ax, w, b, "r-", "LSVM-GSU", lim)
            if n is None:
                w, b = model[("LSVM", 2)]
                line(ax, w, b, "b--", "LSVM", lim)
            else:
                first = [r for r in by.get((2, n), []) if r["rep"] == "1"]
                if first:
                    line(ax, floats(first[0]["w"]), float(first[0]["b"]), "k--", "LSVM-sampling", lim)
            ax.set_xlim(-lim, lim)
            ax.set_ylim(-lim, lim)
            ax.set_aspect("equal")
            ax.set_title(title)
            ax.legend(loc="lower right", fontsize=7)
        fig.tight_layout()
        fig.savefig(fig3)

    # Fig. 4
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    colours = {2: "tab:blue", 3: "tab:orange"}
    for d in dims:
        xs = [n for n in ns if (d, n) in stats]
        ax.plot(xs, [stats[(d, n)][0] for n in xs], "-o", ms=3, color=colours.get(d), label="%d-D (ours, mean)" % d)
        ax.fill_between(xs, [stats[(d, n)][1] for n in xs], [stats[(d, n)][2] for n in xs], color=colours.get(d), alpha=0.2)
        if d in PAPER:
            ax.plot([PAPER[d][0]], [PAPER[d][1]], "o", mfc="none", ms=9, color=colours.get(d), label="%d-D (paper's printed point)" % d)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("samples N per Gaussian")
    ax.set_ylabel("angle θ (degrees)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(fig4)
    print("Figures: %s, %s." % (fig3, fig4))


if __name__ == "__main__":
    main()

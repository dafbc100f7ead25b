#!/usr/bin/env python3
"""Draws Figs. 5 and 6 of the SVM-GSU paper's MNIST experiment from the per-run rows of
bench/mnist_table1.sh, beside the values the paper prints (Table 1), and prints the
numbers drawn as Markdown.

    python3 bench/mnist_figures.py fig5 bench/mnist_table1-runs-pcurve.tsv bench/mnist_fig5.svg
    python3 bench/mnist_figures.py fig6 bench/mnist_table1-runs-sizes.tsv bench/mnist_fig6.svg

Runs rows (TSV): run, size, dataset, method, lambda, p, accuracy, clean_accuracy, b, c,
seconds. Fig. 5: test accuracy against the fraction p of variance kept, one panel per
data set, the subspace methods' mean and standard deviation over the runs at each p,
LSVM as a solid line with dashed lines one standard deviation away, LSVM-GSU (rhombus),
PSVM (circle) and LSVM-iso (star) at p = 1 as the paper draws them; hollow markers are
the paper's Table 1 values (its Fig. 5 prints no other numbers). Fig. 6: accuracy
against the training images per class on the data sets present (the paper: D3 at
p = 0.85, D4 at p = 0.95); hollow markers are Table 1's values, which the paper gives
for 25 images per class. Needs python3-matplotlib (Debian).
"""
import collections
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the back end is chosen)

# Tzelepis et al., TPAMI 2018, Table 1, and the p of its subspace row
PAPER = {
    "LSVM": [0.9952, 0.9362, 0.8240, 0.6830, 0.6558, 0.6027],
    "PSVM": [0.9963, 0.9315, 0.8157, 0.7017, 0.6650, 0.6259],
    "LSVM-iso": [0.9968, 0.9327, 0.8133, 0.7222, 0.6675, 0.6328],
    "LSVM-GSU": [0.9971, 0.9452, 0.8310, 0.7216, 0.6708, 0.6353],
    "LSVM-GSU (subspaces)": [0.9972, 0.9480, 0.8562, 0.7543, 0.6974, 0.6640],
}
PAPER_P = [0.99, 0.97, 0.89, 0.85, 0.95, 0.25]
# marker of a method drawn as a point at p = 1 (Fig. 5) or as a line (Fig. 6)
STYLE = {
    "LSVM": dict(color="black", marker="s"),
    "PSVM": dict(color="tab:red", marker="o"),
    "LSVM-iso": dict(color="tab:green", marker="*", markersize=11),
    "LSVM-GSU": dict(color="tab:blue", marker="D"),
    "LSVM-GSU (full Σ)": dict(color="tab:purple", marker="D"),
    "LSVM-GSU (subspaces)": dict(color="tab:blue", marker="v"),
    "LSVM-GSU (subspaces, mean kept)": dict(color="tab:cyan", marker="^"),
    "LSVM-GSU (full Σ, subspaces)": dict(color="tab:purple", marker="v"),
    "LSVM-GSU (full Σ, subspaces, mean kept)": dict(color="tab:pink", marker="^"),
    "LSVM-GSU (authors' code)": dict(color="tab:gray", marker="x"),
}


def save(fig, out):
    # no date in an SVG's metadata: the same runs draw the same file
    fig.savefig(out, metadata={"Date": None} if out.endswith(".svg") else None)


def read_runs(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) < 8:
                continue
            rows.append(dict(run=int(c[0]), size=int(c[1]), dataset=int(c[2]), method=c[3],
                             p=None if c[5] == "\\N" else float(c[5]), accuracy=float(c[6])))
    if not rows:
        sys.exit(f"{path}: no runs rows")
    return rows


def stats(values):
    m = sum(values) / len(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return m, sd


def is_curve(method):
    return "subspaces" in method or method.startswith("LSVM-GSU (authors'")


def group(rows, key):
    g = collections.defaultdict(list)
    for r in rows:
        g[key(r)].append(r["accuracy"])
    return g


def curve(ax, meth, xs, samples):
    """one method's mean and standard deviation at each x"""
    ms = [stats(v) for v in samples]
    st = STYLE[meth]
    ax.errorbar(xs, [a for a, _ in ms], yerr=[s for _, s in ms], color=st["color"], marker=st["marker"],
                ms=5, lw=1, capsize=2, label=meth)


def paper_point(ax, x, y, meth, label, marker=None):
    """a value the paper prints, as a hollow marker"""
    st = STYLE[meth]
    ax.plot([x], [y], ls="none", marker=marker or st["marker"], ms=st.get("markersize", 7) + 2,
            mfc="none", mec=st["color"], label=label)


def fig5(rows, out):
    datasets = sorted({r["dataset"] for r in rows})
    n_runs = len({r["run"] for r in rows})
    curves = group([r for r in rows if is_curve(r["method"])], lambda r: (r["method"], r["p"], r["dataset"]))
    points = group([r for r in rows if not is_curve(r["method"])], lambda r: (r["method"], r["dataset"]))
    curve_methods = [m for m in STYLE if any(k[0] == m for k in curves)]
    point_methods = [m for m in STYLE if any(k[0] == m for k in points)]
    ps = sorted({k[1] for k in curves}, reverse=True)
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5), squeeze=False)
    for ax, k in zip(axes.flat, datasets):
        if ("LSVM", k) in points:
            m, sd = stats(points[("LSVM", k)])
            ax.axhline(m, color="black", lw=1.2, label="LSVM (pg_gsu)")
            ax.axhline(m - sd, color="black", lw=0.8, ls="--")
            ax.axhline(m + sd, color="black", lw=0.8, ls="--")
        ax.axhline(PAPER["LSVM"][k], color="black", lw=1, ls=":", label="LSVM (paper)")
        for meth in curve_methods:
            xs = [p for p in ps if (meth, p, k) in curves]
            curve(ax, meth, xs, [curves[(meth, p, k)] for p in xs])
        for meth in point_methods:
            if meth == "LSVM" or (meth, k) not in points:
                continue
            m, sd = stats(points[(meth, k)])
            st = STYLE[meth]
            ax.errorbar([1.0], [m], yerr=[sd], color=st["color"], marker=st["marker"],
                        ms=st.get("markersize", 7), capsize=2, ls="none", label=meth)
        for meth in ("LSVM-GSU", "PSVM", "LSVM-iso"):
            paper_point(ax, 1.0, PAPER[meth][k], meth, f"{meth} (paper)")
        paper_point(ax, PAPER_P[k], PAPER["LSVM-GSU (subspaces)"][k], "LSVM-GSU", "LSVM-GSU subspaces at its p (paper)",
                    marker="v")
        ax.set_title(f"D{k}")
        ax.set_xlabel("fraction of variance kept, p")
        ax.set_ylabel("test accuracy")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(datasets):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(f"MNIST 1 vs 7, 25 images per class, {n_runs} runs: accuracy against p (cf. the paper's Fig. 5)")
    fig.tight_layout(rect=(0, 0.1, 1, 0.96))
    save(fig, out)
    print(f"Fig. 5 ({out}): mean test accuracy over {n_runs} runs at each p; λ by 3-fold cross-validation at that p.")
    print()
    print("| method | p | " + " | ".join(f"D{k}" for k in datasets) + " |")
    print("|---|---|" + "---|" * len(datasets))
    for meth in point_methods:
        cells = [f"{stats(points[(meth, k)])[0]:.4f}" if (meth, k) in points else "—" for k in datasets]
        print(f"| {meth} | — | " + " | ".join(cells) + " |")
    for meth in curve_methods:
        for p in ps:
            cells = [f"{stats(curves[(meth, p, k)])[0]:.4f}" if (meth, p, k) in curves else "—" for k in datasets]
            print(f"| {meth} | {p:g} | " + " | ".join(cells) + " |")
    for meth in curve_methods:
        best = []
        for k in datasets:
            cand = [(stats(curves[(meth, p, k)])[0], p) for p in ps if (meth, p, k) in curves]
            best.append(f"{max(cand)[0]:.4f} (p {max(cand)[1]:g})" if cand else "—")
        print(f"| {meth}, best p on the test set (an upper bound) | — | " + " | ".join(best) + " |")
    print("| LSVM-GSU (subspaces), paper | — | " + " | ".join(
        f"{PAPER['LSVM-GSU (subspaces)'][k]:.4f} (p {PAPER_P[k]})" for k in datasets) + " |")


def fig6(rows, out):
    datasets = sorted({r["dataset"] for r in rows})
    g = group(rows, lambda r: (r["method"], r["dataset"], r["size"]))
    methods = [m for m in STYLE if any(k[0] == m for k in g)]
    sizes = sorted({r["size"] for r in rows})
    fig, axes = plt.subplots(1, len(datasets), figsize=(6.5 * len(datasets), 5), squeeze=False)
    for ax, k in zip(axes.flat, datasets):
        for meth in methods:
            xs = [n for n in sizes if (meth, k, n) in g]
            curve(ax, meth, xs, [g[(meth, k, n)] for n in xs])
        for meth in ("LSVM", "PSVM", "LSVM-iso", "LSVM-GSU", "LSVM-GSU (subspaces)"):
            paper_point(ax, 25, PAPER[meth][k], meth, f"{meth} (paper, Table 1)")
        ax.set_xscale("log")
        ax.set_title(f"D{k}")
        ax.set_xlabel("training images per class")
        ax.set_ylabel("test accuracy")
        ax.grid(alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("MNIST 1 vs 7: accuracy against the training set's size (cf. the paper's Fig. 6)")
    fig.tight_layout(rect=(0, 0.22, 1, 0.95))
    save(fig, out)
    print(f"Fig. 6 ({out}): mean test accuracy over the runs at each training size.")
    print()
    print("| method | data set | " + " | ".join(str(n) for n in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for meth in methods:
        for k in datasets:
            cells = [f"{stats(g[(meth, k, n)])[0]:.4f}" if (meth, k, n) in g else "—" for n in sizes]
            print(f"| {meth} | D{k} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("fig5", "fig6"):
        sys.exit("usage: mnist_figures.py fig5|fig6 RUNS_TSV OUT.svg")
    rows = read_runs(sys.argv[2])
    plt.rcParams["svg.hashsalt"] = "pg_gsu"  # the same input draws the same file
    (fig5 if sys.argv[1] == "fig5" else fig6)(rows, sys.argv[3])


if __name__ == "__main__":
    main()

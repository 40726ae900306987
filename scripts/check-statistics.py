"""Recomputes the statistics of `npm run bench:conclusions` with SciPy and NumPy and prints the largest difference.

    python3 scripts/check-statistics.py runs/conclusions/statistics.json

- exact McNemar: scipy.stats.binomtest(reference_only, reference_only + alternative_only, 0.5), two-sided;
- Holm: the step-down adjustment over every binary comparison of the run (by its definition; statsmodels'
  multipletests(method="holm") gives the same);
- paired and repository-clustered percentile bootstrap: the same resamples (locfix's mulberry32 generator with
  seed 1729, re-implemented here bit for bit), numpy.percentile (linear) of their means;
- Wilcoxon signed-rank: scipy.stats.wilcoxon(alternative, reference) with its defaults.
Exits 1 when any value differs by more than 1e-9.
"""

import json
import sys

import numpy as np
from scipy.stats import binomtest, wilcoxon

MASK = 0xFFFFFFFF


def mulberry32(seed):
    state = seed & MASK

    def random():
        nonlocal state
        state = (state + 0x6D2B79F5) & MASK
        t = state
        t = ((t ^ (t >> 15)) * (t | 1)) & MASK
        t = (t ^ ((t + (((t ^ (t >> 7)) * (t | 61)) & MASK)) & MASK)) & MASK
        return ((t ^ (t >> 14)) & MASK) / 4294967296

    return random


def paired_interval(ref, alt, resamples, seed, confidence):
    diffs = [a - r for r, a in zip(ref, alt)]
    n = len(diffs)
    random = mulberry32(seed)
    stats = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            total += diffs[int(random() * n)]
        stats.append(total / n)
    alpha = 1 - confidence
    return np.percentile(stats, [100 * alpha / 2, 100 * (1 - alpha / 2)])


def clustered_interval(ref, alt, clusters, resamples, seed, confidence):
    groups = {}
    for r, a, c in zip(ref, alt, clusters):
        s, k = groups.get(c, (0.0, 0))
        groups[c] = (s + (a - r), k + 1)
    ordered = [groups[c] for c in sorted(groups)]
    k = len(ordered)
    if k < 2:
        return None
    random = mulberry32(seed)
    stats = []
    for _ in range(resamples):
        total, count = 0.0, 0
        for _ in range(k):
            s, c = ordered[int(random() * k)]
            total += s
            count += c
        stats.append(total / count)
    alpha = 1 - confidence
    return np.percentile(stats, [100 * alpha / 2, 100 * (1 - alpha / 2)])


def holm(pvalues):
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def main(path):
    data = json.load(open(path))
    boot = data["bootstrap"]
    worst = {}

    def note(what, ours, theirs):
        diff = abs(ours - theirs)
        worst[what] = max(worst.get(what, 0.0), diff)

    tests = []
    for pair in data["pairs"]:
        for metric, m in pair["mcnemar"].items():
            b, c = m["referenceOnly"], m["alternativeOnly"]
            p = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5).pvalue
            note("McNemar p (scipy binomtest)", m["pValue"], p)
            tests.append((p, m["holmPValue"]))
        for metric, intervals in pair["bootstrap"].items():
            v = pair["vectors"][metric]
            low, high = paired_interval(v["reference"], v["alternative"], boot["resamples"], boot["seed"], boot["confidence"])
            note("paired bootstrap interval (numpy)", intervals["paired"]["low"], low)
            note("paired bootstrap interval (numpy)", intervals["paired"]["high"], high)
            clustered = clustered_interval(v["reference"], v["alternative"], pair["clusters"], boot["resamples"], boot["seed"], boot["confidence"])
            if clustered is not None:
                note("clustered bootstrap interval (numpy)", intervals["clustered"]["low"], clustered[0])
                note("clustered bootstrap interval (numpy)", intervals["clustered"]["high"], clustered[1])
        v = pair["vectors"]["mrr"]
        w = wilcoxon(v["alternative"], v["reference"])
        note("Wilcoxon p (scipy.stats.wilcoxon)", pair["wilcoxonMrr"]["pValue"], float(w.pvalue))
        note("Wilcoxon statistic (scipy.stats.wilcoxon)", pair["wilcoxonMrr"]["statistic"], float(w.statistic))
    for (ours, theirs) in zip([h for _, h in tests], holm([p for p, _ in tests])):
        note("Holm-adjusted p", ours, theirs)

    print(f"checked against scipy {__import__('scipy').__version__}, numpy {np.__version__}:")
    for what, diff in worst.items():
        print(f"  {what:45s} largest difference {diff:.2e}")
    if any(d > 1e-9 for d in worst.values()):
        print("MISMATCH: a statistic differs by more than 1e-9")
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1])

"""Speedup against one GPU for each job, beside linear scaling, from a JSON of
measured whole-command (or kernel) times:

    python benchmarks/plot_scaling.py scaling.json scaling.png

``scaling.json``: ``{"title": ..., "jobs": [{"label": ..., "gpus": [1, 2, 4],
"seconds": [...], "note": ...}]}``; a job's first entry is its one-GPU time.
"""

from __future__ import annotations

import json
import sys


def main(argv=None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    src, out = (argv or sys.argv[1:])[:2]
    spec = json.load(open(src))
    most = max(max(job["gpus"]) for job in spec["jobs"])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot([1, most], [1, most], color="grey", linestyle="--", label="linear")
    for job in spec["jobs"]:
        base = job["seconds"][0]
        speedup = [base / s for s in job["seconds"]]
        ax.plot(job["gpus"], speedup, marker="o", label=job["label"])
        for g, s in zip(job["gpus"][1:], speedup[1:]):
            ax.annotate(f"{s:.2f}x", (g, s), textcoords="offset points", xytext=(4, -10), fontsize=8)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("speedup over one GPU")
    ax.set_xticks(range(1, most + 1))
    ax.set_title(spec.get("title", ""), fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()

"""Draw bench/peers.png from the medians bench/peers.py passes on stdin (JSON).

Runs with the bench virtualenv's Python (bench/.peers/_bench), which has matplotlib; the
project's own virtualenv never does.
"""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main() -> int:
    data = json.load(sys.stdin)
    tools, versions = data["tools"], data["versions"]
    labels = [f"{t}\n{v.split()[-1]}" for t, v in zip(tools, versions, strict=True)]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=False)
    for ax, key, title in (
        (axes[0], "one_shot", "one-shot question, start to exit"),
        (axes[1], "startup", "start-up alone (--version)"),
    ):
        values = data[key]
        colours = ["#2a7ab0" if t == "aish" else "#9a9a9a" for t in tools]
        bars = ax.bar(labels, values, color=colours)
        base = values[tools.index("aish")]
        for bar, value in zip(bars, values, strict=True):
            ax.annotate(
                f"{value:.0f} ms\n{value / base:.1f}×",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=8,
            )
        ax.set_title(title, fontsize=10)
        ax.set_ylabel("median ms")
        ax.set_ylim(0, max(values) * 1.25)
        ax.spines[["top", "right"]].set_visible(False)
    fig.suptitle(
        f"aish beside its peers, aish_testllm with zero model delay "
        f"({data['runs']} runs, {data['date']})",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(data["out"], dpi=110)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

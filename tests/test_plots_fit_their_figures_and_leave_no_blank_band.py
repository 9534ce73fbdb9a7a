"""The demo's ``--plot`` figure and the eviction notebook's bar chart fit their frames.

Rendered with Agg: the demo's title (wrapped) lies inside the figure, its text reads
"1 block" for one, the histograms reach down to the figure's foot beside the legend
(no blank band below them), and the eviction chart's tallest bar stops below the top of
its axes, with its legend clear of the bars.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
LONG_SOURCE = "/data/a/rather/long/path/to/the/table/of/one/gibibyte/measurements-1GiB.npy"


def _figure(cols: int, rows: int) -> tuple[Any, Any, str]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from stridewave.cli._plot import build_figure

    data = np.random.default_rng(0).normal(315, 20, size=(cols, rows)).astype(np.float32)
    figure, what = build_figure(data, tuple(f"c{k}" for k in range(cols)), LONG_SOURCE)
    canvas: Any = FigureCanvasAgg(figure)
    canvas.draw()
    return figure, canvas.get_renderer(), what


@pytest.mark.parametrize(("cols", "rows"), [(1024, 4096), (1, 100_000), (3, 20_000)])
def test_the_demo_plot_draws_its_title_and_everything_else_inside_the_figure(
    cols: int, rows: int
) -> None:
    figure, renderer, _ = _figure(cols, rows)
    frame = figure.bbox
    title = figure._suptitle.get_window_extent(renderer)
    assert frame.x0 <= title.x0 and title.x1 <= frame.x1, (title, frame)
    assert frame.y0 <= title.y0 and title.y1 <= frame.y1, (title, frame)
    for axes in figure.axes:  # nothing overlaps the title
        assert axes.get_tightbbox(renderer).y1 <= title.y0 + 1, axes
    drawn = figure.get_tightbbox(renderer)  # inches
    width, height = figure.get_size_inches()
    assert drawn.x0 >= 0 and drawn.y0 >= 0, drawn
    assert drawn.x1 <= width and drawn.y1 <= height, drawn


@pytest.mark.parametrize(("cols", "rows"), [(1024, 4096), (1, 100_000)])
def test_the_demo_plot_leaves_no_blank_band_at_its_foot(cols: int, rows: int) -> None:
    figure, renderer, _ = _figure(cols, rows)
    foot = 0.1 * figure.bbox.height
    histograms = figure.axes[1:]
    assert min(a.get_tightbbox(renderer).y0 for a in histograms) <= foot
    legend = figure.axes[0].get_legend()
    assert legend.get_window_extent(renderer).y0 <= foot


def test_one_block_per_column_is_said_in_the_singular() -> None:
    from stridewave.cli._demo import block_sample

    many = block_sample((1024, 4096), 1 << 14, block=1024)
    assert ": 1 block of 1024 spread" in many.description, many.description
    one = block_sample((1, 100_000), 1 << 14, block=1024)
    assert "16 blocks of 1024" in one.description and "its one column" in one.description


def test_the_eviction_bar_chart_keeps_its_bars_below_the_top_and_clear_of_the_legend() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    source = next(
        "".join(c["source"])
        for c in json.loads((ROOT / "notebooks" / "eviction.ipynb").read_text())["cells"]
        if c["cell_type"] == "code" and "ax.bar(" in "".join(c["source"])
    )
    stages = {
        label: {"RssAnon": anon, "RssFile": 30.0, "RssShmem": 0.5}
        for label, anon in (("promoted", 172.0), ("evicted", 76.0), ("read (promoted)", 172.0))
    }
    scope: dict[str, Any] = {"np": np, "plt": plt, "stages": stages}
    exec(compile(source, "eviction.ipynb", "exec"), scope)  # noqa: S102 (the notebook's own cell)
    fig, ax = scope["fig"], scope["ax"]
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        top = ax.get_ylim()[1]
        bars = [patch for container in ax.containers for patch in container]
        tallest = max(bar.get_y() + bar.get_height() for bar in bars)
        assert tallest <= 0.95 * top, (tallest, top)
        legend = ax.get_legend().get_window_extent(renderer)
        for bar in bars:
            assert not legend.overlaps(bar.get_window_extent(renderer)), bar
        title = ax.title.get_window_extent(renderer)
        assert fig.bbox.x0 <= title.x0 and title.x1 <= fig.bbox.x1
    finally:
        plt.close(fig)

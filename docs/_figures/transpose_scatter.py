"""A transpose by one strided scatter, drawn from a real StrideWeave run (docs build)."""

import matplotlib.pyplot as plt
import numpy as np

import stridewave as sw

rows, cols = 3, 4
source = sw.CPU(0).new_like(np.arange(rows * cols, dtype=np.float32))
receiver = source.allocate_like(rows * cols)
mapping = sw.Layout((rows, cols), strides=(1, rows))  # logical (r, c) -> slot c * rows + r
receiver.scatter(
    sw.Tensor(source, sw.Layout((rows, cols))),
    sw.Tensor(receiver, sw.Layout((rows * cols,))),
    mapping,
)
landed = np.asarray(receiver).astype(int)  # slot k holds the source element that landed there

fig, (left, right) = plt.subplots(
    1, 2, figsize=(9, 2.6), gridspec_kw={"width_ratios": [cols, rows * cols / 1.6]}
)
colors = plt.cm.viridis(np.linspace(0.15, 0.95, rows * cols))
for i in range(rows * cols):
    r, c = divmod(i, cols)
    left.add_patch(plt.Rectangle((c, rows - 1 - r), 1, 1, color=colors[i]))
    left.text(c + 0.5, rows - 0.5 - r, str(i), ha="center", va="center", color="white")
left.set(xlim=(0, cols), ylim=(0, rows), aspect="equal", xticks=[], yticks=[])
left.set_title(f"source: Layout(({rows}, {cols})), row-major", fontsize=9)
for k, i in enumerate(landed):
    right.add_patch(plt.Rectangle((k, 0), 1, 1, color=colors[i]))
    right.text(k + 0.5, 0.5, str(i), ha="center", va="center", color="white")
    right.text(k + 0.5, -0.35, str(k), ha="center", va="center", fontsize=7)
right.set(xlim=(0, rows * cols), ylim=(-0.7, 1), aspect="equal", xticks=[], yticks=[])
right.set_title(
    f"receiver slots after scatter through Layout(({rows}, {cols}), strides=(1, {rows}))",
    fontsize=9,
)
fig.tight_layout()

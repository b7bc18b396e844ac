"""The scaling table drawn: attacks/s by batch size, public API against bare kernel."""

from __future__ import annotations


def plot_scaling(result: dict, path: str) -> None:
    """Write a PNG of `result["scaling"]` (log-log) to `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["scaling"]
    batches = [row["batch"] for row in rows]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    ax.plot(batches, [row["api_attacks_per_s"] for row in rows], "o-",
            label="fracas.resolve_bulk (public API)")
    ax.plot(batches, [row["kernel_attacks_per_s"] for row in rows], "s--",
            label="bare kernel (roll_summary)")
    limit = result.get("generator", {}).get("attacks_per_s_limit")
    if limit:
        ax.axhline(limit, color="grey", linestyle=":", label="generator-only limit")
    numpy_rate = result["scenarios"]["typical"]["attacks_per_s"].get("numpy")
    if numpy_rate:
        ax.axhline(numpy_rate, color="tab:green", linestyle="-.", linewidth=1,
                   label="NumPy batch (scenario 1)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("attacks per call (batch size)")
    ax.set_ylabel("attacks per second")
    m = result["machine"]
    ax.set_title(f"fracas {result['fracas_version']}: typical strike, single thread\n"
                 f"{m['cpu']}, {m['cores']} cores, {result['date'][:10]}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)

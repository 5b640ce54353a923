#!/usr/bin/env python3
"""Draws Slotwise's Grafana dashboard from a running Prometheus, without Grafana.

Reads src/dashboards/slotwise-dashboard.json, runs every panel's PromQL queries (the dashboard's own expressions,
variables set to "all") against Prometheus's query_range API, and draws them at the panels' grid positions with
matplotlib. Used by src/dashboards/render.sh to make the picture in docs/meters.md from a real run.

    render.py --prometheus http://127.0.0.1:9491 --minutes 10 --out slotwise-dashboard.png
"""
import argparse
import json
import time
import urllib.parse
import urllib.request
from datetime import datetime

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

BACKGROUND, PANEL, TEXT, GRID = "#111217", "#181b1f", "#ccccdc", "#2c3235"
COLOURS = ["#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9", "#705da0", "#37872d", "#fade2a"]


def substitute(expr, rate_interval):
    for name in ("$application", "$instance", "$node"):
        expr = expr.replace(name, ".*")
    return expr.replace("$__rate_interval", rate_interval)


def query_range(prometheus, expr, start, end, step):
    params = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": step})
    with urllib.request.urlopen(f"{prometheus}/api/v1/query_range?{params}", timeout=30) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise RuntimeError(f"{expr}: {body}")
    return body["data"]["result"]


def legend(template, labels):
    text = template
    for key, value in labels.items():
        text = text.replace("{{" + key + "}}", value)
    return " ".join(text.replace("{{", "").replace("}}", "").split())


def formatter(unit):
    def seconds(value, _):
        value = abs(value)
        if value == 0:
            return "0"
        if value < 1e-3:
            return f"{value * 1e6:.0f} µs"
        if value < 1:
            return f"{value * 1e3:.3g} ms"
        return f"{value:.3g} s"

    def short(value, _):
        if abs(value) >= 1e6:
            return f"{value / 1e6:.3g}M"
        if abs(value) >= 1000:
            return f"{value / 1000:.3g}K"
        return f"{value:.3g}"

    def per_second(value, position):
        return f"{short(value, position)}/s" if value else "0"

    return FuncFormatter({"s": seconds, "reqps": per_second, "ops": per_second}.get(unit, short))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prometheus", default="http://127.0.0.1:9491")
    parser.add_argument("--dashboard", default="src/dashboards/slotwise-dashboard.json")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--rate-interval", default="30s")
    parser.add_argument("--out", default="src/dashboards/slotwise-dashboard.png")
    args = parser.parse_args()

    dashboard = json.load(open(args.dashboard, encoding="utf-8"))
    end = time.time()
    start = end - args.minutes * 60
    step = max(5, int(args.minutes * 60 / 240))
    # A collapsed row holds its panels; draw them as if it were expanded.
    panels = [p for top_level in dashboard["panels"] for p in [top_level] + top_level.get("panels", [])]
    top = 1.5  # room for the title above the first row
    height = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in panels) + top
    rows = [p for p in panels if p["type"] == "row"]
    graphs = [p for p in panels if p.get("targets")]

    scale = 0.62
    fig = plt.figure(figsize=(24 * scale, height * scale * 0.62), facecolor=BACKGROUND)
    fig.text(0.01, 1 - 0.3 / height, dashboard["title"], color=TEXT, fontsize=15, weight="bold", va="top")
    fig.text(0.99, 1 - 0.3 / height,
             f"{datetime.fromtimestamp(start):%H:%M} – {datetime.fromtimestamp(end):%H:%M}, drawn from a live Prometheus "
             "with the dashboard's own queries", color=TEXT, fontsize=9, ha="right", va="top")
    for row in rows:
        y = row["gridPos"]["y"] + top
        fig.text(0.01, 1 - (y + 0.75) / height, row["title"], color=TEXT, fontsize=12, weight="bold")
    for panel in graphs:
        pos = dict(panel["gridPos"], y=panel["gridPos"]["y"] + top)
        # The same room for the y-axis labels whatever the panel's width.
        ax = fig.add_axes([pos["x"] / 24 + 0.035, 1 - (pos["y"] + pos["h"] - 0.9) / height,
                           pos["w"] / 24 - 0.05, (pos["h"] - 2.3) / height])
        ax.set_facecolor(PANEL)
        for spine in ax.spines.values():
            spine.set_color(GRID)
        ax.tick_params(colors=TEXT, labelsize=7)
        ax.grid(color=GRID, linewidth=0.5)
        ax.set_title(panel["title"], color=TEXT, fontsize=10, loc="left")
        unit = panel["fieldConfig"]["defaults"].get("unit", "short")
        ax.yaxis.set_major_formatter(formatter(unit))
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
        series = []
        for target in panel["targets"]:
            for result in query_range(args.prometheus, substitute(target["expr"], args.rate_interval), start, end, step):
                points = [(datetime.fromtimestamp(float(t)), float(v)) for t, v in result["values"] if v not in ("NaN", "+Inf", "-Inf")]
                if points:
                    series.append((legend(target.get("legendFormat", ""), result["metric"]), points))
        series.sort(key=lambda s: -max(abs(v) for _, v in s[1]))
        for i, (name, points) in enumerate(series[:10]):
            ax.plot([t for t, _ in points], [v for _, v in points], color=COLOURS[i % len(COLOURS)], linewidth=1.2,
                    label=name)
        if not series:
            ax.text(0.5, 0.5, "no data", color=TEXT, ha="center", va="center", transform=ax.transAxes)
        else:
            ax.legend(loc="upper left", fontsize=6, facecolor=PANEL, edgecolor=GRID, labelcolor=TEXT, ncol=2,
                      framealpha=0.8)
        ax.set_xlim(datetime.fromtimestamp(start), datetime.fromtimestamp(end))
    fig.savefig(args.out, dpi=110, facecolor=BACKGROUND)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

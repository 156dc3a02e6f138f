#!/usr/bin/env python3
"""The figure of papers/baselines/README.md and docs/samplers.md: the share of admissible
d-tuples hit against the number of runs, one line per approach, from the coverage series of
`hitfam compare --json` (families: their schedules in order; samplers: the first seed's stream;
enumerations: schedules in enumeration order).

usage: papers/baselines/figure.py PATH/TO/hitfam [--order DOT] [--d D] [--runs R]
                                  [--out FILE.svg] [--json COMPARE.json]

Defaults: examples/page.dot, d = 3, series up to R = 2000 runs, written to
docs/figures/compare_page_d3.svg (and a .png beside it). --json draws a saved compare output
instead of running hitfam (then PATH/TO/hitfam is not used; pass '-'). Needs Debian's
python3-matplotlib (`make deps` installs it); without it the script says so and exits 2.
The SVG is written without timestamps and with a fixed hash salt, so that the same data gives
the same file."""
import json
import os
import subprocess
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("figure.py: matplotlib is missing for %s: install Debian's python3-matplotlib "
          "(make deps, or apt-get install python3-matplotlib) and run the script with "
          "/usr/bin/python3 (make figures does)" % sys.executable, file=sys.stderr)
    sys.exit(2)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STYLE = {"family": "-", "sampler": "--", "enumeration": ":"}
SHOWN = ["auto", "doubletree", "chains", "random", "rw", "pct", "pos", "basicpos", "all",
         "preemptions-1"]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    opts = {"--order": os.path.join(ROOT, "examples", "page.dot"), "--d": "3", "--runs": "2000",
            "--out": os.path.join(ROOT, "docs", "figures", "compare_page_d3.svg"),
            "--json": None}
    i = 2
    while i < len(argv):
        if argv[i] not in opts or i + 1 >= len(argv):
            print("figure.py: bad argument %r (see --help)" % argv[i], file=sys.stderr)
            return 2
        opts[argv[i]] = argv[i + 1]
        i += 2
    if opts["--json"]:
        with open(opts["--json"]) as f:
            c = json.load(f)
    else:
        r = subprocess.run([argv[1], "compare", "--d", opts["--d"], "--runs", opts["--runs"],
                            "--json", opts["--order"]], capture_output=True, text=True)
        if r.returncode != 0:
            print("figure.py: hitfam compare failed: %s" % r.stderr.strip(), file=sys.stderr)
            return 1
        c = json.loads(r.stdout)
    plt.rcParams["svg.hashsalt"] = "hitfam"
    fig, ax = plt.subplots(figsize=(8, 5))
    for row in c["approaches"]:
        if row["name"] not in SHOWN or not row["series"]:
            continue
        xs = [x for x, s in row["series"] if s is not None]
        ys = [100 * s for x, s in row["series"] if s is not None]
        label = row["name"]
        if row["kind"] == "family":
            label += " (%d runs)" % row["runs"]
        elif row["kind"] == "sampler":
            label += " (median %s runs)" % row["runs_median"]
        else:
            label += " (%s schedules)" % row["runs"]
        ax.plot(xs, ys, STYLE[row["kind"]], marker="o", markersize=3, label=label)
    ax.axvline(c["m"], color="grey", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("runs (schedules executed)")
    ax.set_ylabel("admissible %d-tuples hit (%%)" % c["d"])
    name = os.path.basename(opts["--order"]) if not opts["--json"] else "the order"
    ax.set_title("%s: %d events, %d admissible %d-tuples; grey line: m = %d (auto)" %
                 (name, c["events"], c["admissible"], c["d"], c["m"]))
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    out = opts["--out"]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, metadata={"Date": None})
    png = os.path.splitext(out)[0] + ".png"
    fig.savefig(png, dpi=100, metadata={"Software": None})
    print("figure.py: wrote %s and %s" % (out, png))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

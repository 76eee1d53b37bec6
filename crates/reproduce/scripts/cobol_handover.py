#!/usr/bin/env python3
"""What kept the expert being asked: one Markdown row per COBOL-type row of each COBOL run folder.

    python3 crates/reproduce/scripts/cobol_handover.py OUT_DIR [OUT_DIR ...]

OUT_DIR is a `bohf reproduce NAME -o OUT_DIR` folder (its `runs/a<i>-r<j>.csv`). Reads only the
columns every run writes (`query`, `answer`, `algorithm`, and the `details` keys `phase`,
`branch`, `g_width`, `norm_bound`); the baselines (vanilla LCB, random search, expert sampling)
are skipped. Columns, as docs/cobol.md ("Handover") explains them: runs at k = 50; iteration
labels per run in the first / last third of the 47 iteration f-evaluations (runs that reached
50, as the report's handover rule counts them); runs with last <= 1/4 first; iterations where
line 8 declined to ask (x^c evaluated on the expert branch); the narrowest interval at x^c when
line 8 was reached; B_g at each run's last evaluation; iteration evaluations per run from line 6's
vanilla branch and after an accepted label; the share of last-third labels accepted.
Python's standard library only.
"""
import collections
import csv
import glob
import os
import sys

BASELINES = ("vanilla LCB", "random search", "expert sampling")
ITERATION_EVALUATIONS = 47  # 50 f-evaluations less the 3 initial ones


def details(row):
    return dict(kv.split("=", 1) for kv in row["details"].split(";") if "=" in kv)


def accepted(row):
    return row["answer"].strip() in ("1", "true", "accept")


def analyse(folder):
    out = collections.OrderedDict()
    key = lambda s: (int(os.path.basename(s).split("-")[0][1:]), int(s.split("-r")[-1][:-4]))
    for f in sorted(glob.glob(os.path.join(folder, "runs", "a*-r*.csv")), key=key):
        with open(f) as fh:
            rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
        if not rows or rows[0]["algorithm"] in BASELINES:
            continue
        det = [details(r) for r in rows]
        it = [d.get("phase") == "iteration" for d in det]
        labels = [i for i, r in enumerate(rows) if r["query"] == "label" and it[i]]
        evals = [i for i, r in enumerate(rows) if r["query"] == "evaluate" and it[i]]
        widths = [float(d["g_width"]) for d in det if d.get("branch") == "expert" and d.get("g_width", "-") != "-"]
        o = out.setdefault(rows[0]["algorithm"], collections.Counter(narrowest=float("inf")))
        o["runs"] += 1
        o["declined"] += sum(1 for i in evals if det[i].get("branch") == "expert")
        o["narrowest"] = min([o["narrowest"]] + widths)
        bounds = [float(d["norm_bound"]) for d in det if d.get("norm_bound", "-") != "-"]
        if bounds:
            o[("bg", bounds[-1])] += 1
        if len(evals) >= ITERATION_EVALUATIONS:
            o["reached"] += 1
            m = len(evals) // 3
            first_end, last_start = evals[m - 1], evals[len(evals) - m - 1]
            first = sum(1 for i in labels if i <= first_end)
            last = [i for i in labels if i > last_start]
            o["first"] += first
            o["last"] += len(last)
            o["last_accepted"] += sum(1 for i in last if accepted(rows[i]))
            o["pass"] += len(last) <= 0.25 * first
            o["vanilla"] += sum(1 for i in evals if det[i].get("branch") == "vanilla")
            o["after_accept"] += sum(1 for i in evals if det[i].get("branch") == "-")
    return out


def row(panel, name, o):
    bg = sorted(k[1] for k in o if isinstance(k, tuple) and k[0] == "bg")
    bg = "-" if not bg else f"{bg[0]:g}" if bg[0] == bg[-1] else f"{bg[0]:g}–{bg[-1]:g}"
    narrowest = f"{o['narrowest']:.3g}" if o["narrowest"] < float("inf") else "—"
    cells = [panel, name, f"{o['reached']} of {o['runs']}"]
    if o["reached"]:
        r = o["reached"]
        share = f"{100 * o['last_accepted'] / o['last']:.0f} %" if o["last"] else "—"
        cells += [f"{o['first'] / r:.1f} / {o['last'] / r:.1f}", str(o["pass"]), str(o["declined"]), narrowest, bg,
                  f"{o['vanilla'] / r:.1f}", f"{o['after_accept'] / r:.1f}", share]
    else:
        cells += ["—", "—", str(o["declined"]), narrowest, bg, "—", "—", "—"]
    return "| " + " | ".join(cells) + " |"


def main(folders):
    if not folders:
        sys.exit(__doc__)
    for folder in folders:
        panel = os.path.basename(os.path.normpath(folder))
        for name, o in analyse(folder).items():
            print(row(panel, name, o))


if __name__ == "__main__":
    main(sys.argv[1:])

"""A notebook-style walk through bohf from Python (run: python python/examples/walkthrough.py).

1. A session answered in a loop by a simulated person who likes acidic coffee.
2. A sweep: one spec run at three lengthscales, the results in one pandas DataFrame.
3. A plot of the sweep's mean cumulative regret (walkthrough.png).

Needs pandas and matplotlib besides bohf (pip install pandas matplotlib).
"""

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import bohf

work = Path(tempfile.mkdtemp(prefix="bohf-walkthrough-"))

# 1. A session: eight coffees, PF-TS, twelve duels.
coffees = pd.DataFrame(
    {"roast": [3.0, 2.5, 4.0, 2.5, 3.5, 3.0, 2.5, 4.0], "acidity": [6.0, 8.0, 3.5, 8.0, 5.0, 6.0, 7.0, 3.5]},
    index=["guatemala", "kenya", "sumatra", "ethiopia", "colombia", "brazil", "costa rica", "java"],
)
with bohf.Session.new(work / "coffee.json", candidates=coffees, algorithm="pf-ts", budget=12, seed=2) as s:
    while (q := s.ask()) is not None:
        choice = "a" if q.a.attributes["acidity"] >= q.b.attributes["acidity"] else "b"
        s.tell(q, choice)
        print(f"t = {q.t:2}: {q.a.name} vs {q.b.name} -> {choice}")
    print("recommended:", s.recommend().name)
# The same file continues at the terminal: bohf ask <work>/coffee.json

# 2. A sweep: the spec as a dict, one run per lengthscale, all records in one DataFrame.
frames = []
for ls in (0.05, 0.1, 0.3):
    spec = {
        "name": f"sweep-{ls}",
        "horizon": 30,
        "runs": 5,
        "seed": 1,
        "problem": {"kind": "rkhs", "kernel": "matern52", "points": 30},
        "respondent": {"model": "stochastic", "link": "logistic", "scale": 1.0, "noise_sd": 1.0},
        "algorithms": [
            {"name": "pf-ts", "label": "PF-TS", "params": {"inference": {"kernel": {"kind": "matern52", "lengthscale": ls}}}}
        ],
    }
    df = pd.DataFrame(bohf.run(spec, out=work / f"sweep-{ls}"))
    df["lengthscale"] = ls
    frames.append(df)
sweep = pd.concat(frames)
print(sweep.groupby("lengthscale").cumulative_regret.max())

# 3. A plot.
fig, ax = plt.subplots(figsize=(6, 4))
for ls, g in sweep.groupby("lengthscale"):
    mean = g.groupby("t").cumulative_regret.mean()
    ax.plot(mean.index, mean.values, label=f"ℓ = {ls}")
ax.set_xlabel("t")
ax.set_ylabel("mean cumulative regret")
ax.legend()
fig.savefig(work / "walkthrough.png", dpi=100)
print("plot:", work / "walkthrough.png")

# Numerics on numpy: a Gram matrix and the greedy Γ(T) bracket.
x = np.linspace(0, 1, 30)[:, None]
k = bohf.gram(x, kind="matern52", lengthscale=0.1)
g = bohf.greedy_gamma(k, noise=0.05, steps=20)
print(f"Γ(20) in [{g['lower']:.3f}, {g['upper']:.3f}]")

"""`bohf.run`: the same files as `bohf run`, records for a DataFrame, specs as path, text or dict."""

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import bohf

SPEC = textwrap.dedent(
    """
    name = "tiny"
    horizon = 8
    runs = 3
    seed = 5

    [problem]
    kind = "rkhs"
    kernel = "matern52"
    points = 12

    [respondent]
    model = "stochastic"
    link = "logistic"
    scale = 1.0
    noise_sd = 1.0

    [[algorithms]]
    name = "pf-ts"
    label = "PF-TS"

    [[algorithms]]
    name = "random"
    label = "Random, a baseline"
    """
)


def without_timings(path: Path) -> str:
    """A results file with its non-deterministic parts removed: the `elapsed_s` column and the
    checksum line of CSV files (the checksum covers the timings), the seconds of wall_time.csv,
    `wall_seconds` and the checksum of steps.csv (`steps_csv`) of summary.json."""
    text = path.read_text()
    if path.name == "wall_time.csv":
        # One line per call that ran runs (`seconds,runs`): only the runs are deterministic.
        lines = text.splitlines()
        assert lines[0] == "seconds,runs"
        return "\n".join(l.split(",")[1] for l in lines[1:])
    if path.suffix == ".csv":
        lines = [l for l in text.splitlines() if not l.startswith("# checksum")]
        assert lines[0].endswith(",elapsed_s")
        return "\n".join(l.rsplit(",", 1)[0] for l in lines)
    if path.name == "summary.json":
        summary = json.loads(text)
        assert summary.pop("steps_csv").startswith("fnv1a64:")
        for a in summary["algorithms"]:
            a["at_horizon"].pop("wall_seconds")
        return json.dumps(summary, sort_keys=True)
    return text


def compared_files(out: Path) -> list[Path]:
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file() and p.suffix in (".csv", ".json", ".toml"))
    return files


def test_run_writes_the_files_of_bohf_run(tmp_path, bohf_bin):
    spec = tmp_path / "tiny.toml"
    spec.write_text(SPEC)
    subprocess.run([bohf_bin, "run", str(spec), "--out", str(tmp_path / "cli"), "--threads", "2"], check=True, capture_output=True)
    records = bohf.run(spec, out=tmp_path / "py", threads=1)
    cli, py = tmp_path / "cli", tmp_path / "py"
    files = compared_files(cli)
    assert Path("steps.csv") in files and Path("summary.json") in files and Path("spec.toml") in files
    assert len([f for f in files if f.parts[0] == "runs"]) == 6
    assert compared_files(py) == files
    for f in files:
        assert without_timings(py / f) == without_timings(cli / f), f
    # The records are the rows of steps.csv, with the same columns.
    header = (py / "steps.csv").read_text().splitlines()[0].split(",")
    assert len(records) == 2 * 3 * 8
    assert list(records[0]) == header
    rows = (py / "steps.csv").read_text().splitlines()[1:]
    first = rows[0].split(",")
    assert records[0]["algorithm"] == first[0] and records[0]["regret"] == float(first[7])
    # The utility gaps u* − u(·) beside the preference regrets: the same numbers as steps.csv.
    assert header[11:14] == ["utility_gap", "cumulative_utility_gap", "simple_utility_gap"]
    assert records[0]["simple_utility_gap"] == float(first[13]) >= 0.0
    assert all(r["cumulative_utility_gap"] >= r["utility_gap"] >= 0.0 for r in records)
    assert {r["algorithm"] for r in records} == {"PF-TS", "Random, a baseline"}


def test_a_spec_as_text_or_dict_runs_the_same_as_the_file(tmp_path):
    spec = tmp_path / "tiny.toml"
    spec.write_text(SPEC)
    strip = lambda recs: [{k: v for k, v in r.items() if k != "elapsed_s"} for r in recs]
    from_file = strip(bohf.run(str(spec), out=tmp_path / "a"))
    from_text = strip(bohf.run(SPEC, out=tmp_path / "b"))
    as_dict = {
        "name": "tiny", "horizon": 8, "runs": 3, "seed": 5,
        "problem": {"kind": "rkhs", "kernel": "matern52", "points": 12},
        "respondent": {"model": "stochastic", "link": "logistic", "scale": 1.0, "noise_sd": 1.0},
        "algorithms": [{"name": "pf-ts", "label": "PF-TS"}, {"name": "random", "label": "Random, a baseline"}],
    }
    from_dict = strip(bohf.run(as_dict, out=tmp_path / "c"))
    assert from_file == from_text == from_dict
    # Running again into a full folder needs resume=True, which reuses every run.
    with pytest.raises(bohf.RunError, match="resume"):
        bohf.run(SPEC, out=tmp_path / "b")
    assert strip(bohf.run(SPEC, out=tmp_path / "b", resume=True)) == from_file


def test_bad_specs_raise_spec_errors_naming_the_field(tmp_path):
    with pytest.raises(bohf.SpecError, match="horizon"):
        bohf.run(SPEC.replace("horizon = 8", "horizon = 0"), out=tmp_path / "x")
    with pytest.raises(bohf.SpecError, match="no-such"):
        bohf.run(SPEC.replace('name = "random"', 'name = "no-such"'), out=tmp_path / "x")
    with pytest.raises(bohf.SpecError, match="shard"):
        bohf.run(SPEC, out=tmp_path / "x", shard="3/2")
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(bohf.SpecError, match="checkpoint_every"):
            bohf.run(SPEC, out=tmp_path / "x", checkpoint_every=bad)
    with pytest.raises(bohf.SpecError):
        bohf.run({"name": "x", "horizon": object()}, out=tmp_path / "x")
    with pytest.raises(bohf.RunError, match="missing.toml"):
        bohf.run(tmp_path / "missing.toml", out=tmp_path / "x")


def test_shards_fill_one_folder_like_a_single_run(tmp_path):
    whole = bohf.run(SPEC, out=tmp_path / "whole")
    assert bohf.run(SPEC, out=tmp_path / "sharded", shard="0/2") == []
    last = bohf.run(SPEC, out=tmp_path / "sharded", shard=(1, 2))
    strip = lambda recs: [{k: v for k, v in r.items() if k != "elapsed_s"} for r in recs]
    # The shard that finishes the experiment writes its results and returns every record.
    assert strip(last) == strip(whole)
    assert without_timings(tmp_path / "sharded/steps.csv") == without_timings(tmp_path / "whole/steps.csv")


INTERRUPTED = """
import signal, sys, bohf
# Ctrl-C raises KeyboardInterrupt even where the test runs with SIGINT ignored (a shell's background
# job without job control, e.g. `nohup ./.ci/run &`), which the child would otherwise inherit.
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    bohf.run(sys.argv[1], out=sys.argv[2], threads=1)
    print("finished", flush=True)
except KeyboardInterrupt as e:
    print("interrupted:", e, flush=True)
"""


def test_ctrl_c_stops_a_run_keeping_finished_runs_and_resume_completes_it(tmp_path):
    spec = tmp_path / "long.toml"
    # Long enough that it cannot finish between the first saved runs and the signal, even on an idle
    # machine: 400 runs of T = 150 on 60 candidates take ≈ 7 s on one thread (on 12 candidates they
    # took under 1 s and once finished first, in CI; so did 80 runs of T = 40 before).
    spec.write_text(
        SPEC.replace("horizon = 8", "horizon = 150").replace("runs = 3", "runs = 200").replace("points = 12", "points = 60")
    )
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(spec), str(out)], stdout=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "runs").glob("*.csv"))) < 2:
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    stdout, _ = p.communicate(timeout=120)
    kept = list((out / "runs").glob("*.csv"))
    assert stdout.startswith("interrupted:"), stdout
    assert 2 <= len(kept) < 400, len(kept)
    assert not (out / "steps.csv").exists()
    records = bohf.run(spec, out=out, resume=True)
    assert len(records) == 2 * 200 * 150
    strip = lambda recs: [{k: v for k, v in r.items() if k != "elapsed_s"} for r in recs]
    assert strip(records) == strip(bohf.run(spec, out=tmp_path / "fresh"))


COBOL_BOX = """
name = "cobol-box"
seed = 9
horizon = 40
runs = 1

[problem]
kind = "function"
function = "rosenbrock"
dim = 2
domain = "box"
lower = [-2.0, -2.0]
upper = [2.0, 2.0]

[respondent]
noise_sd = 0.0
expert = { accuracy = 2.0, f_range = [0.0, 40.0] }

[budget]
total = 8
evaluate = 1
label = 0

[[algorithms]]
name = "cobol"
[algorithms.params]
initial_labels = 6
"""


def test_checkpoints_leave_a_cobol_run_unchanged(tmp_path):
    strip = lambda recs: [{k: v for k, v in r.items() if k != "elapsed_s"} for r in recs]
    plain = strip(bohf.run(COBOL_BOX, out=tmp_path / "plain", checkpoint_every=0))
    # A checkpoint after every step; the finished run leaves none behind.
    saved = strip(bohf.run(COBOL_BOX, out=tmp_path / "saved", checkpoint_every=1e-9))
    assert saved == plain and len(plain) > 8
    assert not list((tmp_path / "saved" / "runs").glob("*.partial.json"))

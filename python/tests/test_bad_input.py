"""Hostile input to the Python API (issue 33): every bad argument gets a clear exception naming the
problem, never a `PanicException`, an abort of the interpreter, a silent default or lost data.

The named tests are the issue's findings; `test_the_bad_input_campaign` feeds generated bad values
to every public function and argument. CI runs BOHF_PY_FUZZ_CASES=300 cases (a few seconds); the
long campaign is `BOHF_PY_FUZZ_CASES=2000` (docs/fuzzing.md)."""

import math
import os
import random
import time

import numpy as np
import pytest

import bohf

SPEC = """
name = "tiny"
horizon = 4
runs = 1
seed = 5

[problem]
kind = "rkhs"
kernel = "matern52"
points = 8

[[algorithms]]
name = "random"
"""


@pytest.fixture
def small_memory(monkeypatch):
    """A 1 GiB memory limit (the CLI's BOHF_MEMORY_LIMIT), so the refusals do not depend on the machine."""
    monkeypatch.setenv("BOHF_MEMORY_LIMIT", "1G")


def test_sizes_are_checked_before_allocating(small_memory):
    """Item 7: a Gram of 60,000 points, 10^8 joint samples, 10^12 greedy steps raise InputError
    naming the call and the limit (they aborted the interpreter: allocation failure, SIGABRT)."""
    x = np.zeros((60_000, 1))
    with pytest.raises(bohf.InputError, match=r"gram\(x\) needs about .* BOHF_MEMORY_LIMIT"):
        bohf.gram(x)
    with pytest.raises(bohf.InputError, match=r"cross_gram"):
        bohf.cross_gram(x, x)
    base = bohf.gram(np.linspace(0, 1, 5)[:, None])
    model = bohf.PreferenceModel(base)
    with pytest.raises(bohf.InputError, match=r"PreferenceModel.samples needs"):
        model.samples(10**8)
    with pytest.raises(bohf.InputError, match=r"greedy_gamma needs"):
        bohf.greedy_gamma(base, 0.1, 10**12)
    with pytest.raises(bohf.InputError, match=r"dueling_gram needs"):
        bohf.dueling_gram(base, [(0, 1)] * 20_000)
    # What fits is computed as before.
    assert model.samples(3).shape == (3, 5)
    assert bohf.greedy_gamma(base, 0.1, 4)["trajectory"].shape == (4,)


def test_checkpoint_every_out_of_range_is_an_error_not_a_panic(tmp_path):
    """Item 8: 1e300 seconds raised PanicException (Duration overflow)."""
    for bad in (1e300, 1e20, float("inf"), float("nan"), -1.0):
        with pytest.raises(bohf.SpecError, match="checkpoint_every"):
            bohf.run(SPEC, out=tmp_path / "r", checkpoint_every=bad)


@pytest.mark.parametrize("arg", ["lengthscale", "variance"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_kernel_settings_are_refused_naming_the_argument(arg, value):
    """Item 9: NaN and ±inf became JSON null, i.e. the default kernel, silently."""
    x = np.linspace(0, 1, 4)[:, None]
    with pytest.raises(bohf.InputError, match=arg):
        bohf.gram(x, **{arg: value})
    with pytest.raises(bohf.InputError, match=arg):
        bohf.cross_gram(x, x, **{arg: value})
    with pytest.raises(bohf.InputError, match=r"lengthscales\[1\]"):
        bohf.gram(x, lengthscales=[1.0, value])


def test_matern_of_far_apart_points_is_zero_not_nan():
    """Item 9: finite points 2e200 apart gave NaN (∞ · 0)."""
    x = np.array([[1e200], [-1e200], [0.0]])
    for kind in ("se", "matern12", "matern32", "matern52"):
        g = bohf.gram(x, kind=kind)
        assert np.all(np.isfinite(g)), (kind, g)
        assert g[0, 1] == 0.0 and g[0, 0] == 1.0


def test_deeply_nested_params_are_refused_quickly(tmp_path):
    """Item 10: the params dict's nesting cost quadratic time (5,000 levels: over a minute)."""
    deep = {}
    cur = deep
    for _ in range(5_000):
        cur["a"] = {}
        cur = cur["a"]
    t = time.monotonic()
    with pytest.raises(bohf.SpecError, match="nested more than 64 levels"):
        bohf.Session.new(tmp_path / "s.json", box=_box(), params=deep, budget=3)
    lst = []
    cur = lst
    for _ in range(5_000):
        cur.append([])
        cur = cur[0]
    spec = {"name": "x", "horizon": 1, "runs": 1, "problem": {"kind": "rkhs", "points": 4}, "deep": lst}
    with pytest.raises(bohf.SpecError, match="nested more than 64 levels"):
        bohf.run(spec, out=tmp_path / "r")
    assert time.monotonic() - t < 5.0
    assert not (tmp_path / "s.json").exists()


def test_an_attribute_named_twice_is_refused(tmp_path):
    """Item 11: one value per option vanished (the CSV path refuses a repeated column)."""
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(bohf.SpecError, match="attributes 1 and 2 are both named `p`"):
        bohf.Session.new(tmp_path / "s.json", candidates=x, attributes=["p", "p"], budget=2)
    assert not (tmp_path / "s.json").exists()


def _box():
    return {"names": ["x", "y"], "lower": [0.0, 0.0], "upper": [1.0, 1.0], "points_per_dim": 3}


# ---- the campaign -------------------------------------------------------------------------

BAD_NUMBERS = [float("nan"), float("inf"), -float("inf"), 0.0, -1.0, 1e300, -1e300, 1e-320, 2**63, -(2**63), 10**30]
BAD_OBJECTS = [None, "x", "", "\u202e", [], [[]], {}, {"a": 1}, (1, 2), b"\xff", object(), True]


def _bad_arrays(rng):
    return [
        np.zeros((0, 2)),
        np.zeros((3, 0)),
        np.full((3, 2), np.nan),
        np.full((3, 2), np.inf),
        np.array([[1e200, 0.0], [-1e200, 0.0]]),
        np.zeros((2, 3, 4)),
        np.zeros(5),
        np.zeros((3, 2), dtype=np.int64),
        np.array([["a", "b"]]),
        rng.standard_normal((4, 4)),  # not symmetric as a Gram
        -np.eye(3),  # negative diagonal
        np.ones((3, 3)) * 1e308,
    ]


def _value(rng, arrays):
    k = rng.randrange(3)
    if k == 0:
        return rng.choice(BAD_NUMBERS)
    if k == 1:
        return rng.choice(BAD_OBJECTS)
    return rng.choice(arrays)


def _calls(tmp_path, case):
    """Every public function and argument, each call with one argument replaced by a bad value."""
    x = np.linspace(0, 1, 6).reshape(3, 2)
    base = bohf.gram(np.linspace(0, 1, 4)[:, None])
    model = bohf.PreferenceModel(base)
    session_path = tmp_path / f"s{case}.json"
    return {
        "gram": (bohf.gram, {"x": x, "kind": "se", "lengthscale": 0.5, "lengthscales": None, "variance": 1.0}),
        "cross_gram": (bohf.cross_gram, {"x": x, "y": x, "kind": "matern52", "lengthscale": 0.5, "variance": 1.0}),
        "dueling_gram": (bohf.dueling_gram, {"base_gram": base, "left": [(0, 1)], "right": None, "pair_kernel": "dueling"}),
        "information_gain": (bohf.information_gain, {"gram": base, "noise": 0.1}),
        "greedy_gamma": (bohf.greedy_gamma, {"base_gram": base, "noise": 0.1, "steps": 3, "pairs": None}),
        "PreferenceModel": (bohf.PreferenceModel, {"base_gram": base, "rho": 0.05, "mle": None}),
        "PreferenceModel.observe": (model.observe, {"duels": [(0, 1, True)]}),
        "PreferenceModel.samples": (model.samples, {"count": 2, "seed": 0, "scale": 1.0}),
        "confidence_bounds": (bohf.confidence_bounds, {"base_gram": base, "duels": [(0, 1, True)], "beta": 1.0, "config": None}),
        "run": (bohf.run, {"spec": SPEC, "out": tmp_path / f"r{case}", "threads": 1, "checkpoint_every": 0.0}),
        "Session.new": (
            bohf.Session.new,
            {"path": session_path, "candidates": x, "names": None, "attributes": None, "budget": 2, "algorithm": "random", "params": None, "seed": 0},
        ),
        "algorithms": (bohf.algorithms, {}),
    }


def test_the_bad_input_campaign(tmp_path, small_memory, monkeypatch):
    """Generated bad inputs across every public function and argument: each call returns or
    raises an ordinary exception (a `BohfError`, or Python's TypeError/ValueError/OverflowError for
    an argument of the wrong type), never a PanicException (a BaseException, which fails this
    test) nor an abort (which ends it)."""
    # A bad path (`out="x"`) is relative: keep everything the cases write in tmp_path.
    monkeypatch.chdir(tmp_path)
    cases = int(os.environ.get("BOHF_PY_FUZZ_CASES", "300"))
    rng = random.Random(int(os.environ.get("BOHF_PY_FUZZ_SEED", "33")))
    arrays = _bad_arrays(np.random.default_rng(0))
    counts = {"returned": 0, "refused": 0}
    kinds = {}
    for case in range(cases):
        calls = _calls(tmp_path, case)
        name = rng.choice(sorted(calls))
        fn, kwargs = calls[name]
        if not kwargs:
            fn()
            counts["returned"] += 1
            continue
        arg = rng.choice(sorted(kwargs))
        kwargs = dict(kwargs)
        kwargs[arg] = _value(rng, arrays)
        kinds[name] = kinds.get(name, 0) + 1
        try:
            out = fn(**kwargs)
        except (bohf.BohfError, TypeError, ValueError, OverflowError) as e:
            assert str(e), f"{name}({arg}={kwargs[arg]!r}): an exception without a message"
            counts["refused"] += 1
            continue
        counts["returned"] += 1
        # A returned array holds no NaN unless its input did (no silent NaN from finite input).
        if isinstance(out, np.ndarray) and out.dtype == np.float64:
            given = kwargs[arg]
            nan_in = isinstance(given, float) and math.isnan(given) or (
                isinstance(given, np.ndarray) and given.dtype.kind == "f" and np.isnan(given).any()
            )
            assert nan_in or not np.isnan(out).any(), f"{name}({arg}={given!r}) returned NaN"
    print(f"bad-input campaign: {cases} cases, {counts}, per function {kinds}")
    assert counts["refused"] > cases // 3

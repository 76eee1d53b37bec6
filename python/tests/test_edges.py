"""The package's edges (issue 34): the version, the Session constructor, best-of-q choice queries,
typed history records, and bad counts raised as `bohf` exceptions that are ValueErrors."""

import datetime
import importlib.metadata
import re
import textwrap

import numpy as np
import pytest

import bohf


def beans(root):
    return root / "docs/examples/ask/beans.csv"


def test_version_is_the_packages_one_source(root):
    cargo = (root / "python/Cargo.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)
    assert bohf.__version__ == version
    assert importlib.metadata.version("bohf") == version
    assert "__version__" in bohf.__all__


def test_session_is_a_constructor_for_opening_and_creating(tmp_path, root):
    path = tmp_path / "s.json"
    # Created from keywords, as Session.create.
    with bohf.Session(path, csv=beans(root), budget=4, seed=2, name="coffee") as s:
        q = s.ask()
        s.tell(q, "a")
    # Opened: Session(path), Session.open and the older name Session.load are the same.
    for opener in (bohf.Session, bohf.Session.open, bohf.Session.load):
        with opener(path) as s:
            assert isinstance(s, bohf.Session)
            assert s.answered == 1 and s.info["name"] == "coffee"
    assert bohf.Session.new == bohf.Session.create
    # From a spec dict, and from a spec file whose relative CSV path is relative to the file.
    spec = {"name": "d", "budget": 3, "algorithm": {"name": "pf-ts"}, "candidates": {"csv": str(beans(root))}}
    with bohf.Session(tmp_path / "d.json", spec=spec) as s:
        assert (s.budget, s.info["candidates"]) == (3, 8)
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec/beans.csv").write_text(beans(root).read_text())
    spec_file = tmp_path / "spec/coffee.toml"
    spec_file.write_text(
        textwrap.dedent(
            """
            name = "f"
            budget = 5
            [candidates]
            csv = "beans.csv"
            [algorithm]
            name = "pf-ts"
            """
        )
    )
    with bohf.Session.create(tmp_path / "f.json", spec=spec_file) as s:
        assert (s.budget, s.info["candidates"]) == (5, 8)
    # A spec and keywords together, no budget, a missing file: errors naming what to do.
    with pytest.raises(bohf.SpecError, match="not both"):
        bohf.Session(tmp_path / "g.json", spec=spec, budget=3)
    with pytest.raises(bohf.SpecError, match="budget"):
        bohf.Session(tmp_path / "g.json", csv=beans(root))
    with pytest.raises(bohf.SessionError):
        bohf.Session(tmp_path / "missing.json")


def choice_session(path, root):
    return bohf.Session.create(
        path, csv=beans(root), algorithm="qeubo", params={"q": 3}, budget=3, seed=1, name="best-of-3"
    )


def test_best_of_q_queries_are_choices_answered_by_position_or_option(tmp_path, root):
    path = tmp_path / "c.json"
    with choice_session(path, root) as s:
        q = s.ask()
        assert isinstance(q, bohf.Choice) and q.kind == "choice"
        assert len(q.options) == 3 and len({o.index for o in q.options}) == 3
        # Out of range: refused before anything is sent, naming the positions; nothing changes.
        for bad in (3, -1):
            with pytest.raises(bohf.AnswerError, match="answer 0 to 2"):
                s.tell(q, bad)
        foreign = bohf.Option(index=99, name="nope", attributes={})
        with pytest.raises(bohf.AnswerError, match="not one of this query's options"):
            s.tell(q, foreign)
        assert s.answered == 0 and s.ask() == q
        s.tell(q, 1)
        first = q
        q = s.ask()
        assert isinstance(q, bohf.Choice)
        s.tell(q, q.options[2])
        q = s.ask()
        s.tell(q, np.int64(0))
        h = s.history()
    assert [r.kind for r in h] == ["choice"] * 3
    assert [r.answer for r in h] == [1, 2, 0]
    assert h[0].options == first.options and h[0].chosen == first.options[1]
    assert [r.t for r in h] == [1, 2, 3]


def test_history_records_are_typed_and_keep_the_stored_form(tmp_path, root):
    path = tmp_path / "h.json"
    with bohf.Session(path, csv=beans(root), budget=4, seed=2) as s:
        asked = []
        for answer in ("b", "a", {"skip": True}, {"no_preference": True}):
            q = s.ask()
            asked.append(q)
            s.tell(q, answer)
        h = s.history()
    assert all(isinstance(r, bohf.Record) for r in h)
    assert [(r.t, r.kind, r.answer, r.abstained) for r in h] == [
        (1, "duel", "b", None),
        (2, "duel", "a", None),
        (3, "duel", None, "skip"),
        (4, "duel", None, "no_preference"),
    ]
    assert h[0].options == (asked[0].a, asked[0].b) and h[0].chosen == asked[0].b
    assert h[1].chosen == asked[1].a and h[2].chosen is None
    assert h[0].message == {"choice": "b"} and h[2].message == {"skip": True}
    # Dict-like access reads the step as the session file stores it.
    assert h[0]["answer"] == {"Duel": {"first_wins": False}}
    assert h[0]["query"] == {"kind": "duel", "a": asked[0].a.index, "b": asked[0].b.index}
    assert h[3]["answer"] == "NoPreference"
    # Each answer's times, as the session file stores them: shown, then answered, in UTC.
    for r in h:
        assert r.asked_at is not None and r.answered_at is not None
        assert r.asked_at.utcoffset() == datetime.timedelta(0)
        assert r.asked_at <= r.answered_at and r.seconds_to_answer >= 0.0
        assert r.answered_at.isoformat(timespec="milliseconds").replace("+00:00", "Z") == r["answered_at"]


def test_label_and_value_records(tmp_path):
    x = np.array([[0.0], [0.5], [1.0]])
    with bohf.Session(tmp_path / "v.json", candidates=x, algorithm="gp-ucb", budget=2, seed=0) as s:
        for v in (0.25, 3):
            q = s.ask()
            assert isinstance(q, bohf.Value)
            s.tell(q, v)
        h = s.history()
    assert [(r.kind, r.answer, r.chosen) for r in h] == [("value", 0.25, None), ("value", 3.0, None)]
    assert isinstance(h[1].answer, float) and len(h[0].options) == 1


def test_bad_counts_raise_input_errors_that_are_value_errors(tmp_path):
    k = bohf.gram(np.array([[0.0], [0.5], [1.0]]))
    cases = [
        ("steps", lambda: bohf.greedy_gamma(k, 0.1, -1)),
        ("steps", lambda: bohf.greedy_gamma(k, 0.1, steps=2.5)),
        ("steps", lambda: bohf.greedy_gamma(k, 0.1, steps=True)),
        ("steps", lambda: bohf.greedy_gamma(k, 0.1, steps=10**40)),
        ("count", lambda: bohf.PreferenceModel(k).samples(-2)),
        ("seed", lambda: bohf.PreferenceModel(k).samples(2, seed=-1)),
        ("duels", lambda: bohf.PreferenceModel(k).observe([(-1, 0, True)])),
        ("duels", lambda: bohf.confidence_bounds(k, [(0, -2, True)], 1.0)),
        ("threads", lambda: bohf.run({"name": "x"}, out=tmp_path / "r", threads=-1)),
    ]
    for arg, call in cases:
        with pytest.raises(bohf.InputError, match=f"^{arg}: ") as e:
            call()
        assert isinstance(e.value, ValueError) and isinstance(e.value, bohf.BohfError)
    # numpy integers are counts too.
    assert len(bohf.greedy_gamma(k, 0.1, np.int64(2))["trajectory"]) == 2


def test_exception_classes():
    for cls in (bohf.SpecError, bohf.InputError, bohf.AnswerError):
        assert issubclass(cls, bohf.BohfError) and issubclass(cls, ValueError), cls
        assert cls.__module__ == "bohf"
    assert issubclass(bohf.AnswerError, bohf.SessionError)
    for cls in (bohf.SessionError, bohf.AlgorithmError, bohf.RunError):
        assert issubclass(cls, bohf.BohfError) and not issubclass(cls, ValueError), cls
    with pytest.raises(ValueError, match="steps"):
        bohf.greedy_gamma(np.eye(2), 0.1, -1)

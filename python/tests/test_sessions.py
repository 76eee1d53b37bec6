"""Sessions: Python ↔ `bohf ask --json` hand-over, the protocol's error words, bad input, kills."""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import bohf

# The coffee example of docs/examples/ask (PF-TS over 8 coffees from beans.csv).
BUDGET = 10
SEED = 2


def likes_acidity(a: dict, b: dict) -> str:
    """A deterministic 'person': prefers the more acidic coffee (ties: A)."""
    return "a" if a["attributes"]["acidity"] >= b["attributes"]["acidity"] else "b"


def new_python_session(path: Path, root: Path) -> bohf.Session:
    return bohf.Session.new(
        path,
        csv=root / "docs/examples/ask/beans.csv",
        algorithm="pf-ts",
        budget=BUDGET,
        seed=SEED,
        name="coffee",
    )


def spec_file(tmp: Path, root: Path) -> Path:
    spec = tmp / "coffee.toml"
    spec.write_text(
        textwrap.dedent(
            f"""
            name = "coffee"
            budget = {BUDGET}
            seed = {SEED}
            [candidates]
            csv = "{(root / 'docs/examples/ask/beans.csv').as_posix()}"
            [algorithm]
            name = "pf-ts"
            """
        )
    )
    return spec


def answer_with_cli(bohf_bin: str, path: Path, count: int | None) -> tuple[list[tuple], dict]:
    """Answers `count` queries (all if None) with `bohf ask --json`, then quits; returns the
    queries asked (kind, a, b) and the `done` message."""
    p = subprocess.Popen(
        [bohf_bin, "ask", str(path), "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    asked, done, answered = [], None, 0
    for line in p.stdout:
        m = json.loads(line)
        if m["type"] == "query":
            if count is not None and answered == count:
                p.stdin.write(json.dumps({"quit": True}) + "\n")
                p.stdin.flush()
                continue
            asked.append(("duel", m["a"]["index"], m["b"]["index"]))
            p.stdin.write(json.dumps({"choice": likes_acidity(m["a"], m["b"])}) + "\n")
            p.stdin.flush()
            answered += 1
        elif m["type"] == "done":
            done = m
    p.stdin.close()
    assert p.wait() == 0
    return asked, done


def answer_with_python(path: Path, count: int | None) -> list[tuple]:
    asked = []
    with bohf.Session.load(path) as s:
        while count is None or len(asked) < count:
            q = s.ask()
            if q is None:
                break
            assert isinstance(q, bohf.Duel)
            asked.append(("duel", q.a.index, q.b.index))
            s.tell(q, likes_acidity(q.message["a"], q.message["b"]))
    return asked


def test_python_and_cli_hand_a_session_back_and_forth_with_the_same_queries(tmp_path, root, bohf_bin):
    # Reference: the whole session at the terminal's JSON protocol, created by `bohf ask new`.
    ref = tmp_path / "ref.json"
    subprocess.run([bohf_bin, "ask", "new", str(ref), "--spec", str(spec_file(tmp_path, root))], check=True)
    ref_asked, ref_done = answer_with_cli(bohf_bin, ref, None)
    # The budget, or PF-TS settling (its self-duels are answered by the session, never shown).
    assert len(ref_asked) == ref_done["answered"] <= BUDGET
    assert ref_done["reason"] in ("budget", "self-duels")

    # Started in Python, continued by `bohf ask --json`, finished in Python.
    path = tmp_path / "handover.json"
    new_python_session(path, root).close()
    asked = answer_with_python(path, 3)
    cli_asked, _ = answer_with_cli(bohf_bin, path, 4)
    asked += cli_asked
    asked += answer_with_python(path, None)
    assert asked == ref_asked

    with bohf.Session.load(path) as s:
        assert s.answered == len(ref_asked) and s.ask() is None and s.done
        rec = s.recommend()
    assert rec is not None and rec.index == ref_done["recommendation"]["index"]

    # And the other way: started by `bohf ask new`, continued in Python, finished at the CLI.
    other = tmp_path / "other.json"
    subprocess.run([bohf_bin, "ask", "new", str(other), "--spec", str(spec_file(tmp_path, root))], check=True)
    asked = answer_with_cli(bohf_bin, other, 2)[0]
    asked += answer_with_python(other, 5)
    more, done = answer_with_cli(bohf_bin, other, None)
    assert asked + more == ref_asked
    assert done["recommendation"] == ref_done["recommendation"]


def test_a_query_that_is_not_pending_and_a_wrong_answer_change_nothing(tmp_path, root, bohf_bin):
    path = tmp_path / "s.json"
    with new_python_session(path, root) as s:
        q1 = s.ask()
        s.tell(q1, "b")
        before = path.read_bytes()
        with pytest.raises(bohf.AnswerError, match="not the pending one"):
            s.tell(q1, "a")
        q2 = s.ask()
        # The JSON protocol's words for an answer of the wrong shape.
        with pytest.raises(bohf.AnswerError) as e:
            s.tell(q2, True)
        assert path.read_bytes() == before
        assert s.answered == 1 and s.ask() == q2
    cli = subprocess.run(
        [bohf_bin, "ask", str(path), "--json"], input='{"choice": true}\n{"quit": true}\n', capture_output=True, text=True
    )
    errors = [json.loads(line) for line in cli.stdout.splitlines() if '"error"' in line]
    assert errors and errors[0]["message"] == str(e.value)
    assert str(e.value).startswith('a duel needs {"choice": "a"} or {"choice": "b"}')
    assert path.read_bytes() == before


def test_a_value_session_refuses_nan_with_the_protocols_message(tmp_path):
    path = tmp_path / "oven.json"
    box = {"names": ["temperature", "minutes"], "lower": [150.0, 10.0], "upper": [250.0, 30.0], "points_per_dim": 3}
    with bohf.Session.new(path, box=box, algorithm="gp-ucb", budget=3) as s:
        q = s.ask()
        assert isinstance(q, bohf.Value) and set(q.option.attributes) == {"temperature", "minutes"}
        before = path.read_bytes()
        with pytest.raises(bohf.AnswerError, match=r'a value needs \{"value": <finite number>\}'):
            s.tell(q, float("nan"))
        assert path.read_bytes() == before
        s.tell(q, 7.5)
        assert s.answered == 1


def test_array_candidates_round_trip_and_bad_arrays_raise_naming_the_argument(tmp_path):
    x = np.array([[1.0, 2.0], [3.0, 1.0], [0.5, 0.5], [2.0, 2.5]])
    path = tmp_path / "a.json"
    with bohf.Session.new(path, candidates=x, names=["w", "x", "y", "z"], attributes=["p", "q"], budget=4) as s:
        attrs, names, values = s.candidates()
        assert attrs == ["p", "q"] and names == ["w", "x", "y", "z"]
        np.testing.assert_array_equal(values, x)
        q = s.ask()
        assert q.a.name in names and q.a.attributes == dict(zip(attrs, x[q.a.index]))

    bad = tmp_path / "bad.json"
    y = x.copy()
    y[2, 1] = np.nan
    with pytest.raises(bohf.InputError, match=r"candidates: entry \[2, 1\] is NaN"):
        bohf.Session.new(bad, candidates=y, budget=4)
    with pytest.raises(bohf.InputError, match="candidates: need a 2-D float64 numpy array.*int64"):
        bohf.Session.new(bad, candidates=x.astype(np.int64), budget=4)
    with pytest.raises(bohf.InputError, match=r"candidates: need a 2-D float64.*shape \(4,\)"):
        bohf.Session.new(bad, candidates=x[:, 0].copy(), budget=4)
    with pytest.raises(bohf.SpecError, match="candidates: 2 name"):
        bohf.Session.new(bad, candidates=x, names=["a", "b"], budget=4)
    with pytest.raises(bohf.SpecError, match="algorithm.name"):
        bohf.Session.new(bad, candidates=x, algorithm="no-such", budget=4)
    assert not bad.exists()
    # An existing session is not overwritten.
    before = path.read_bytes()
    with pytest.raises(bohf.SessionError, match="exists"):
        bohf.Session.new(path, candidates=x, budget=4)
    assert path.read_bytes() == before


def test_a_damaged_session_file_raises_and_is_left_as_it_is(tmp_path, root):
    path = tmp_path / "s.json"
    with new_python_session(path, root) as s:
        s.tell(s.ask(), "a")
    damaged = path.read_bytes()[:-40]
    path.write_bytes(damaged)
    with pytest.raises(bohf.SessionError, match="is damaged") as e:
        bohf.Session.load(path)
    assert "s.json.bak" in str(e.value)  # the previous good copy is offered
    assert path.read_bytes() == damaged
    with pytest.raises(bohf.SessionError, match="does not exist"):
        bohf.Session.load(tmp_path / "missing.json")


def test_an_open_session_is_locked_against_a_second_writer(tmp_path, root, bohf_bin):
    path = tmp_path / "s.json"
    with new_python_session(path, root):
        cli = subprocess.run([bohf_bin, "ask", str(path), "--json"], input="", capture_output=True, text=True)
        assert cli.returncode == 1 and "in use" in cli.stderr
    # Closed: the CLI opens it.
    cli = subprocess.run([bohf_bin, "ask", str(path), "--json"], input="", capture_output=True, text=True)
    assert cli.returncode == 0


KILLED = """
import sys, bohf
s = bohf.Session.load(sys.argv[1])
while (q := s.ask()) is not None:
    s.tell(q, "a")
    print(s.answered, flush=True)
"""


def test_a_killed_python_process_loses_no_answered_query(tmp_path, root):
    path = tmp_path / "s.json"
    new_python_session(path, root).close()
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(path)], stdout=subprocess.PIPE, text=True)
    reported = 0
    for line in p.stdout:
        reported = int(line)
        if reported >= 4:
            break
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    with bohf.Session.load(path) as s:
        # Every answer whose tell() returned is in the file (one more may have been saved
        # between the print and the kill).
        assert s.answered >= reported >= 4
        assert len([r for r in s.history() if not r.automatic]) == s.answered


def test_a_closed_session_and_a_foreign_query_raise(tmp_path, root):
    path = tmp_path / "s.json"
    with new_python_session(path, root) as s:
        q = s.ask()
        with pytest.raises(bohf.AnswerError, match="pass the query that ask"):
            s.tell({"kind": "duel"}, "a")
        # A query message of another session (other options) is not the pending one either.
        other = bohf.Duel(t=q.t, budget=q.budget, kind="duel", message={**q.message, "b": q.message["a"]}, a=q.a, b=q.a)
        assert q.a != q.b
        with pytest.raises(bohf.AnswerError, match="not the pending one"):
            s.tell(other, "a")
        # New answer kinds flow through as the protocol's dicts.
        s.tell(q, {"choice": "b"})
        assert s.history()[0]["answer"] == {"Duel": {"first_wins": False}}
    with pytest.raises(bohf.SessionError, match="is closed"):
        s.ask()


def test_no_preference_and_skip_are_recorded_and_use_up_budget(tmp_path, root):
    path = tmp_path / "abstain.json"
    with new_python_session(path, root) as s:
        q = s.ask()
        s.tell(q, {"no_preference": True})
        q = s.ask()
        s.tell(q, {"skip": True})
        assert s.answered == 2
        answers = [step["answer"] for step in s.history()]
    assert answers == ["NoPreference", "Skip"]
    with bohf.Session.load(path) as s:
        assert s.answered == 2


def test_the_docs_example_never_asks_a_self_duel_and_history_marks_the_automatic_ones(tmp_path):
    # docs/python.md's session: PF-TS, 12 queries, answered by acidity. PF-TS asked "X vs X" in 10
    # of 12 queries before issue 34; the session now answers those itself (a fair coin).
    x = np.array([[3.0, 6.0], [2.5, 8.0], [4.0, 3.5]])
    s = bohf.Session(tmp_path / "coffee.json", candidates=x, names=["guatemala", "kenya", "java"],
                     attributes=["roast", "acidity"], algorithm="pf-ts", budget=12, seed=2)
    shown = []
    while (q := s.ask()) is not None:
        assert isinstance(q, bohf.Duel)
        shown.append((q.a.name, q.b.name))
        s.tell(q, "a" if q.a.attributes["acidity"] >= q.b.attributes["acidity"] else "b")
    assert [p for p in shown if p[0] == p[1]] == []
    history = s.history()
    automatic = [r for r in history if r.automatic]
    assert automatic, "PF-TS asked self-duels on this example"
    assert all(r.options[0] == r.options[1] and r.answer in ("a", "b") for r in automatic)
    assert all(r.options[0] != r.options[1] for r in history if not r.automatic)
    assert [r.t for r in history] == list(range(1, len(history) + 1))
    assert s.answered == len(shown) == len(history) - len(automatic)
    assert s.automatic == len(automatic) and s.done
    assert s.recommend().name == "kenya"
    s.close()

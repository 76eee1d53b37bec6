"""bohf: Bayesian optimisation from human feedback, from Python.

* Sessions (ask/tell) on the session files of ``bohf ask``: :class:`Session`.
* Experiment runs into results folders, as ``bohf run`` writes them: :func:`run`.
* Numerics on numpy arrays: :func:`gram`, :func:`cross_gram`, :func:`dueling_gram`,
  :func:`information_gain`, :func:`greedy_gamma`, :class:`PreferenceModel`,
  :func:`confidence_bounds`.
* The algorithm registry with each parameter's default and meaning: :func:`algorithms`.

See docs/python.md.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import _bohf
from ._bohf import (
    AlgorithmError,
    AnswerError,
    BohfError,
    InputError,
    PreferenceModel,
    RunError,
    SessionError,
    SpecError,
    algorithms,
    confidence_bounds,
    cross_gram,
    dueling_gram,
    gram,
    greedy_gamma,
    information_gain,
    run,
)

__all__ = [
    "AlgorithmError",
    "AnswerError",
    "BohfError",
    "Duel",
    "InputError",
    "Label",
    "Option",
    "PreferenceModel",
    "Query",
    "RunError",
    "Session",
    "SessionError",
    "SpecError",
    "Value",
    "algorithms",
    "confidence_bounds",
    "cross_gram",
    "dueling_gram",
    "gram",
    "greedy_gamma",
    "information_gain",
    "run",
]


@dataclass(frozen=True)
class Option:
    """One candidate as the protocol sends it: its index (row of the candidates), name and raw
    attribute values."""

    index: int
    name: str
    attributes: dict[str, float]

    @staticmethod
    def _of(m: Mapping[str, Any]) -> "Option":
        return Option(int(m["index"]), str(m["name"]), dict(m["attributes"]))


@dataclass(frozen=True)
class Query:
    """A query of a session: ``t`` (1-based), ``budget``, ``kind`` and the protocol's message
    (``message``, a dict as ``bohf ask --json`` writes it). Kinds this version does not know
    arrive as a plain :class:`Query`; answer them with the protocol's answer dict."""

    t: int
    budget: int
    kind: str
    message: dict = field(repr=False, compare=False)


@dataclass(frozen=True)
class Duel(Query):
    """Which of ``a`` and ``b`` is better? Answer ``"a"`` or ``"b"`` (or the winning
    :class:`Option` or its index)."""

    a: Option = None  # type: ignore[assignment]
    b: Option = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Label(Query):
    """Accept ``option``? Answer ``True`` or ``False``."""

    option: Option = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Value(Query):
    """A number for ``option``: answer a finite float."""

    option: Option = None  # type: ignore[assignment]


def _query(m: dict) -> Query:
    common = dict(t=int(m["t"]), budget=int(m["budget"]), kind=str(m["kind"]), message=m)
    if m["kind"] == "duel":
        return Duel(**common, a=Option._of(m["a"]), b=Option._of(m["b"]))
    if m["kind"] == "label":
        return Label(**common, option=Option._of(m["option"]))
    if m["kind"] == "value":
        return Value(**common, option=Option._of(m["option"]))
    return Query(**common)


def _answer_message(query: Query, answer: Any) -> dict:
    """The protocol's answer message for ``answer`` to ``query`` (docs/ask-protocol.md). Anything
    that does not fit becomes ``{}``, which the protocol refuses with its own help text."""
    if isinstance(answer, Mapping):
        return dict(answer)
    if isinstance(query, Duel):
        if isinstance(answer, str):
            return {"choice": answer}
        if isinstance(answer, Option):
            answer = answer.index
        if isinstance(answer, int) and not isinstance(answer, bool):
            if answer == query.a.index:
                return {"choice": "a"}
            if answer == query.b.index:
                return {"choice": "b"}
        return {}
    if isinstance(query, Label):
        return {"accept": answer} if isinstance(answer, bool) else {}
    if isinstance(query, Value):
        if isinstance(answer, (bool, str, bytes)):
            return {}
        try:
            answer = float(answer)  # int, float and numpy scalars
        except (TypeError, ValueError):
            return {}
        # A non-finite value is sent as null: the protocol refuses it with its help text.
        return {"value": answer if math.isfinite(answer) else None}
    return {}


class Session:
    """An ask/tell session saved in a session file, the one ``bohf ask`` reads and writes: a
    session started here continues at the terminal (``bohf ask PATH``) and back, with the same
    queries. Every answer is saved (atomically, the previous file kept as ``PATH.bak``) before
    :meth:`tell` returns. The file stays locked while the session is open (:meth:`close`, or
    ``with`` blocks)."""

    def __init__(self, native: "_bohf.NativeSession"):
        self._s = native

    @classmethod
    def new(
        cls,
        path: str | os.PathLike,
        *,
        budget: int,
        algorithm: str = "pf-ts",
        params: Mapping[str, Any] | None = None,
        candidates: Any = None,
        names: Sequence[str] | None = None,
        attributes: Sequence[str] | None = None,
        box: Mapping[str, Any] | None = None,
        csv: str | os.PathLike | None = None,
        seed: int = 0,
        name: str = "session",
        question: str | None = None,
        force: bool = False,
    ) -> "Session":
        """Creates the session file at ``path`` and opens it.

        Give the options as exactly one of: ``candidates`` (a float64 numpy array, one row per
        option, one column per attribute, with optional ``names`` and ``attributes``, or a pandas
        DataFrame whose index names the options), ``box`` (``{"names", "lower", "upper",
        "points_per_dim"}``, gridded) or ``csv`` (a file as ``bohf ask new`` reads it).
        ``algorithm`` and ``params`` name a registry entry (:func:`algorithms`). An existing file
        is an error unless ``force``."""
        given = [x is not None for x in (candidates, box, csv)]
        if sum(given) != 1:
            raise SpecError("candidates: give exactly one of candidates=, box= and csv=")
        if candidates is not None and hasattr(candidates, "to_numpy") and hasattr(candidates, "columns"):
            if attributes is None:
                attributes = [str(c) for c in candidates.columns]
            if names is None:
                names = [str(i) for i in candidates.index]
            candidates = candidates.to_numpy(dtype=float)
        spec: dict[str, Any] = {
            "name": name,
            "budget": budget,
            "seed": seed,
            "algorithm": {"name": algorithm, "params": dict(params or {})},
            "candidates": {},
        }
        if question is not None:
            spec["question"] = question
        if box is not None:
            spec["candidates"] = {"box": dict(box)}
        if csv is not None:
            spec["candidates"] = {"csv": os.fspath(csv)}
        native = _bohf.NativeSession.create(
            os.fspath(path),
            spec,
            candidates,
            None if names is None else list(names),
            None if attributes is None else list(attributes),
            force,
        )
        return cls(native)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Session":
        """Opens the session file at ``path`` (made here or by ``bohf ask new``) and replays its
        answers. A damaged file raises :class:`SessionError` and is left as it is."""
        return cls(_bohf.NativeSession.open(os.fspath(path)))

    @property
    def path(self) -> str:
        return os.fspath(self._s.path)

    @property
    def info(self) -> dict:
        """The protocol's ``session`` message: name, algorithm, answered, budget, attributes,
        candidates (count)."""
        return self._s.info()

    @property
    def answered(self) -> int:
        return int(self.info["answered"])

    @property
    def budget(self) -> int:
        return int(self.info["budget"])

    @property
    def done(self) -> bool:
        return self.answered >= self.budget

    def ask(self) -> Query | None:
        """The pending query (the same one until it is answered), or None once the budget is
        spent."""
        m = self._s.ask()
        return None if m is None else _query(m)

    def tell(self, query: Query, answer: Any) -> None:
        """Answers ``query``, which must be the pending one; saved before this returns. A duel
        takes ``"a"``/``"b"`` (or the winning :class:`Option` or index), a label ``True``/``False``,
        a value a finite number; any kind also takes the protocol's answer dict. Anything else
        raises :class:`AnswerError` with the JSON protocol's message, and nothing changes."""
        if not isinstance(query, Query):
            raise AnswerError("query: pass the query that ask() returned")
        self._s.tell(query.message, json.dumps(_answer_message(query, answer)))

    def recommend(self) -> Option | None:
        """The algorithm's current recommendation, or None if it has none yet."""
        m = self._s.recommend()
        return None if m is None else Option._of(m)

    def history(self) -> list[dict]:
        """The answered queries as stored in the session file."""
        return self._s.history()

    def candidates(self):
        """``(attributes, names, values)``: the options, with their raw values as an n×d array."""
        return self._s.candidates()

    def close(self) -> None:
        """Releases the session file's lock (everything answered is already saved)."""
        self._s.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        i = self.info
        return f"Session({self.path!r}, {i['algorithm']}, {i['answered']}/{i['budget']} answered)"

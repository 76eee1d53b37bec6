"""bohf: Bayesian optimisation from human feedback, from Python.

* Sessions (ask/tell) on the session files of ``bohf ask``: :class:`Session`, its queries
  (:class:`Duel`, :class:`Choice`, :class:`Label`, :class:`Value`) and answered :class:`Record` s.
* Experiment runs into results folders, as ``bohf run`` writes them: :func:`run`.
* Numerics on numpy arrays: :func:`gram`, :func:`cross_gram`, :func:`dueling_gram`,
  :func:`information_gain`, :func:`greedy_gamma`, :class:`PreferenceModel`,
  :func:`confidence_bounds`.
* The algorithm registry with each parameter's default and meaning: :func:`algorithms`.

Errors are :class:`BohfError` s; those of bad arguments (:class:`SpecError`,
:class:`InputError`, :class:`AnswerError`) are ``ValueError`` s too. ``__version__`` is the
package's version (python/Cargo.toml). See docs/python.md.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping, Sequence

from . import _bohf
from ._bohf import (
    __version__,
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
    "__version__",
    "AlgorithmError",
    "AnswerError",
    "BohfError",
    "Choice",
    "Duel",
    "InputError",
    "Label",
    "Option",
    "PreferenceModel",
    "Query",
    "Record",
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


@dataclass(frozen=True)
class Choice(Query):
    """Which of ``options`` (k ≥ 2, in the order shown) is best? Answer with the position of the
    chosen option in ``options`` (0-based, as the protocol's ``{"choice": i}``) or the chosen
    :class:`Option` itself."""

    options: tuple[Option, ...] = ()


def _query(m: dict) -> Query:
    common = dict(t=int(m["t"]), budget=int(m["budget"]), kind=str(m["kind"]), message=m)
    if m["kind"] == "duel":
        return Duel(**common, a=Option._of(m["a"]), b=Option._of(m["b"]))
    if m["kind"] == "choice":
        return Choice(**common, options=tuple(Option._of(o) for o in m["options"]))
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
    if isinstance(query, Choice):
        if isinstance(answer, Option):
            positions = [i for i, o in enumerate(query.options) if o == answer]
            if not positions:
                raise AnswerError(
                    f"choice: option {answer.index} ({answer.name!r}) is not one of this query's options "
                    f"({', '.join(str(o.index) for o in query.options)})"
                )
            return {"choice": positions[0]}
        if hasattr(answer, "__index__") and not isinstance(answer, bool):
            i = answer.__index__()
            if not 0 <= i < len(query.options):
                raise AnswerError(
                    f"choice: {i} is not the position of an option: this query shows {len(query.options)} "
                    f"options, answer 0 to {len(query.options) - 1} (the position in q.options) or the Option"
                )
            return {"choice": i}
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


_ABSTENTIONS = ("no_preference", "skip")


@dataclass(frozen=True)
class Record:
    """One answered query of :meth:`Session.history`: ``t`` (1-based), ``kind`` (``"duel"``,
    ``"label"``, ``"value"``, ``"choice"``), ``options`` (the options shown, in order: a duel's
    ``a`` and ``b``, the one option of a label or value), and the answer in the form :meth:`Session.tell`
    takes: ``"a"``/``"b"`` for a duel, ``True``/``False`` for a label, a float for a value, the
    chosen position in ``options`` for a choice; ``None`` for an abstention, whose kind is then in
    ``abstained`` (``"no_preference"`` or ``"skip"``). ``chosen`` is the preferred :class:`Option`
    of a duel or a choice. ``message`` is the protocol's answer message and ``stored`` the step as
    the session file stores it; ``record["query"]`` and ``record["answer"]`` read ``stored``.
    ``automatic`` is True for a self-duel (an option against itself) that the session answered
    itself with a fair coin, never shown to the person (``docs/ask-protocol.md``, "Self-duels");
    ``t`` counts every step of the history, automatic ones included. ``asked_at`` and
    ``answered_at`` are when the query was shown and when the answer was saved (timezone-aware UTC
    datetimes, millisecond resolution, as the session file stores them; ``None`` for automatic
    steps and files written before times were recorded); ``seconds_to_answer`` is their
    difference."""

    t: int
    kind: str
    options: tuple[Option, ...]
    answer: str | bool | float | int | None
    abstained: str | None = None
    automatic: bool = False
    asked_at: datetime | None = None
    answered_at: datetime | None = None
    message: dict = field(default_factory=dict, repr=False, compare=False)
    stored: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def chosen(self) -> Option | None:
        """The preferred option of an answered duel or choice, else None."""
        if self.kind == "duel" and self.answer in ("a", "b"):
            return self.options[0 if self.answer == "a" else 1]
        if self.kind == "choice" and isinstance(self.answer, int) and not isinstance(self.answer, bool):
            return self.options[self.answer]
        return None

    @property
    def seconds_to_answer(self) -> float | None:
        """Seconds from showing the query to saving the answer, when both times are recorded."""
        if self.asked_at is None or self.answered_at is None:
            return None
        return (self.answered_at - self.asked_at).total_seconds()

    def __getitem__(self, key: str) -> Any:
        return self.stored[key]

    @staticmethod
    def _of(m: Mapping[str, Any]) -> "Record":
        msg = dict(m["answer"])
        abstained = next((k for k in _ABSTENTIONS if msg.get(k) is True), None)
        answer = None
        if abstained is None:
            answer = next(msg[k] for k in ("choice", "accept", "value") if k in msg)
            if m["kind"] == "value":
                answer = float(answer)
        return Record(
            t=int(m["t"]),
            kind=str(m["kind"]),
            options=tuple(Option._of(o) for o in m["options"]),
            answer=answer,
            abstained=abstained,
            automatic=bool(m.get("automatic", False)),
            asked_at=_stamp(m["stored"].get("asked_at")),
            answered_at=_stamp(m["stored"].get("answered_at")),
            message=msg,
            stored=dict(m["stored"]),
        )


def _stamp(text: str | None) -> datetime | None:
    """A session file's time (RFC 3339 in UTC, ``2026-11-29T07:40:05.123Z``) as an aware datetime."""
    if text is None:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _native_create(
    path: str | os.PathLike,
    *,
    spec: Mapping[str, Any] | str | os.PathLike | None = None,
    budget: int | None = None,
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
) -> "_bohf.NativeSession":
    if spec is not None:
        given = {
            k: v
            for k, v in dict(
                budget=budget, params=params, candidates=candidates, names=names, attributes=attributes,
                box=box, csv=csv, question=question,
            ).items()
            if v is not None
        }
        if given:
            raise SpecError(f"spec: give a spec or the keywords ({', '.join(sorted(given))}), not both")
        spec_arg = dict(spec) if isinstance(spec, Mapping) else os.fspath(spec)
        return _bohf.NativeSession.create(os.fspath(path), spec_arg, None, None, None, force)
    if budget is None:
        raise SpecError("budget: give the number of queries (or spec=, a spec with its budget)")
    given = [x is not None for x in (candidates, box, csv)]
    if sum(given) != 1:
        raise SpecError("candidates: give exactly one of candidates=, box= and csv=")
    if candidates is not None and hasattr(candidates, "to_numpy") and hasattr(candidates, "columns"):
        if attributes is None:
            attributes = [str(c) for c in candidates.columns]
        if names is None:
            names = [str(i) for i in candidates.index]
        candidates = candidates.to_numpy(dtype=float)
    spec_dict: dict[str, Any] = {
        "name": name,
        "budget": budget,
        "seed": seed,
        "algorithm": {"name": algorithm, "params": dict(params or {})},
        "candidates": {},
    }
    if question is not None:
        spec_dict["question"] = question
    if box is not None:
        spec_dict["candidates"] = {"box": dict(box)}
    if csv is not None:
        spec_dict["candidates"] = {"csv": os.fspath(csv)}
    return _bohf.NativeSession.create(
        os.fspath(path),
        spec_dict,
        candidates,
        None if names is None else list(names),
        None if attributes is None else list(attributes),
        force,
    )


class Session:
    """An ask/tell session saved in a session file, the one ``bohf ask`` reads and writes: a
    session started here continues at the terminal (``bohf ask PATH``) and back, with the same
    queries. Every answer is saved (atomically, the previous file kept as ``PATH.bak``) before
    :meth:`tell` returns. The file stays locked while the session is open (:meth:`close`, or
    ``with`` blocks)."""

    def __init__(
        self,
        path: str | os.PathLike,
        spec: Mapping[str, Any] | str | os.PathLike | None = None,
        **options: Any,
    ):
        """``Session(path)`` opens the session file at ``path`` (as :meth:`open`);
        ``Session(path, spec=...)`` or ``Session(path, budget=..., candidates=..., ...)`` creates
        it (as :meth:`create`, with the same arguments)."""
        if spec is None and not options:
            self._s = _bohf.NativeSession.open(os.fspath(path))
        else:
            self._s = _native_create(path, spec=spec, **options)

    @classmethod
    def create(
        cls,
        path: str | os.PathLike,
        spec: Mapping[str, Any] | str | os.PathLike | None = None,
        *,
        budget: int | None = None,
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

        Either ``spec``: the session spec of ``bohf ask new`` as a dict, or the path of its TOML
        file (a relative CSV path in it is relative to the file's folder, as for
        ``bohf ask new PATH --spec FILE``). Or keywords: ``budget`` and the options as exactly one
        of ``candidates`` (a float64 numpy array, one row per option, one column per attribute,
        with optional ``names`` and ``attributes``, or a pandas DataFrame whose index names the
        options), ``box`` (``{"names", "lower", "upper", "points_per_dim"}``, gridded) or ``csv``
        (a file as ``bohf ask new`` reads it). ``algorithm`` and ``params`` name a registry entry
        (:func:`algorithms`). An existing file is an error unless ``force``."""
        self = cls.__new__(cls)
        self._s = _native_create(
            path, spec=spec, budget=budget, algorithm=algorithm, params=params, candidates=candidates,
            names=names, attributes=attributes, box=box, csv=csv, seed=seed, name=name, question=question,
            force=force,
        )
        return self

    #: The same as :meth:`create` (the name of earlier versions).
    new = create

    @classmethod
    def open(cls, path: str | os.PathLike) -> "Session":
        """Opens the session file at ``path`` (made here or by ``bohf ask new``) and replays its
        answers. A damaged file raises :class:`SessionError` and is left as it is."""
        self = cls.__new__(cls)
        self._s = _bohf.NativeSession.open(os.fspath(path))
        return self

    #: The same as :meth:`open` (the name of earlier versions).
    load = open

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
        """True once the session has ended: the budget (or the costs) spent, or the algorithm asks
        only self-duels (see ``docs/ask-protocol.md``, "Self-duels")."""
        return bool(self._s.done())

    @property
    def automatic(self) -> int:
        """Self-duels (an option against itself) the session answered itself, never shown."""
        return int(self._s.automatic())

    def ask(self) -> Query | None:
        """The pending query (the same one until it is answered), or None once the session has
        ended. Never a duel of an option against itself: the session answers those itself."""
        m = self._s.ask()
        return None if m is None else _query(m)

    def tell(self, query: Query, answer: Any) -> None:
        """Answers ``query``, which must be the pending one; saved before this returns. A duel
        takes ``"a"``/``"b"`` (or the winning :class:`Option` or its candidate index), a choice the
        position of the chosen option in ``query.options`` (0-based) or the chosen :class:`Option`,
        a label ``True``/``False``, a value a finite number; any kind also takes the protocol's
        answer dict. Anything else
        raises :class:`AnswerError` with the JSON protocol's message, and nothing changes."""
        if not isinstance(query, Query):
            raise AnswerError("query: pass the query that ask() returned")
        self._s.tell(query.message, json.dumps(_answer_message(query, answer)))

    def recommend(self) -> Option | None:
        """The algorithm's current recommendation, or None if it has none yet."""
        m = self._s.recommend()
        return None if m is None else Option._of(m)

    def history(self) -> list[Record]:
        """The answered queries, oldest first, as :class:`Record` s."""
        return [Record._of(m) for m in self._s.history()]

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

"""Measures as IR people write them: ir_measures, trec_eval and ranx strings -> this engine's metrics.

``parse_measures('nDCG@10 P(rel=2)@5 MRR ndcg_cut.5,10 precision@5-l2')`` reads each
whitespace-separated measure in one of three grammars and returns :class:`Measure` values: the
canonical label (ir_measures' spelling, ``nDCG@10``, ``P(rel=2)@5``, ``RR``), the aggregate of this
package that computes it and that aggregate's named options (``k``, ``threshold``, ``gain``, ...).

- **ir_measures**: ``Name[(param=value, ...)][@cutoff]``, names case-insensitive, aliases (``MAP``
  -> ``AP``, ``MRR`` -> ``RR``, ``NumRelRet`` -> ``NumRet(rel=1)``); parameters ``cutoff``, ``rel``
  (the least relevant grade), ``judged_only``, ``dcg`` (``'log2'`` or ``'exp-log2'``), ``gains``,
  ``p``, ``recall`` (IPrec), ``beta`` (SetF, 1 only).
- **trec_eval**: ``name[.params]`` (``P.5,10``, ``ndcg_cut.5,10``, ``iprec_at_recall.0.5``; also
  pytrec_eval's ``P_5``), names case-sensitive, nicknames ``official`` and ``all_trec`` (the part
  of it this engine computes).
- **ranx**: ``name[@k][-lN]`` (``ndcg@10``, ``map@100``, ``precision@5-l2``, ``ndcg_burges@10``):
  ``-lN`` drops the grades below N before the measure, NDCG included.

With ``grammar=None`` a string is read in every grammar that knows it; when two grammars give it
different meanings (ranx's ``ndcg`` cuts the ideal at the run's length, trec_eval's does not) it
is an error asking for the canonical label or a grammar. Every error is one line naming the string
and, for an unknown name, the closest known names.

Example::

    from duckdb_ndcg.measures import parse_measures
    [m.name for m in parse_measures("MAP ndcg_cut.5,10 P(rel=2)@5")]  # ['AP', 'nDCG@5', 'nDCG@10', 'P(rel=2)@5']
"""

from __future__ import annotations

import ast
import difflib
import math
import re
from dataclasses import dataclass, field, replace

from duckdb_ndcg.macros import quoted

GRAMMARS = ("ir_measures", "trec_eval", "ranx")
_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cutoffs of P, recall, ...
_RECALLS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # iprec_at_recall's levels


@dataclass(frozen=True)
class Measure:
    """One measure: ``name`` its canonical label, ``metric`` the engine's computation (an aggregate
    of this package, or ``num_q``, ``num_ret``, ``num_rel``, ``num_nonrel_judged_ret``,
    ``iprec``), ``options`` that aggregate's named arguments, ``judged_only`` (drop unjudged
    returned rows first, ir_measures ``judged_only=True``), ``min_grade`` (ranx ``-lN``: grades
    below it count as unjudged), ``summary`` how queries combine (``mean``, ``sum``, ``gmean``:
    exp(mean(log(max(value, 1e-5)))), trec_eval's ``gm_map``), ``trec`` trec_eval's printed name
    when it has one."""

    name: str
    metric: str
    options: tuple[tuple[str, object], ...] = ()
    judged_only: bool = False
    min_grade: int | None = None
    summary: str = "mean"
    trec: str | None = field(default=None, compare=False)

    def option(self, name: str, default: object = None) -> object:
        return dict(self.options).get(name, default)


class MeasureError(ValueError):
    """A measure string that cannot be read: one line naming it."""


# --- ir_measures: each measure's engine metric and the parameters it takes (declared once) ---
@dataclass(frozen=True)
class _Spec:
    metric: str
    params: tuple[str, ...]
    at: str | None = "cutoff"  # what @x sets
    summary: str = "mean"


_BINARY = ("cutoff", "rel", "judged_only")
_IR = {
    "nDCG": _Spec("ndcg", ("cutoff", "dcg", "gains", "judged_only")),
    "P": _Spec("precision_at_k", _BINARY),
    "R": _Spec("recall_at_k", _BINARY),
    "AP": _Spec("average_precision", _BINARY),
    "RR": _Spec("reciprocal_rank", _BINARY),
    "Rprec": _Spec("r_precision", ("rel", "judged_only"), at=None),
    "Bpref": _Spec("bpref", ("rel",), at=None),
    "Judged": _Spec("judged_at_k", ("cutoff",)),
    "Success": _Spec("hit_rate", _BINARY),
    "RBP": _Spec("rbp", ("cutoff", "p", "rel")),
    "IPrec": _Spec("iprec", ("recall", "rel", "judged_only"), at="recall"),
    "SetP": _Spec("precision_at_k", ("rel", "judged_only"), at=None),
    "SetR": _Spec("recall_at_k", ("rel",), at=None),
    "SetF": _Spec("f1_at_k", ("rel", "beta", "judged_only"), at=None),
    "SetAP": _Spec("set_ap", ("rel", "judged_only"), at=None),
    "SetRelP": _Spec("set_rel_p", ("rel", "judged_only"), at=None),
    "infAP": _Spec("infap", ("rel",), at=None),
    "NumQ": _Spec("num_q", (), at=None, summary="sum"),
    "NumRet": _Spec("num_ret", ("rel",), at=None, summary="sum"),
    "NumRel": _Spec("num_rel", ("rel",), at=None, summary="sum"),
}
_IR_ALIASES = {
    "MAP": ("AP", {}),
    "MRR": ("RR", {}),
    "NDCG": ("nDCG", {}),
    "Precision": ("P", {}),
    "Recall": ("R", {}),
    "RPrec": ("Rprec", {}),
    "BPref": ("Bpref", {}),
    "NumRelRet": ("NumRet", {"rel": 1}),
}
# ir_measures measures this engine does not compute (named so the error says so, not "unknown")
_IR_MISSING = ("ERR", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11",
               "INST", "INSQ", "BPM", "Compat", "Accuracy", "StRecall", "alpha_nDCG", "NRBP")
_IR_LOWER = {n.lower(): n for n in [*_IR, *_IR_ALIASES, *_IR_MISSING]}
_DEFAULTS = {"rel": 1, "judged_only": False, "dcg": "log2", "p": 0.8, "beta": 1.0}
_PARAM_ORDER = ("dcg", "gains", "judged_only", "rel", "p", "beta", "min_rel", "full_ideal")

# --- trec_eval: its measures in its own order (the order it prints), with their ir_measures form ---
# name -> (ir_measures label or None, what the .params list sets, its default list)
_TREC: dict[str, tuple[str | None, str | None, tuple]] = {
    "runid": (None, None, ()),
    "num_q": ("NumQ", None, ()),
    "num_ret": ("NumRet", None, ()),
    "num_rel": ("NumRel", None, ()),
    "num_rel_ret": ("NumRet(rel=1)", None, ()),
    "map": ("AP", None, ()),
    "gm_map": ("AP", None, ()),
    "Rprec": ("Rprec", None, ()),
    "bpref": ("Bpref", None, ()),
    "recip_rank": ("RR", None, ()),
    "iprec_at_recall": ("IPrec", "recall", _RECALLS),
    "P": ("P", "cutoff", _CUTS),
    "relstring": (None, None, ()),
    "recall": ("R", "cutoff", _CUTS),
    "infAP": ("infAP", None, ()),
    "gm_bpref": ("Bpref", None, ()),
    "Rprec_mult": (None, None, ()),
    "utility": (None, None, ()),
    "11pt_avg": (None, None, ()),
    "binG": (None, None, ()),
    "G": (None, None, ()),
    "ndcg": ("nDCG", None, ()),
    "ndcg_rel": (None, None, ()),
    "Rndcg": (None, None, ()),
    "ndcg_cut": ("nDCG", "cutoff", _CUTS),
    "map_cut": ("AP", "cutoff", _CUTS),
    "relative_P": (None, None, ()),
    "success": ("Success", "cutoff", (1, 5, 10)),
    "set_P": ("SetP", None, ()),
    "set_relative_P": ("SetRelP", None, ()),
    "set_recall": ("SetR", None, ()),
    "set_map": ("SetAP", None, ()),
    "set_F": ("SetF", None, ()),
    "num_nonrel_judged_ret": ("NumNonRelJudgedRet", None, ()),
    "rbp": (None, None, ()),
    "rbp_resid": (None, None, ()),
    "unj": (None, None, ()),
}
TREC_ORDER = tuple(_TREC)
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P")
ALL_TREC = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp",
            "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
            "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
            "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret")
NICKNAMES = {"official": OFFICIAL, "all_trec": ALL_TREC}
_TREC_SUMMARY_ONLY = {"runid", "num_q"}  # printed for "all" only

# --- ranx: name -> (ir_measures name, its options) ---
_RANX = {
    "ndcg": ("nDCG", {}),
    "ndcg_burges": ("nDCG", {"dcg": "exp-log2"}),
    "map": ("AP", {}),
    "mrr": ("RR", {}),
    "precision": ("P", {}),
    "recall": ("R", {}),
    "hit_rate": ("Success", {}),
    "r-precision": ("Rprec", {}),
    "f1": ("SetF", {}),
}
_RANX_MISSING = {
    "hits": "ranx hits (a count of relevant items) is not computed; use precision@k",
    "bpref": "ranx bpref differs from trec_eval's and is not computed; Bpref is trec_eval's",
    "rbp": "ranx rbp weighs grades and is not computed; RBP(p=..., rel=1) is binary RBP",
    "dcg": "ranx dcg is not computed here; use the dcg aggregate",
    "dcg_burges": "ranx dcg_burges is not computed here; use the dcg aggregate",
}


def parse_measures(text: str, grammar: str | None = None) -> list[Measure]:
    """Read whitespace-separated measures (``'nDCG@10 P(rel=2)@5 MRR'``) into :class:`Measure`
    values, in the order given, each once. ``grammar``: ``'ir_measures'``, ``'trec_eval'``,
    ``'ranx'`` or None (any, an error when two grammars read a string differently).

    Example: ``parse_measures('ndcg_cut.5,10')`` -> nDCG@5, nDCG@10."""
    if grammar is not None and grammar not in GRAMMARS:
        raise MeasureError(f"grammar must be 'ir_measures', 'trec_eval' or 'ranx', got {grammar!r}")
    tokens = _split(text)
    if not tokens:
        raise MeasureError(f"measures must name at least one measure, got {text!r}")
    result: list[Measure] = []
    for token in tokens:
        for measure in _parse_one(token, grammar):
            if measure not in result:
                result.append(measure)
    return result


def _split(text: str) -> list[str]:
    """Whitespace-separated tokens, keeping spaces inside parentheses and braces."""
    tokens, depth, current = [], 0, ""
    for char in text:
        depth += (char in "({[") - (char in ")}]")
        if char.isspace() and depth == 0:
            if current:
                tokens.append(current)
            current = ""
        else:
            current += char
    if current:
        tokens.append(current)
    return tokens


def _parse_one(token: str, grammar: str | None) -> list[Measure]:
    readers = {"ir_measures": _ir_measures, "trec_eval": _trec_eval, "ranx": _ranx}
    if grammar is not None:
        return readers[grammar](token)
    readings: dict[str, list[Measure] | MeasureError] = {}
    failed: list[MeasureError] = []  # a grammar that knows the name but not this use of it
    for name, reader in readers.items():
        try:
            readings[name] = reader(token)
        except _Unknown:
            continue
        except _NotComputed as error:
            readings[name] = error
        except MeasureError as error:
            failed.append(error)
    if not readings and failed:
        raise failed[0]
    if not readings:
        raise MeasureError(_unknown_message(token, [*_IR, *_IR_ALIASES, *_TREC, *_RANX]))
    meanings = {str(r) if isinstance(r, MeasureError) else tuple(r) for r in readings.values()}
    if len(meanings) == 1 or all(isinstance(r, MeasureError) for r in readings.values()):
        reading = next(iter(readings.values()))
        if isinstance(reading, MeasureError):
            raise reading
        return reading
    described = "; ".join(
        f"{g}: {r}" if isinstance(r, MeasureError) else f"{g}: {' '.join(m.name for m in r)}"
        for g, r in readings.items()
    )
    raise MeasureError(f"measure {token!r} is ambiguous ({described}): write the canonical "
                       "label or pass the grammar")


class _Unknown(MeasureError):
    """The grammar does not know this name (another grammar may)."""


class _NotComputed(MeasureError):
    """The grammar knows this name, but this engine does not compute it (as that grammar means
    it): another grammar's reading of the same string would be a different number."""


def _unknown_message(token: str, names: list[str]) -> str:
    head = re.split(r"[@(.\-]", token, maxsplit=1)[0]
    close = difflib.get_close_matches(head, sorted(set(names)), n=4, cutoff=0.5)
    lower = [n for n in sorted(set(names)) if n.lower() == head.lower() and n not in close]
    close = (lower + close)[:4]
    hint = f"; closest: {', '.join(close)}" if close else ""
    return f"unknown measure {token!r}{hint}"


# --- ir_measures ---
_IR_SHAPE = re.compile(r"^([A-Za-z_][A-Za-z_0-9]*)(?:\((.*)\))?(?:@([^@()]*))?$", re.DOTALL)


def _ir_measures(token: str) -> list[Measure]:
    match = _IR_SHAPE.match(token)
    if not match or match[1].lower() not in _IR_LOWER:
        raise _Unknown(_unknown_message(token, [*_IR, *_IR_ALIASES]))
    name = _IR_LOWER[match[1].lower()]
    if name in _IR_MISSING:
        raise _NotComputed(f"measure {token!r}: ir_measures {name} is not computed by this engine")
    params: dict[str, object] = {}
    if name in _IR_ALIASES:
        name, fixed = _IR_ALIASES[name]
        params.update(fixed)
    if match[2] is not None:
        params.update(_keywords(match[2], token))
    spec = _IR[name]
    if match[3] is not None:
        if "-l" in match[3]:  # ranx's name@k-lN
            raise _Unknown(_unknown_message(token, [*_IR, *_IR_ALIASES]))
        if spec.at is None:
            raise MeasureError(f"measure {token!r}: {name} takes no @{spec.at or 'cutoff'}")
        params[spec.at] = match[3]
    if name in ("P", "Success", "Judged") and "cutoff" not in params:
        raise MeasureError(f"measure {token!r}: {name} needs a cutoff, as in {name}@10")
    return [_measure(name, params, token)]


def _keywords(args: str, token: str) -> dict[str, object]:
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except SyntaxError:
        raise MeasureError(f"measure {token!r}: cannot read the parameters {args!r}") from None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise MeasureError(f"measure {token!r}: parameters must be named, as in P(rel=2)@5")
    values = {}
    for keyword in call.keywords:
        try:
            values[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            raise MeasureError(
                f"measure {token!r}: {keyword.arg} must be a literal value") from None
    return values


def _measure(name: str, params: dict[str, object], token: str, **extra: object) -> Measure:
    """The Measure of ir_measures ``name`` with ``params`` (checked against its declaration)."""
    spec = _IR[name]
    for param in params:
        if param not in spec.params:
            takes = ", ".join(spec.params) or "no parameters"
            raise MeasureError(f"measure {token!r}: {name} does not take {param} (takes {takes})")
    params = {p: _checked(p, v, token) for p, v in params.items()}
    options: dict[str, object] = {}
    cutoff = params.get("cutoff")
    if cutoff is not None:
        options["k"] = cutoff
    if "rel" in params:
        options["threshold"] = params["rel"]
    if spec.metric == "ndcg":
        if params.get("dcg", "log2") == "exp-log2":
            options["gain"] = "exponential"
        if "gains" in params:
            options["gain"] = params["gains"]
        options["full_ideal"] = cutoff is None and extra.get("full_ideal", True)
        # a negative grade gains 0 in trec_eval, pytrec_eval (ir_measures) and ranx (which
        # drops grades below 1)
        options["negative"] = "zero"
    if spec.metric == "rbp":
        if "rel" not in params:
            raise MeasureError(f"measure {token!r}: RBP without rel weighs grades, which this "
                               "engine does not compute; write RBP(rel=1) for binary RBP")
        options["p"] = params.get("p", 0.8)
    if spec.metric == "iprec":
        if "recall" not in params:
            raise MeasureError(f"measure {token!r}: IPrec needs a recall level, as in IPrec@0.5")
        options["recall"] = params["recall"]
    metric = spec.metric
    if name == "NumRet" and "rel" in params:
        metric = "num_rel_ret"
    label = _label(name, params, spec, extra)
    return Measure(label, metric, tuple(sorted(options.items())),
                   judged_only=bool(params.get("judged_only", False)),
                   min_grade=extra.get("min_grade"),  # type: ignore[arg-type]
                   summary=str(extra.get("summary", spec.summary)),
                   trec=extra.get("trec"))  # type: ignore[arg-type]


def _checked(param: str, value: object, token: str) -> object:
    def bad(expected: str) -> MeasureError:
        return MeasureError(f"measure {token!r}: {param} must be {expected}, got {value!r}")

    if param == "cutoff":
        text = str(value).strip()
        if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
            raise bad("a whole number >= 1")
        return int(text)
    if param == "recall":
        try:
            level = float(str(value))
        except ValueError:
            raise bad("a recall level between 0 and 1") from None
        if not 0 <= level <= 1:
            raise bad("a recall level between 0 and 1")
        return level
    if param == "mult":  # Rprec_mult: a multiple of R, the relevant rows
        try:
            mult = float(str(value))
        except ValueError:
            raise bad("a positive number (a multiple of the relevant rows)") from None
        if not (math.isfinite(mult) and mult > 0):
            raise bad("a positive number (a multiple of the relevant rows)")
        return mult
    if param in ("rel", "min_rel"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("a whole number (the least relevant grade)")
        return value
    if param == "judged_only":
        if not isinstance(value, bool):
            raise bad("True or False")
        return value
    if param == "dcg":
        if value not in ("log2", "exp-log2"):
            raise bad("'log2' or 'exp-log2'")
        return value
    if param == "gains":
        if not isinstance(value, dict) or not value or not all(
                isinstance(k, int) and not isinstance(k, bool)
                and isinstance(v, (int, float)) and not isinstance(v, bool)
                and math.isfinite(v) for k, v in value.items()):
            raise bad("a dict from whole grades to finite gains, as {0:0,1:1,2:3}")
        return tuple(sorted(value.items()))
    if param == "p":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise bad("a number between 0 and 1")
        return float(value)
    if param == "beta":
        if value != 1:
            raise MeasureError(f"measure {token!r}: only beta=1 (F1) is computed, got {value!r}")
        return 1.0
    raise MeasureError(f"measure {token!r}: unknown parameter {param}")  # pragma: no cover


def _label(name: str, params: dict[str, object], spec: _Spec, extra: dict) -> str:
    shown = dict(params)
    if extra.get("min_grade") is not None:
        shown["min_rel"] = extra["min_grade"]
    if spec.metric == "ndcg" and params.get("cutoff") is None and not extra.get("full_ideal", True):
        shown["full_ideal"] = False
    parts = []
    for param in _PARAM_ORDER:
        if param not in shown or (param in _DEFAULTS and shown[param] == _DEFAULTS[param]
                                  and not (name == "RBP" and param == "rel")
                                  and not (name == "NumRet" and param == "rel")):
            continue
        value = shown[param]
        if param == "gains":
            text = "{" + ",".join(f"{k}:{v}" for k, v in value) + "}"  # type: ignore[misc]
        else:
            text = repr(value)
        parts.append(f"{param}={text}")
    label = name + (f"({','.join(parts)})" if parts else "")
    if spec.at is not None and spec.at in params:
        label += f"@{params[spec.at]}"
    if extra.get("summary") == "gmean":
        label = f"GM_{label}"
    return label


# --- trec_eval ---
# trec_eval measures ir_measures has no name for: trec_eval name -> (engine metric, what the
# .params list sets (None: no list), its default list, how a value prints in the measure's name)
# The list kinds: cutoff, mult (one measure per value); gains (trec_eval's "level=gain" pairs,
# m_ndcg.c), gains_p (those and p=, m_rbp.c), p (p= only), length (one whole number, relstring):
# one measure named name_<the parameters as written>, as trec_eval names it.
_TREC_ONLY: dict[str, tuple[str, str | None, tuple, str]] = {
    "relstring": ("relstring", "length", (), ""),
    "unj": ("unj", "cutoff", (5, 10, 20), "{}"),
    "rbp": ("trec_rbp", "gains_p", (), ""),
    "rbp_resid": ("rbp_resid", "p", (), ""),
    "utility": ("utility", "coefficients", (), ""),
    "11pt_avg": ("11pt_avg", "levels", (), ""),
    "relative_P": ("relative_p", "cutoff", _CUTS, "{}"),
    "Rprec_mult": ("rprec_mult", "mult", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
                   "{:.2f}"),
    "ndcg_rel": ("ndcg_rel", "gains", (), ""),
    "Rndcg": ("rndcg", "gains", (), ""),
    "binG": ("bing", None, (), ""),
    "G": ("trec_g", "gains", (), ""),
}
_TREC_P = 0.9  # rbp's and rbp_resid's p without p= (m_rbp.c)
_RELSTRING = 10  # relstring's length without a parameter (m_relstring.c)


def _trec_params(sets: str, args: str | None, defaults: tuple, token: str) -> list[object]:
    """A trec_eval parameter list (``5,10`` of ``P.5,10``), or the measure's defaults without
    one: each value checked as ``sets`` (cutoff, recall, mult), distinct, sorted."""
    if args is not None and not args.strip():
        raise MeasureError(f"measure {token!r}: an empty parameter list")
    values = defaults if args is None else tuple(args.split(","))
    if sets == "cutoff":  # trec_eval reads a cutoff with atol: 23.4 is 23 (ndcg_cut_23)
        values = tuple(re.sub(r"^([0-9]+)\.[0-9]*$", r"\1", str(v).strip()) for v in values)
    return sorted({_checked(sets, v, token) for v in values})  # type: ignore[type-var]


def _trec_only(name: str, args: str | None, token: str) -> list[Measure]:
    """The Measures of a trec_eval-only measure (utility with its default coefficients 1, -1, 0,
    0; 11pt_avg; relative_P at cutoffs; Rprec_mult at multiples of R), labelled as trec_eval
    prints them."""
    metric, sets, defaults, printed = _TREC_ONLY[name]
    if sets in ("gains", "gains_p", "p", "length"):
        return [_trec_pairs(name, metric, sets, args, token)]
    if sets in ("coefficients", "levels"):
        return [_trec_numbers(name, metric, sets, args, token)]
    if sets is None:
        if args is not None:
            raise MeasureError(f"measure {token!r}: trec_eval {name} takes no parameters here "
                               "(utility: its default coefficients 1, -1, 0, 0 only)")
        return [Measure(name, metric, (("threshold", 1),), trec=name)]
    result = []
    for value in _trec_params(sets, args, defaults, token):
        label = f"{name}_{printed.format(value)}"
        result.append(Measure(label, metric, (("n", value), ("threshold", 1)), trec=label))
    return result


def _trec_numbers(name: str, metric: str, sets: str, args: str | None, token: str) -> Measure:
    """utility's four coefficients (m_utility.c: relevant returned, other returned, relevant not
    returned, other not returned; default 1,-1,0,0) or 11pt_avg's recall levels (m_11pt_avg.c;
    default 0.0, 0.1, ..., 1.0), named ``name_<args>`` as trec_eval prints them."""
    label = name if args is None else f"{name}_{args}"
    what = {"coefficients": "four numbers (utility.1,-1,0,0)",
            "levels": "recall levels between 0 and 1 (11pt_avg.0.25,0.5)"}[sets]
    try:
        values = [float(v) for v in args.split(",")] if args is not None else (
            [1.0, -1.0, 0.0, 0.0] if sets == "coefficients" else list(_RECALLS))
    except ValueError:
        raise MeasureError(f"measure {token!r}: {name} takes {what}") from None
    if (sets == "coefficients" and len(values) != 4) or not all(map(math.isfinite, values)) or (
            sets == "levels" and not all(0 <= v <= 1 for v in values)):
        raise MeasureError(f"measure {token!r}: {name} takes {what}")
    option = "coefficients" if sets == "coefficients" else "levels"
    return Measure(label, metric, ((option, tuple(values)), ("threshold", 1)), trec=label)


def _trec_pairs(name: str, metric: str, sets: str, args: str | None, token: str) -> Measure:
    """The Measure of a trec_eval measure with "name=value" pairs (``ndcg.1=3,2=9``: the gain of
    grades 1 and 2; ``rbp.p=0.8``) or, for relstring, one length: named ``name_<args>`` as
    trec_eval prints it, ``name`` without parameters."""
    label = name if args is None else f"{name}_{args}"
    options: dict[str, object] = {"threshold": 1}
    if sets == "length":
        options["n"] = _RELSTRING if args is None else _checked("cutoff", args, token)
        return Measure(label, metric, tuple(sorted(options.items())), trec=label)
    gains: dict[int, float] = {}
    p = _TREC_P
    takes = {"gains": "grade=gain pairs (1=3,2=9)", "gains_p": "grade=gain pairs and p=",
             "p": "p="}[sets]
    for pair in [] if args is None else args.split(","):
        key, _, value = pair.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not _ or not math.isfinite(number):
            raise MeasureError(f"measure {token!r}: {pair!r} is not name=number ({name} takes "
                               f"{takes})")
        if key == "p" and sets in ("gains_p", "p"):
            p = _checked("p", number, token)  # type: ignore[assignment]
        elif re.fullmatch(r"\+?[0-9]+", key) and sets != "p":
            gains.setdefault(int(key), number)  # the first of a grade named twice, as trec_eval
        else:
            raise MeasureError(f"measure {token!r}: {name} does not take {key!r} (takes {takes})")
    if sets != "p":
        options["gain"] = tuple(sorted(gains.items()))
    if sets != "gains":
        options["p"] = p
    return Measure(label, metric, tuple(sorted(options.items())), trec=label)


_TREC_SHAPE = re.compile(r"^([A-Za-z0-9_]+?)(?:[._]([0-9][0-9.,]*))?$")


def _trec_eval(token: str) -> list[Measure]:
    if token in NICKNAMES:
        return [m for name in NICKNAMES[token] if _TREC[name][0] for m in _trec_eval(name)]
    name, args = token, None
    if "." in token:
        name, args = token.split(".", 1)
    elif token not in _TREC:
        match = _TREC_SHAPE.match(token)  # pytrec_eval's P_5
        if match and match[2] is not None and match[1] in _TREC:
            name, args = match[1], match[2]
    if name not in _TREC:
        raise _Unknown(_unknown_message(token, [*_TREC, *NICKNAMES]))
    if name == "num_nonrel_judged_ret" and args is None:  # no ir_measures measure: its own label
        return [Measure("NumNonRelJudgedRet", name, (("threshold", 1),), summary="sum", trec=name)]
    if name in _TREC_ONLY:
        return _trec_only(name, args, token)
    label, sets, defaults = _TREC[name]
    if label is None:
        raise _NotComputed(f"measure {token!r}: trec_eval {name} is not computed by this engine")
    if args is not None and name == "ndcg":  # gains of grades: trec_eval's own nDCG
        return [_trec_pairs(name, "trec_ndcg", "gains", args, token)]
    if args is not None and sets is None:
        raise MeasureError(f"measure {token!r}: trec_eval {name} takes no parameters")
    spec_name = re.split(r"[(@]", label)[0]
    summary = "gmean" if name.startswith("gm_") else _IR[spec_name].summary
    fixed = {"rel": 1} if name == "num_rel_ret" else {}
    result = []
    if sets is None:
        result.append(_measure(spec_name, fixed, token, summary=summary, trec=name,
                               full_ideal=True))
        return result
    for value in _trec_params(sets, args, defaults, token):
        printed = f"{value:.2f}" if sets == "recall" else str(value)
        measure = _measure(spec_name, {**fixed, sets: value}, token, summary=summary,
                           trec=f"{name}_{printed}")
        if spec_name == "IPrec":  # trec_eval 10 rounds the level's count of relevant rows
            measure = replace(measure, name=measure.name.replace("IPrec", "IPrec(rounding=10)"),
                              options=tuple(sorted({**dict(measure.options),
                                                    "rounding": "trec_eval_10"}.items())))
        result.append(measure)
    return result


# --- ranx ---
_RANX_SHAPE = re.compile(r"^([a-z0-9_\-]+?)(?:@([^@]*?))?(?:-l(.*))?$")


def _ranx(token: str) -> list[Measure]:
    match = _RANX_SHAPE.match(token)
    rbp = re.match(r"^rbp[.@]", token)
    if rbp or (match and match[1] in _RANX_MISSING):
        raise _NotComputed(f"measure {token!r}: {_RANX_MISSING['rbp' if rbp else match[1]]}")
    if not match or match[1] not in _RANX:
        raise _Unknown(_unknown_message(token, [*_RANX, *_RANX_MISSING]))
    name, fixed = _RANX[match[1]]
    params: dict[str, object] = dict(fixed)
    extra: dict[str, object] = {}
    if match[2] is not None:
        params["cutoff"] = match[2]
    if match[3] is not None:
        level = match[3]
        if not re.fullmatch(r"-?[0-9]+", level):
            raise MeasureError(f"measure {token!r}: -l must be a whole grade, got {level!r}")
        if name == "nDCG":
            extra["min_grade"] = int(level)
        else:
            params["rel"] = int(level)
    if match[2] is None:
        # ranx without @k reads the whole run: P and R over the returned rows, nDCG's ideal cut
        # at the run's length
        name = {"P": "SetP", "R": "SetR"}.get(name, name)
        extra["full_ideal"] = False
    elif name == "SetF":
        raise MeasureError(f"measure {token!r}: f1@k is not computed (ir_measures has no F@k); "
                           "f1 without @k is SetF")
    if name == "Success" and match[2] is None:
        raise MeasureError(f"measure {token!r}: hit_rate needs a cutoff, as in hit_rate@10")
    return [_measure(name, params, token, **extra)]


def with_threshold(measure: Measure, threshold: int) -> Measure:
    """The measure with its ``threshold`` (trec_eval ``-l``) set, where it reads one."""
    if measure.metric in ("ndcg", "judged_at_k", "num_q", "num_ret"):
        return measure
    options = dict(measure.options)
    options["threshold"] = threshold
    return replace(measure, options=tuple(sorted(options.items())))


# --- scoring: every measure through the engine's aggregates, one query ---
_COUNTS = {  # metric -> its SQL over rel expression {r}, rank expression {k}, threshold {t}
    "num_q": "1",
    "num_ret": "count({k})",
    "num_rel": "count(*) FILTER (WHERE {r} >= {t})",
    "num_rel_ret": "count({k}) FILTER (WHERE {r} >= {t})",
    # trec_eval reads a grade below 0 as "not in the pool", neither relevant nor judged
    "num_nonrel_judged_ret": "count({k}) FILTER (WHERE {r} >= 0 AND {r} < {t})",
    # interpolated precision at recall level {l}: the best precision j / p_j over the relevant
    # returned rows (the j-th at position p_j) from the c-th on, c the level in relevant rows
    # ({c}, _IPREC_COUNT); 0 when none
    "iprec": (
        "list_transform([{{hits: list_filter(list_transform("
        "list({r} >= {t} ORDER BY {k} ASC, _i DESC) FILTER (WHERE {k} IS NOT NULL), "
        "lambda h, p: CASE WHEN h THEN p END), lambda p: p IS NOT NULL), "
        "relevant: count(*) FILTER (WHERE {r} >= {t})}}], "
        "lambda s: coalesce(list_max(list_transform(s.hits, lambda p, j: "
        "CASE WHEN j >= {c} THEN j / p END)), 0.0))[1]"
    ),
}
# the returned rows' relevance flags in trec_eval's order, and R, for the measures read from them
_RELS = ("{{rels: list(coalesce({r} >= {t}, false) ORDER BY {k} ASC, _i DESC) "
         "FILTER (WHERE {k} IS NOT NULL), relevant: count(*) FILTER (WHERE {r} >= {t})}}")
_COUNTS.update({
    # trec_eval set_map (ir_measures SetAP): relevant returned^2 / (returned x relevant)
    "set_ap": ("CASE WHEN count({k}) > 0 AND count(*) FILTER (WHERE {r} >= {t}) > 0 THEN "
               "(count({k}) FILTER (WHERE {r} >= {t}))::DOUBLE "
               "* (count({k}) FILTER (WHERE {r} >= {t})) "
               "/ (count({k})::DOUBLE * (count(*) FILTER (WHERE {r} >= {t}))) ELSE 0.0 END"),
    # trec_eval set_relative_P (ir_measures SetRelP): relevant returned / min(returned, relevant)
    "set_rel_p": ("CASE WHEN count({k}) > 0 AND count(*) FILTER (WHERE {r} >= {t}) > 0 THEN "
                  "(count({k}) FILTER (WHERE {r} >= {t}))::DOUBLE "
                  "/ least(count({k}), count(*) FILTER (WHERE {r} >= {t})) ELSE 0.0 END"),
    # trec_eval utility (m_utility.c): c1 x relevant returned + c2 x other returned + c3 x
    # relevant not returned + c4 x (N + relevant returned - returned - relevant), N = 0 (trec_eval
    # -N, the collection's size, is not read here); {u} the coefficients
    "utility": ("{u}[1] * count({k}) FILTER (WHERE {r} >= {t}) "
                "+ {u}[2] * (count({k}) - count({k}) FILTER (WHERE {r} >= {t})) "
                "+ {u}[3] * (count(*) FILTER (WHERE {r} >= {t}) "
                "- count({k}) FILTER (WHERE {r} >= {t})) "
                "+ {u}[4] * (count({k}) FILTER (WHERE {r} >= {t}) - count({k}) "
                "- count(*) FILTER (WHERE {r} >= {t}))"),
    # trec_eval relative_P_n: relevant among the first n returned / min(n, R); 0 when R is 0
    "relative_p": ("list_transform([" + _RELS + "], lambda s: CASE WHEN s.relevant = 0 THEN 0.0 "
                   "ELSE len(list_filter(s.rels[1:{n}], lambda h: h)) / least({n}, s.relevant) "
                   "END)[1]"),
    # trec_eval Rprec_mult_x: precision at c = (long)(x R + 0.9) rows (past the returned ones,
    # the relevant returned / c); 0 when c is 0
    "rprec_mult": ("list_transform([" + _RELS + "], lambda s: list_transform("
                   "[floor({n} * s.relevant + 0.9)::BIGINT], lambda c: CASE WHEN c > 0 THEN "
                   "len(list_filter(s.rels[1:c], lambda h: h)) / c ELSE 0.0 END)[1])[1]"),
})
# the level l of IPrec as a count of the R relevant rows: trec_eval 9 (and pytrec_eval, which
# ir_measures runs) truncates l R + 0.9; trec_eval 10 rounds l R half away from zero (lround)
_IPREC_COUNT = {"trec_eval_9": "floor(s.relevant * {l} + 0.9)", "trec_eval_10": "round(s.relevant * {l})"}
# trec_eval 11pt_avg: the mean of the interpolated precisions at its levels (by default the
# eleven of iprec_at_recall_0.00 ..
# 1.00, each level's count of relevant rows rounded as trec_eval 10 rounds it
def _eleven_point(levels: tuple[float, ...]) -> str:
    """11pt_avg's SQL template at ``levels`` (numbers, written into the SQL as literals)."""
    return "(" + " + ".join(
        _COUNTS["iprec"].replace("{c}", _IPREC_COUNT["trec_eval_10"].replace(
            "{l}", f"{float(level)!r}::DOUBLE")) for level in levels) + f") / {len(levels)}.0"


_COUNTS["11pt_avg"] = _eleven_point(_RECALLS)
# trec_eval's own measures over one query's returned rows as its relevance codes, in its order
# ({rels}), the judged grades ({judged}), the ideal's positive gains ({ideal}), the relevant
# documents ({relevant}) and the gain MAP ({g}): sql/formulas/trec_eval.sql
_TREC_LISTS = {
    "infap": "_ndcg_trec_infap({rels}, {relevant}, {t})",
    "bing": "_ndcg_trec_bing({rels}, {relevant}, {t})",
    "trec_ndcg": "_ndcg_trec_ndcg({rels}, {ideal}, {g})",
    "ndcg_rel": "_ndcg_trec_ndcg_rel({rels}, {ideal}, {g})",
    "rndcg": "_ndcg_trec_rndcg({rels}, {ideal}, {g}, {relevant})",
    "trec_g": "_ndcg_trec_g({rels}, {ideal}, {g})",
    "trec_rbp": "_ndcg_trec_rbp({rels}, {judged}, {p}, {g})",
    "rbp_resid": "_ndcg_trec_rbp_resid({rels}, {p})",
    "unj": "_ndcg_trec_unj({rels}, {n})",
    "relstring": "_ndcg_trec_relstring({rels}, {n})",
}
TEXT_METRICS = {"relstring"}  # a text per query, no summary (trec_eval prints it per query only)
# a returned row's trec_eval code: its grade, -2 a negative grade in the qrels (pooled,
# unjudged: {p} the row's qrels grade is not NULL), -1 not in the qrels
_CODE = "CASE WHEN {r} IS NOT NULL THEN trunc({r})::BIGINT WHEN _pool THEN -2 ELSE -1 END"
# over queries, summed one after the other in query order as trec_eval sums them (a mean on a
# rounding boundary of the 4th decimal then prints as trec_eval prints it)
_SUMMARIES = {
    "mean": "list_sum(list({c} ORDER BY query_id)) / count(*)",
    "sum": "sum({c})",
    "gmean": "exp(list_sum(list(ln(greatest({c}, 1e-5)) ORDER BY query_id)) / count(*))",
}


def measures_sql(measures: list[Measure], judged: str, query_col: str = "query_id",
                 item_col: str = "item_id", rel_col: str = "rel",
                 rnk_col: str = "rnk", pool_col: str | None = None) -> tuple[str, list[object]]:
    """One SQL query scoring ``measures`` on the judged-run table ``judged`` (one row per (query,
    item): ``rel`` NULL unjudged, ``rnk`` NULL judged but not returned, smaller first; equal rnk
    broken by item descending, trec_eval's order): columns ``query_id, m0, m1, ...`` (the
    measures in order), and the parameters to bind. Values of options are bound, never pasted.
    ``pool_col``: a column not NULL for a row in the qrels, whose ``rel`` NULL then means pooled
    but unjudged (trec_eval's negative grades: infAP, relstring), not "not in the pool"."""
    params: list[object] = []

    def bind(value: object) -> str:
        params.append(value)
        return f"${len(params)}"

    columns, first = [], {}  # first: a computation's column (gm_map reads map's AP once)
    for i, measure in enumerate(measures):
        same = (measure.metric, measure.options, measure.judged_only, measure.min_grade)
        if same in first:
            continue
        first[same] = i
        r, k = "_rel", "_rnk"
        if measure.min_grade is not None:
            r = f"(CASE WHEN _rel >= {bind(measure.min_grade)} THEN _rel END)"
        if measure.judged_only:
            k = f"(CASE WHEN {r} IS NOT NULL THEN _rnk END)"
        options = dict(measure.options)
        if measure.metric in _TREC_LISTS:
            code = _CODE.format(r=r)
            rels = (f"coalesce(list({code} ORDER BY {k} ASC, _i DESC) FILTER (WHERE {k} IS NOT "
                    "NULL), []::BIGINT[])")
            judged_grades = (f"coalesce(list(trunc({r})::BIGINT) FILTER (WHERE {r} >= 0), "
                             "[]::BIGINT[])")
            template = _TREC_LISTS[measure.metric]
            gains = dict(options.get("gain", ()))  # type: ignore[arg-type]
            g = (f"MAP({bind(list(map(float, gains)))}::DOUBLE[], "
                 f"{bind(list(map(float, gains.values())))}::DOUBLE[])") if "{g}" in template else ""
            sql = template.format(
                rels=rels, judged=judged_grades, g=g,
                ideal=f"_ndcg_trec_ideal({judged_grades}, {g})" if "{ideal}" in template else "",
                relevant=f"count(*) FILTER (WHERE {r} >= {bind(options.get('threshold', 1))})"
                if "{relevant}" in template else "",
                t=bind(options.get("threshold", 1)) if "{t}" in template else "",
                p=bind(options.get("p")) if "{p}" in template else "",
                n=bind(options.get("n")) if "{n}" in template else "")
        elif measure.metric in _COUNTS:
            template = _COUNTS[measure.metric]
            if measure.metric == "11pt_avg" and "levels" in options:
                template = _eleven_point(options["levels"])  # type: ignore[arg-type]
            if measure.metric == "iprec":
                count = _IPREC_COUNT[str(options.get("rounding", "trec_eval_9"))]
                template = template.replace("{c}", count.replace("{", "{{").replace("}", "}}"))
                template = template.replace("{{l}}", "{l}")
            sql = template.format(
                r=r, k=k,
                t=bind(options.get("threshold", 1)) if "{t}" in template else "",
                u=f"({bind(list(options.get('coefficients', (1.0, -1.0, 0.0, 0.0))))}::DOUBLE[])"
                if "{u}" in template else "",
                l=bind(options.get("recall", 0.0)) if "{l}" in template else "",
                n=bind(options.get("n")) if "{n}" in template else "")
        else:
            named = "".join(
                f", {name} := MAP({bind([g for g, _ in value])}, {bind([v for _, v in value])})"
                if name == "gain" and isinstance(value, tuple) else f", {name} := {bind(value)}"
                for name, value in options.items())
            sql = f"{measure.metric}({r}, {k}{named}, ties := 'key', tie_key := _i)"
        kind = "VARCHAR" if measure.metric in TEXT_METRICS else "DOUBLE"
        columns.append(f"({sql})::{kind} AS m{i}")
    named = ", ".join(
        f"m{first[(m.metric, m.options, m.judged_only, m.min_grade)]} AS m{i}"
        for i, m in enumerate(measures))
    sql = (
        f"SELECT query_id, {named} FROM (SELECT _q AS query_id, {', '.join(columns)} FROM ("
        f"SELECT {quoted(query_col)} AS _q, {quoted(item_col)} AS _i, "
        f"TRY_CAST({quoted(rel_col)} AS DOUBLE) AS _rel, {quoted(rnk_col)} AS _rnk, "
        f"{f'{quoted(pool_col)} IS NOT NULL' if pool_col else 'false'} AS _pool "
        f"FROM {quoted(judged)}) GROUP BY _q)"
    )
    return sql, params


def summary_sql(measures: list[Measure], per_query: str) -> str:
    """The summary over the queries of ``per_query`` (a table of measures_sql's columns): each
    measure's mean, sum (the counts) or geometric mean (trec_eval gm_map), as its summary says."""
    columns = ", ".join(
        f"NULL AS m{i}" if m.metric in TEXT_METRICS else
        f"{_SUMMARIES[m.summary].format(c=f'm{i}')}::DOUBLE AS m{i}" for i, m in enumerate(measures)
    )
    return f"SELECT {columns} FROM {quoted(per_query)}"


def scores(con: object, judged: str, measures: str | list[Measure], grammar: str | None = None,
           query_col: str = "query_id", item_col: str = "item_id", rel_col: str = "rel",
           rnk_col: str = "rnk", pool_col: str | None = None) -> object:
    """Every query's value of each measure, long format ``(query_id, measure, value)``, from the
    judged-run table ``judged`` (see :func:`measures_sql`, and its ``pool_col``); ``measures`` a
    string of measures or parsed ones. A DuckDB relation.

    Example: ``scores(con, 'judged_run', 'nDCG@10 P(rel=2)@5 RR').df()``"""
    parsed = parse_measures(measures, grammar) if isinstance(measures, str) else measures
    for measure in parsed:
        if measure.metric in TEXT_METRICS:
            raise MeasureError(f"measure {measure.name} is a text (duckdb-ndcg trec prints it), "
                               "not a value")
    sql, params = measures_sql(parsed, judged, query_col, item_col, rel_col, rnk_col, pool_col)
    first = len(params) + 1
    names = ", ".join(f"${first + i}" for i in range(len(parsed)))
    values = ", ".join(f"m{i}" for i in range(len(parsed)))
    long = (f"SELECT query_id, unnest([{names}]) AS measure, unnest([{values}]) AS value "
            f"FROM ({sql}) ORDER BY query_id")
    return con.sql(long, params=[*params, *(m.name for m in parsed)])  # type: ignore[attr-defined]


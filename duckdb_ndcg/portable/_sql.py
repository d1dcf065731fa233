"""Small sqlglot expression builders shared by the portable SQL generators (no user text is ever
parsed: identifiers are quoted nodes, values are literal nodes)."""

from __future__ import annotations

import math
from numbers import Real

from sqlglot import exp


def col(name: str) -> exp.Column:
    """A quoted column reference."""
    return exp.column(exp.to_identifier(name, quoted=True))


def ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def number(value: Real) -> exp.Literal:
    """A numeric literal of a finite Python number."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    if isinstance(value, int):
        return exp.Literal.number(str(value))
    return exp.Literal.number(repr(float(value)))


def string(text: str) -> exp.Literal:
    return exp.Literal.string(text)


def cast(expression: exp.Expression, type_: str) -> exp.Cast:
    return exp.Cast(this=expression, to=exp.DataType.build(type_))


def double(value: exp.Expression | Real) -> exp.Cast:
    """CAST(... AS DOUBLE): sqlglot prints each engine's 8-byte float type."""
    return cast(value if isinstance(value, exp.Expression) else number(value), "DOUBLE")


def null_double() -> exp.Cast:
    return cast(exp.null(), "DOUBLE")


def case(
    *whens: tuple[exp.Expression, exp.Expression], default: exp.Expression | None = None
) -> exp.Case:
    return exp.Case(ifs=[exp.If(this=c, true=v) for c, v in whens], default=default)


def concat(text: str, detail: exp.Expression) -> exp.DPipe:
    """'text' || CAST(detail AS TEXT): an error message naming the offending value."""
    return exp.DPipe(this=string(text), expression=cast(detail, "TEXT"), safe=True)


def coalesce(*args: exp.Expression) -> exp.Coalesce:
    return exp.Coalesce(this=args[0], expressions=list(args[1:]))


def nullif(value: exp.Expression, other: exp.Expression) -> exp.Nullif:
    return exp.Nullif(this=value, expression=other)


def div(a: exp.Expression, b: exp.Expression) -> exp.Div:
    """a / b; callers make a a DOUBLE so no engine divides integers."""
    return exp.Div(this=exp.paren(a, copy=False), expression=exp.paren(b, copy=False))


def eq(a: exp.Expression, b: exp.Expression) -> exp.EQ:
    return exp.EQ(this=a, expression=b)


def ln(value: exp.Expression) -> exp.Ln:
    return exp.Ln(this=value)

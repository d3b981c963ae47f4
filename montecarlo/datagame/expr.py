"""A small, safe expression language for game definitions (pool sizes, updates, conditions).

An expression is parsed with Python's :mod:`ast` and checked node by node: only whole-number
literals, ``True``/``False``, the names the context allows, ``+ - *``, unary ``-``, ``min(...)``,
``max(...)``, comparisons (chains too), ``and``/``or``/``not`` and ``a if condition else b`` are
accepted. Anything else (attributes, calls other than ``min``/``max``, division, powers,
subscripts, strings, lambdas) is refused with the reason, so a definition file can never run
arbitrary code. The checked tree is turned into nested closures, evaluated either on Python ints
(the exact solver, the reference trial) or on numpy arrays (the vectorised simulation).

Every number is below ``LIMIT`` (2**62) in size: a literal beyond it is refused when parsed, and
a sum, difference or product that reaches it raises the expression's ``error`` (ExprError unless
the caller gives its own, e.g. naming the file and key) on Python ints and numpy arrays alike,
so a value never wraps around silently in numpy's 64-bit arithmetic. (Operands below 2**62 have
a sum below 2**63, which cannot wrap; a product is checked in floating point first.)

>>> e = Expr("min(3, attackers) + (defenders > 2)", {"attackers", "defenders"})
>>> e({"attackers": 5, "defenders": 3}), sorted(e.names)
(4, ['attackers', 'defenders'])
>>> import numpy as np
>>> e.vector({"attackers": np.array([1, 5]), "defenders": np.array([3, 1])}).tolist()
[2, 3]
>>> Expr("__import__('os')", set())
Traceback (most recent call last):
...
montecarlo.datagame.expr.ExprError: only min(...) and max(...) may be called, not __import__
>>> Expr("x * 4000000000000000000", {"x"})({"x": 3})
Traceback (most recent call last):
...
montecarlo.datagame.expr.ExprError: 3 * 4000000000000000000 = 12000000000000000000 is too large; \
values must stay below 2**62
"""

from __future__ import annotations

import ast
import functools
import operator
from typing import Any, Callable, Iterable, Mapping

import numpy as np

FUNCTIONS = ("min", "max")
RESERVED = frozenset(FUNCTIONS) | {"True", "False", "and", "or", "not", "if", "else"}
MAX_LENGTH = 500
# levels of the expression's tree, each a call when built and when evaluated: above any sum or
# product that fits in MAX_LENGTH (at most 250 operations), far below the ~485 that overflowed
MAX_DEPTH = 260
TOO_DEEP = f"expression too deeply nested (more than {MAX_DEPTH} levels of operations inside one another)"
LIMIT = 2**62  # every number written or computed is below this in size (numpy's int64 holds 2**63 - 1)

Env = Mapping[str, Any]
Node = Callable[[Env], Any]


class ExprError(ValueError):
    """An expression that does not parse or uses something the language does not allow."""


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}


class Expr:
    """One checked expression over the names in ``allowed``.

    Args:
        text: the expression as written in the file (an int is accepted too).
        allowed: the names it may use (state fields, rules, round quantities).

        error: makes the exception raised when evaluating reaches a value of ``LIMIT`` or more
            (given the one-line reason); default :class:`ExprError`.

    Raises:
        ExprError: with a one-line reason (unknown name, forbidden construct, syntax error).
    """

    __slots__ = ("text", "names", "_scalar", "_vector", "constant")

    def __init__(
        self, text: str | int, allowed: Iterable[str], error: Callable[[str], Exception] = ExprError
    ) -> None:
        if isinstance(text, bool) or not isinstance(text, (str, int)):
            raise ExprError(f"expected an expression (a string) or a whole number, got {text!r}")
        self.text = str(text)
        if len(self.text) > MAX_LENGTH:
            raise ExprError(f"expression longer than {MAX_LENGTH} characters")
        try:
            tree = ast.parse(self.text.strip(), mode="eval").body
        except SyntaxError as exc:
            raise ExprError(f"cannot parse {self.text!r}: {exc.msg}") from None
        if _depth(tree) > MAX_DEPTH:  # 490 minus signs in a row ended in a RecursionError traceback
            raise ExprError(TOO_DEEP)
        allowed = frozenset(allowed)
        names: set[str] = set()
        self._scalar = _build(tree, allowed, names, vector=False, error=error)
        self._vector = _build(tree, allowed, names, vector=True, error=error)
        self.names = frozenset(names)
        self.constant = not names

    def __call__(self, env: Env) -> Any:
        """The value on Python ints and bools."""
        return self._scalar(env)

    def vector(self, env: Env) -> Any:
        """The value on numpy arrays (elementwise; comparisons give bool arrays)."""
        return self._vector(env)

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"


def _depth(tree: ast.AST) -> int:
    """How deep ``tree``'s nodes nest (1 for a lone number or name), counted without recursion."""
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, level = todo.pop()
        deepest = max(deepest, level)
        todo.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _build(
    node: ast.AST, allowed: frozenset, names: set, vector: bool, error: Callable[[str], Exception]
) -> Node:
    """A closure computing ``node``; ExprError for anything outside the language."""
    build = functools.partial(_build, allowed=allowed, names=names, vector=vector, error=error)
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or (isinstance(value, int) and abs(value) < LIMIT):
            return lambda env: value
        if isinstance(value, int):
            raise ExprError(
                f"a whole number of {len(str(abs(value)))} digits is too large; numbers must be below 2**62"
            )
        raise ExprError(f"only whole numbers and True/False may be written, not {value!r}")
    if isinstance(node, ast.Name):
        name = node.id
        if name not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise ExprError(f"unknown name {name!r}; the names known here are: {known}")
        names.add(name)
        return lambda env: env[name]
    if isinstance(node, ast.BinOp):
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ExprError(f"operator {type(node.op).__name__} is not allowed (only + - *)")
        left, right = build(node.left), build(node.right)
        symbol = _SYMBOL[type(node.op)]
        if vector:
            return lambda env: _vector_arithmetic(op, symbol, _int(left(env)), _int(right(env)), error)
        return lambda env: _arithmetic(op, symbol, left(env), right(env), error)
    if isinstance(node, ast.UnaryOp):
        inner = build(node.operand)
        if isinstance(node.op, ast.USub):
            return (lambda env: -_int(inner(env))) if vector else (lambda env: -inner(env))
        if isinstance(node.op, ast.UAdd):
            return inner
        if isinstance(node.op, ast.Not):
            return (lambda env: inner(env) == 0) if vector else (lambda env: not inner(env))
        raise ExprError(f"operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.BoolOp):
        parts = [build(v) for v in node.values]
        if vector:
            join = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            return lambda env: functools.reduce(join, (p(env) for p in parts))  # nonzero is true
        if isinstance(node.op, ast.And):
            return lambda env: all(p(env) for p in parts)
        return lambda env: any(p(env) for p in parts)
    if isinstance(node, ast.Compare):
        ops = []
        for cmp in node.ops:
            if type(cmp) not in _COMPARE:
                raise ExprError(f"comparison {type(cmp).__name__} is not allowed (use == != < <= > >=)")
            ops.append(_COMPARE[type(cmp)])
        terms = [build(node.left)] + [build(c) for c in node.comparators]
        if len(ops) == 1:
            (op,), (a, b) = ops, terms
            return lambda env: op(a(env), b(env))

        def chain(env: Env) -> Any:
            values = [t(env) for t in terms]
            pairs = (op(x, y) for op, x, y in zip(ops, values, values[1:]))
            return functools.reduce(np.logical_and, pairs) if vector else all(pairs)

        return chain
    if isinstance(node, ast.IfExp):
        test, yes, no = build(node.test), build(node.body), build(node.orelse)
        if vector:
            return lambda env: np.where(test(env), yes(env), no(env))
        return lambda env: yes(env) if test(env) else no(env)
    if isinstance(node, ast.Call):
        func = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        if func not in FUNCTIONS:
            raise ExprError(f"only min(...) and max(...) may be called, not {func}")
        if node.keywords or len(node.args) < 2 or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExprError(f"{func}(...) takes two or more plain arguments")
        args = [build(a) for a in node.args]
        if vector:
            join = np.minimum if func == "min" else np.maximum
            return lambda env: functools.reduce(join, (_int(a(env)) for a in args))
        pick = min if func == "min" else max
        return lambda env: pick(*(a(env) for a in args))
    what = type(node).__name__
    raise ExprError(
        f"{what} is not allowed: only numbers, names, + - *, min, max, comparisons, "
        "and/or/not and 'a if c else b'"
    )


def _too_large(x: int, symbol: str, y: int, value: int) -> str:
    return f"{x} {symbol} {y} = {value} is too large; values must stay below 2**62"


def _arithmetic(op: Callable, symbol: str, x: Any, y: Any, error: Callable[[str], Exception]) -> Any:
    """``op(x, y)`` on Python ints, refused (``error``) when its size reaches ``LIMIT``."""
    value = op(x, y)
    if -LIMIT < value < LIMIT:
        return value
    raise error(_too_large(int(x), symbol, int(y), int(value)))


def _vector_arithmetic(op: Callable, symbol: str, x: Any, y: Any, error: Callable[[str], Exception]) -> Any:
    """``op(x, y)`` elementwise, refused (``error``, naming the first such element) when a value's size
    reaches ``LIMIT``: a product is estimated in floating point first (int64 would wrap around),
    and the elements it flags are checked exactly on Python ints."""
    if op is operator.mul:
        value = None
        suspect = np.abs(np.multiply(x, y, dtype=np.float64)) >= LIMIT / 2  # rounding cannot hide one
    else:
        value = op(x, y)  # operands below 2**62: a sum or difference below 2**63 does not wrap
        suspect = np.abs(value) >= LIMIT
    if np.any(suspect):
        xs, ys, flags = np.broadcast_arrays(np.asarray(x), np.asarray(y), suspect)
        for i in np.flatnonzero(flags):
            a, b = int(xs.flat[i]), int(ys.flat[i])
            if not -LIMIT < op(a, b) < LIMIT:
                raise error(_too_large(a, symbol, b, op(a, b)))
    return op(x, y) if value is None else value


def _int(value: Any) -> Any:
    """Numpy bools, arrays or scalars, as ints before arithmetic (numpy would add booleans as
    logical or, and refuses to negate or subtract them): ``and``, ``or`` and chained comparisons
    give a numpy bool scalar where every name they read is a scalar (the rules, or a state in the
    exact solver's rounds)."""
    if isinstance(value, (np.ndarray, np.bool_)) and value.dtype == bool:
        return value.astype(np.int64)
    return value

"""A checked definition -> a :class:`montecarlo.games.base.Game` (exact solver, kernels, reference).

- ``Rules``: a frozen dataclass made from the file's ``[rules]`` (official values as defaults);
  ``VARIANTS`` are the file's ``[variants.NAME].overrides``.
- One question (``battle`` unless the file names it) whose setup fields are ``[setup]``.
- The exact solver, the fast sampler and the note on why a setup has no exact value come from
  :class:`montecarlo.engine.chain_question.ChainQuestion`: the state is the file's ``[state]``;
  one step is one round, whose outcome distribution is enumerated once per pair of pools
  (:mod:`montecarlo.datagame.rounds`) and looked up.
- When the chain is too large for the exact solver (more than ``exact_max_states`` states, a
  round of more than ``MAX_JOINT`` joint results to list or pair, or a counted round whose kinds
  of dice take more than ``MAX_COMBINED`` steps to combine) the exact values are ``None`` and the
  battle is simulated round by round on numpy arrays (:meth:`CompiledGame.simulate_direct`, also
  used above ``SAMPLER_MAX_STATES`` states or a sampler's table of too many rows); the question's
  ``why_no_exact`` says so.
- ``reference``: one battle in plain Python, each die rolled on its own.

A compiled game pickles as its file's text, so worker processes rebuild it from the text.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import re
from typing import Any, Callable, Mapping

import numpy as np

from montecarlo.datagame import rounds
from montecarlo.datagame.expr import LIMIT
from montecarlo.datagame.spec import COUNTS, MAX_FACES, REROLL, Definition, DefinitionError, parse_definition
from montecarlo.engine.chain import ChainTooLarge
from montecarlo.engine.chain_question import ChainQuestion
from montecarlo.engine.memory import check_fits
from montecarlo.errors import InputError, MonteCarloError
from montecarlo.games.base import Game, Metric, Question, check_known
from montecarlo.validate import whole

SAMPLER_MAX_STATES = 20_000  # above this many states the byte-table sampler's table gets too big
DECISIVE, TIE = ("round", "decisive"), ("round", "tie")  # a round that changed the state, or not
MAX_JOINT = 250_000  # results of both sides' dice listed for one round (count, pairs), at most
MAX_COMBINED = 1_000_000  # steps combining a side's kinds of dice in a counted round, at most
MAX_DICE = 1_000  # dice of one kind a side rolls in a round, at most (the vector kernel holds them all)
_WHOLE = re.compile(r"\s*[+-]?[0-9]+\s*")  # a whole number as text: one sign at most, ASCII digits


class CompiledGame:
    """A definition compiled once: its types, chains (one per set of rules) and the Game."""

    def __init__(self, definition: Definition) -> None:
        self.d = d = definition
        self.fields = d.state_fields
        self.State = _state_type(self.fields)
        self.Rules = _rules_type(d)
        self.Setup = _setup_type(d)
        self.metrics = tuple(Metric(m.name, m.kind, m.description, m.support) for m in d.metrics)
        self.counters = {m.name: COUNTS[m.counts] for m in d.metrics if m.counts}
        self._rules_envs: dict[Any, tuple] = {}  # rules -> (values, faces, ties)
        self.chains: ChainQuestion[Any, tuple] = ChainQuestion(
            self.start,
            self._transitions,
            self._outcome,
            self.metrics,
            self.counters,
            direct=self.simulate_direct,
            max_states=d.exact_max_states,
            sampler_max_states=min(SAMPLER_MAX_STATES, d.exact_max_states),
            explain=self._explain,
            name=f"the battle's chain ({d.source})",
            home=(self, "chains"),  # pickled as the compiled game's (its file's text) own builder
        )
        question = Question(
            name=d.question,
            description=d.question_description,
            setup_type=self.Setup,
            metrics=self.metrics,
            simulate=self.chains.simulate,
            exact=self.chains.exact,
            why_no_exact=self.chains.why_no_exact,
            affinity=self.chains.context_of,
            check=self.check_setup,
            parse_setup=self.parse_setup,
            reference=self.reference,
            example={f.name: f.example for f in d.setup},
        )
        self.game = Game(
            name=d.name,
            title=d.title,
            rules_type=self.Rules,
            variants=d.variants,
            questions={d.question: question},
            default_question=d.question,
            variant_descriptions=d.variant_descriptions,
            definition=hashlib.sha256(d.text.encode()).hexdigest(),
        )
        self._check_variants()

    def _check_variants(self) -> None:
        """Each of the file's variants plays the first round of the smallest setup (a variant's pool
        of -1 dice is the file's mistake, said when the file is read, not when a run asks for it;
        a pool too large for a larger setup is the setup's, refused when a run asks for it)."""
        smallest = self.parse_setup({f.name: f.low for f in self.d.setup})
        try:
            self.check_setup(self.game.rules(), smallest)
        except InputError:  # the file's own rules: said by a run's check, naming the key as written
            return
        for name in self.d.variants:
            try:
                self.check_setup(self.game.rules([name]), smallest)
            except InputError as exc:
                said = str(exc).removeprefix(f"{self.d.source}: ")
                raise self.d.error(f"variants.{name}", said) from None

    def __reduce__(self):
        return compile_text, (self.d.text, self.d.source)

    # --- setups and start states ----------------------------------------------------------------

    def parse_setup(self, values: Mapping[str, Any]) -> Any:
        """Plain values (TOML, ``--set``: ints or digit strings) -> a validated Setup."""
        check_known(values, [f.name for f in self.d.setup], f"{self.d.name} setup")
        out = {}
        for f in self.d.setup:
            if f.name not in values:
                raise InputError(
                    f"{self.d.name} setup: {f.name} is required (a whole number "
                    f"{f.low}..{f.high}); give it, e.g. {f.name} = {f.example}"
                )
            value = values[f.name]
            if isinstance(value, str) and _WHOLE.fullmatch(value):
                value = int(value)
            out[f.name] = whole(f.name, value, f.low, f.high)
        return self.Setup(**out)

    def start(self, rules: Any, setup: Any) -> tuple:
        env = {**_values(rules), **_values(setup)}
        return self.State(*(int(expr(env)) for _, expr in self.d.state))

    # --- one round, exactly -------------------------------------------------------------------------

    def _env(self, rules: Any) -> dict[str, Any]:
        return _values(rules)

    def _faces(self, rules_env: Mapping[str, Any]) -> dict[str, tuple]:
        """Each die's faces under these rules (a rule may set a die's number of faces)."""
        out = {}
        for name, die in self.d.dice.items():
            if die.faces is not None:
                out[name] = tuple(range(1, int(die.faces(rules_env)) + 1))
            else:
                out[name] = die.values if die.numeric else die.symbols
        return out

    def _ties(self, rules_env: Mapping[str, Any]) -> str:
        t = self.d.ties
        return rules_env[t] if t in rules_env else (t or REROLL)

    def _pools(self, env: Mapping[str, Any], faces: Mapping[str, tuple]) -> tuple:
        pools = []
        for side, groups in zip(self.d.sides, self.d.roll):
            pool = []
            for die, count in groups:
                pool.append((faces[die], self._pool_size(side, die, count(env), self._show(env))))
            pools.append(tuple(pool))
        return tuple(pools)

    def _pool_size(self, side: str, die: str, n: Any, state: str) -> int:
        """A pool size as given by ``round.roll.SIDE.DIE`` in ``state``, once it is 0..MAX_DICE."""
        if n < 0:  # a comparison counts as 1 or 0
            raise self.d.error(
                f"round.roll.{side}.{die}",
                f"gives {n!r} dice in state {state}; "
                "a pool size must be a whole number >= 0 (use max(0, ...))",
            )
        if n > MAX_DICE:
            raise self.d.error(
                f"round.roll.{side}.{die}",
                f"gives {int(n):,} dice in state {state}; a side rolls at most {MAX_DICE:,} dice of a kind "
                f"(cap it, e.g. min({MAX_DICE}, ...))",
            )
        return int(n)

    def outcomes(self, env: Mapping[str, Any], faces, ties: str) -> list[tuple[float, dict[str, Any]]]:
        """Every outcome of one round from the state in ``env``: (probability, round quantities)."""
        d, (a, b) = self.d, self.d.sides
        pool_a, pool_d = self._pools(env, faces)
        sizes = {f"{a}_dice": sum(n for _, n in pool_a), f"{b}_dice": sum(n for _, n in pool_d)}
        if d.compare == "highest":
            table = rounds.highest_outcomes(pool_a, pool_d, ties, d.sides)
        else:
            k = min(sizes.values())
            if d.pairs is not None:
                k = d.pairs({**env, **sizes})
                if k < 0:
                    raise d.error(
                        "round.pairs", f"gives {k!r} in state {self._show(env)}; pairs must be >= 0"
                    )
                k = int(min(k, *sizes.values()))
            self._check_round(  # (the pairs are compared one joint result at a time)
                env, rounds.top_bound(pool_a, k) * rounds.top_bound(pool_d, k),
                max(rounds.top_work(pool_a, k), rounds.top_work(pool_d, k)),
            )
            table = rounds.pair_outcomes(pool_a, pool_d, k, ties, d.sides)
        return [(p, {**sizes, f"{a}_lost": la, f"{b}_lost": lb, "tied": t}) for p, la, lb, t in table]

    def _show(self, env: Mapping[str, Any]) -> str:
        """A state as the messages show it: ``(attackers=5, defenders=3)``."""
        return "(" + ", ".join(f"{f}={env[f]}" for f in self.fields) + ")"

    # --- the chain -------------------------------------------------------------------------------------

    def _rules_env(self, rules: Any) -> tuple[dict[str, Any], dict[str, tuple], str]:
        """The rules' values, each die's faces and the ties rule (worked out once per rules)."""
        got = self._rules_envs.get(rules)
        if got is None:
            env = self._env(rules)
            got = self._rules_envs[rules] = (env, self._faces(env), self._ties(env))
            if len(self._rules_envs) > 64:
                self._rules_envs.pop(next(iter(self._rules_envs)))
        return got

    def check_setup(self, rules: Any, setup: Any) -> None:
        """The first round of ``setup`` under ``rules``, before any trial (a grid checks every
        point under every variant): a pool size out of range is one line then, where a run met it
        only once it reached that point. Later rounds are checked as the chain or the
        round-by-round kernel reaches them."""
        rules_env, faces, _ = self._rules_env(rules)
        env = {**rules_env, **dict(zip(self.fields, self.start(rules, setup)))}
        if self.d.end(env):
            return
        try:
            self._pools(env, faces)  # (a round too large to solve exactly is simulated: ChainTooLarge)
        except DefinitionError as exc:
            raise self._under_rules(exc, rules) from None

    def _changed(self, rules: Any) -> list[str]:
        """The rules that differ from the file's [rules], as 'name=value ([rules] has value)'."""
        return [
            f"{name}={_shown(value)} ([rules] has {_shown(self.d.rules[name])})"
            for name, value in _values(rules).items()
            if name in self.d.rules and value != self.d.rules[name]
        ]

    def _under_rules(self, exc: DefinitionError, rules: Any) -> InputError:
        """A round the file's keys cannot play under rules of the user's own (a variant, --rule,
        rules=): the error says those rules first, since the key it names is right as written."""
        changed = self._changed(rules)
        if not changed:
            return exc
        said = str(exc).removeprefix(f"{self.d.source}: ")
        return InputError(f"{self.d.source}: under the rules {', '.join(changed)}: {said}")

    def _transitions(self, rules: Any, state: Any) -> list:
        rules_env, faces, ties = self._rules_env(rules)
        env = {**rules_env, **state._asdict()}
        if self.d.end(env):
            return []
        try:
            if self.d.compare == "count":
                steps = self._counted_steps(env, state, faces)
            else:
                steps = self._listed_steps(env, state, self.outcomes(env, faces, ties))
        except DefinitionError as exc:
            raise self._under_rules(exc, rules) from None
        return [(p, self.State(*key), TIE if key == state else DECISIVE) for key, p in steps.items()]

    def _listed_steps(self, env: Mapping[str, Any], state: Any, outcomes) -> dict[tuple, float]:
        """``{next state: p}`` from the round's ``outcomes``, ``(p, round quantities)`` one at a
        time (compare = highest, pairs; a counted round whose arrays meet an error)."""
        steps: dict[tuple, float] = {}
        for p, q in outcomes:
            full = {**env, **q}
            nxt = dict(zip(self.fields, state))
            for name, expr in self.d.update:
                nxt[name] = int(expr(full))
            key = tuple(nxt.values())
            steps[key] = steps.get(key, 0.0) + p
        return steps

    def _counted_steps(self, env: Mapping[str, Any], state: Any, faces) -> dict[tuple, float]:
        """``{next state: p}`` for compare = "count", every joint result of both pools at once on
        arrays: the attacker's results down, the defender's across (the order, and so the sums,
        of one result at a time). A round of more than MAX_JOINT joint results, or whose kinds of
        dice take more than MAX_COMBINED steps to combine, makes the chain too large for the exact
        solver (:class:`ChainTooLarge`): such a battle is simulated.

        Arrays work out both branches of ``a if c else b`` (and every part of ``and``, ``or``): a
        value too large in a part not taken stops them, so such a round is listed one result at a
        time instead, with the plain expressions (which say the error if the value is used).
        """
        d, (a, b) = self.d, self.d.sides
        pool_a, pool_d = self._pools(env, faces)
        self._check_round(
            env, rounds.count_bound(pool_a, d.symbols[0]) * rounds.count_bound(pool_d, d.symbols[1]),
            max(rounds.count_work(pool_a, d.symbols[0]), rounds.count_work(pool_d, d.symbols[1])),
        )
        (counts_a, p_a), (counts_d, p_d) = (rounds.count_table(pool_a, d.symbols[0]),
                                            rounds.count_table(pool_d, d.symbols[1]))
        shape = (len(p_a), len(p_d))
        q: dict[str, Any] = {f"{a}_dice": sum(n for _, n in pool_a), f"{b}_dice": sum(n for _, n in pool_d)}
        q.update((f"{a}_{s}", counts_a[:, i, None]) for i, s in enumerate(d.symbols[0]))
        q.update((f"{b}_{s}", counts_d[None, :, i]) for i, s in enumerate(d.symbols[1]))
        columns = {name: np.asarray(env[name], dtype=np.int64) for name in self.fields}
        try:
            full = {**env, **q}
            q[f"{a}_lost"], q[f"{b}_lost"] = d.lost[0].vector(full), d.lost[1].vector(full)
            full = {**env, **q}
            for name, expr in d.update:
                columns[name] = np.asarray(expr.vector(full), dtype=np.int64)
        except DefinitionError:
            counted = self._counted_outcomes(env, (counts_a, p_a), (counts_d, p_d), q)
            return self._listed_steps(env, state, counted)
        flat = [np.broadcast_to(columns[name], shape).ravel() for name in self.fields]
        key = _one_number(flat)
        if key is None:  # next states too far apart for one whole number: compared as rows
            rows = np.stack(flat, axis=1)
            found, first, where = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        else:
            found, first, where = np.unique(key, return_index=True, return_inverse=True)
        sums = np.bincount(where.ravel(), weights=np.outer(p_a, p_d).ravel(), minlength=len(found))
        order = np.argsort(first, kind="stable")
        return {tuple(int(c[first[i]]) for c in flat): float(sums[i]) for i in order}

    def _check_round(self, env: Mapping[str, Any], joint: int, work: int) -> None:
        """ChainTooLarge for a round of more than MAX_JOINT joint results of both sides' dice, or
        whose kinds of dice take more than MAX_COMBINED steps to combine (``work``): the chain is
        too large for the exact solver, and the battle is simulated round by round, with a note
        saying why."""
        if joint > MAX_JOINT:
            at = self._show(env)
            raise ChainTooLarge(
                f"a round at {at} has up to {joint:,} joint results",
                f"a round of the battle at {at} has up to {joint:,} results of both sides' dice, more "
                f"than the exact solver lists in a round (at most {MAX_JOINT:,})",
            )
        if work > MAX_COMBINED:
            at = self._show(env)
            raise ChainTooLarge(
                f"a round at {at} takes up to {work:,} steps to combine a side's kinds of dice",
                f"a round of the battle at {at} takes up to {work:,} steps to combine a side's kinds of "
                f"dice, more than the exact solver takes (at most {MAX_COMBINED:,})",
            )

    def _counted_outcomes(self, env: Mapping[str, Any], table_a: tuple, table_d: tuple,
                          sizes: Mapping[str, Any]):
        """A counted round's outcomes one at a time, ``(p, round quantities)``, by the plain
        expressions, in :meth:`_counted_steps`'s order."""
        d, (a, b) = self.d, self.d.sides
        (counts_a, p_a), (counts_d, p_d) = table_a, table_d
        for ca, pa in zip(counts_a.tolist(), p_a.tolist()):
            for cd, pd in zip(counts_d.tolist(), p_d.tolist()):
                q = {f"{a}_dice": sizes[f"{a}_dice"], f"{b}_dice": sizes[f"{b}_dice"]}
                q.update(zip((f"{a}_{s}" for s in d.symbols[0]), ca))
                q.update(zip((f"{b}_{s}" for s in d.symbols[1]), cd))
                full = {**env, **q}
                q[f"{a}_lost"], q[f"{b}_lost"] = d.lost[0](full), d.lost[1](full)
                yield pa * pd, q

    def _outcome(self, rules: Any, state: Any) -> dict[str, Any]:
        env = {**self._rules_env(rules)[0], **state._asdict()}
        out = {}
        for m in self.d.metrics:
            if m.value is None:
                continue
            v = m.value(env)
            out[m.name] = bool(v) if m.kind == "probability" else int(v)
        return out

    def _explain(self, exc: MonteCarloError, rules: Any) -> Exception:
        """A battle that cannot end as one line: under rules of the user's own (a variant, ``--rule``,
        ``montecarlo.odds(rules=...)``) those rules, else the file's definition."""
        changed = self._changed(rules)
        if changed:
            return InputError(
                f"{self.d.source}: under the rules {', '.join(changed)} a battle cannot end ({exc}); "
                "the values of a variant, --rule or rules= must let every battle end"
            )
        return self.d.error(
            "round.update", f"{exc}; check round.update and end (every battle must be able to end)"
        )

    # --- kernels ----------------------------------------------------------------------------------

    def simulate_direct(
        self, rules: Any, setup: Any, n: int, rng: np.random.Generator
    ) -> dict[str, np.ndarray]:
        """``n`` battles rolled round by round on numpy arrays (any size of chain)."""
        d = self.d
        env0 = self._env(rules)
        faces, ties = self._faces(env0), self._ties(env0)
        start = self.start(rules, setup)
        cur = {f: np.full(n, v, dtype=np.int64) for f, v in zip(self.fields, start)}
        where = np.arange(n)
        final = {f: np.empty(n, dtype=np.int64) for f in self.fields}
        counts = {tag: np.zeros(n, dtype=np.int64) for tag in ("round", "decisive", "tie")}
        done_counts = {tag: np.empty(n, dtype=np.int64) for tag in counts}
        for played in range(d.max_rounds + 1):
            env = {**env0, **cur}
            over = np.broadcast_to(np.asarray(d.end.vector(env)) != 0, where.shape)
            if over.any():
                idx = where[over]
                for f in self.fields:
                    final[f][idx] = cur[f][over]
                for tag in counts:
                    done_counts[tag][idx] = counts[tag][over]
                keep = ~over
                where = where[keep]
                cur = {f: v[keep] for f, v in cur.items()}
                counts = {tag: v[keep] for tag, v in counts.items()}
                env = {**env0, **cur}
            m = where.size
            if not m:
                break
            if played == d.max_rounds:  # battles still going after max_rounds rounds, none rolled again
                state = self._show({f: int(cur[f][0]) for f in self.fields})[1:-1]  # inside the line's own ()
                raise d.error(
                    "max_rounds",
                    f"some battles were still going after {d.max_rounds:,} rounds (one at {state}); a "
                    "battle that large may need more rounds (raise max_rounds), or it never ends (check "
                    "end and round.update)",
                )
            try:
                q = self._round_vector(env, faces, ties, m, rng)
            except DefinitionError as exc:
                raise self._under_rules(exc, rules) from None
            full = {**env, **q}
            new = dict(cur)
            for name, expr in d.update:
                new[name] = np.broadcast_to(np.asarray(expr.vector(full), dtype=np.int64), (m,)).copy()
            changed = np.zeros(m, dtype=bool)
            for f in self.fields:
                changed |= new[f] != cur[f]
            counts["round"] += 1
            counts["decisive"] += changed
            counts["tie"] += ~changed
            cur = new
        env = {**env0, **final}
        out = {}
        for m_ in d.metrics:
            if m_.counts:
                out[m_.name] = done_counts[COUNTS[m_.counts]]
                continue
            v = np.broadcast_to(np.asarray(m_.value.vector(env)), (n,))
            out[m_.name] = (v != 0) if m_.kind == "probability" else v.astype(np.int64)
        return out

    def _round_vector(self, env, faces, ties, m: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """One round for ``m`` battles at once: the round quantities as arrays."""
        d, sides = self.d, self.d.sides
        rolled, sizes = [], {}
        for side, groups in zip(sides, d.roll):
            parts, total = [], np.zeros(m, dtype=np.int64)
            for die, count in groups:
                n = np.broadcast_to(np.asarray(count.vector(env), dtype=np.int64), (m,))
                outside = np.flatnonzero((n < 0) | (n > MAX_DICE))
                if outside.size:
                    bad = int(outside[0])
                    state = self._show({f: int(env[f][bad]) for f in self.fields})
                    self._pool_size(side, die, int(n[bad]), state)  # raises, naming the key and state
                width = int(n.max())  # m >= 1: simulate_direct stops when no battle is left
                if m * width > 1 << 24:  # several arrays of m x width whole numbers are made below
                    check_fits(
                        6 * 8 * m * width,
                        f"{d.source}: round.roll.{side}.{die}: {width:,} dice for each of {m:,} battles",
                        hint="roll fewer dice or simulate fewer battles at once (a smaller chunk size)",
                    )
                face_list = faces[die]
                if d.compare == "count":
                    codes = np.array([d.symbols[sides.index(side)].index(s) for s in face_list])
                else:
                    codes = np.array(face_list, dtype=np.int64)
                values = codes[rng.integers(0, len(face_list), size=(m, width))]
                mask = np.arange(width) < n[:, None]
                parts.append((values, mask))
                total += n
            rolled.append(parts)
            sizes[f"{side}_dice"] = total
        q: dict[str, np.ndarray] = dict(sizes)
        a, b = sides
        if d.compare == "count":
            for side, parts, symbols in zip(sides, rolled, d.symbols):
                for i, s in enumerate(symbols):
                    q[f"{side}_{s}"] = sum(((v == i) & mk).sum(axis=1) for v, mk in parts)
            full = {**env, **q}
            q[f"{a}_lost"] = np.broadcast_to(np.asarray(d.lost[0].vector(full), dtype=np.int64), (m,))
            q[f"{b}_lost"] = np.broadcast_to(np.asarray(d.lost[1].vector(full), dtype=np.int64), (m,))
            return q
        tie_a, tie_d, tie_t = rounds._lose(ties, sides)
        sorted_sides = []
        for parts in rolled:
            cols = [np.where(mk, v, rounds.EMPTY) for v, mk in parts]
            joined = np.concatenate(cols, axis=1)  # each side rolls at least one kind of die
            if d.compare == "highest":
                joined = joined.max(axis=1, initial=rounds.EMPTY)[:, None]
            else:
                joined = -np.sort(-joined, axis=1)
            sorted_sides.append(joined)
        if d.compare == "highest":
            k = np.ones(m, dtype=np.int64)
        else:
            k = np.minimum(sizes[f"{a}_dice"], sizes[f"{b}_dice"])
            if d.pairs is not None:
                want = np.broadcast_to(np.asarray(d.pairs.vector({**env, **sizes}), dtype=np.int64), (m,))
                if (want < 0).any():
                    raise d.error("round.pairs", "gives a negative number of pairs; pairs must be >= 0")
                k = np.minimum(k, want)
        lost_a, lost_d, tied = (np.zeros(m, dtype=np.int64) for _ in range(3))
        width = min(sorted_sides[0].shape[1], sorted_sides[1].shape[1])
        for j in range(width):
            x, y, live = sorted_sides[0][:, j], sorted_sides[1][:, j], j < k
            same = live & (x == y)
            lost_d += live & (x > y)
            lost_a += live & (x < y)
            if tie_a:
                lost_a += same
            if tie_d:
                lost_d += same
            if tie_t:
                tied += same
        q.update({f"{a}_lost": lost_a, f"{b}_lost": lost_d, "tied": tied})
        return q

    # --- the reference trial ----------------------------------------------------------------------

    def reference(self, rules: Any, setup: Any, rng: np.random.Generator) -> dict[str, Any]:
        """One battle in plain Python: every die rolled on its own, the round read literally."""
        d, (a, b) = self.d, self.d.sides
        env0 = self._env(rules)
        faces = self._faces(env0)
        ties = self._ties(env0)
        state = dict(zip(self.fields, self.start(rules, setup)))
        tally = {"round": 0, "decisive": 0, "tie": 0}
        while not d.end({**env0, **state}):
            if tally["round"] >= d.max_rounds:
                raise d.error("max_rounds", f"a battle was still going after {d.max_rounds:,} rounds")
            env = {**env0, **state}
            dice = []  # per side: the faces shown, one die at a time
            for side, groups in zip(d.sides, d.roll):
                shown = []
                for die, count in groups:
                    for _ in range(self._pool_size(side, die, count(env), self._show(env))):
                        shown.append(faces[die][int(rng.integers(len(faces[die])))])
                dice.append(shown)
            q: dict[str, Any] = {f"{a}_dice": len(dice[0]), f"{b}_dice": len(dice[1])}
            if d.compare == "count":
                for side, shown, symbols in zip(d.sides, dice, d.symbols):
                    for s in symbols:
                        q[f"{side}_{s}"] = shown.count(s)
                full = {**env, **q}
                q[f"{a}_lost"], q[f"{b}_lost"] = d.lost[0](full), d.lost[1](full)
            else:
                if d.compare == "highest":
                    pairs = [(max(dice[0], default=rounds.EMPTY), max(dice[1], default=rounds.EMPTY))]
                else:
                    k = min(len(dice[0]), len(dice[1]))
                    if d.pairs is not None:
                        k = min(k, d.pairs({**env, **q}))
                    pairs = list(zip(sorted(dice[0], reverse=True), sorted(dice[1], reverse=True)))[:k]
                lost = {a: 0, b: 0}
                tied = 0
                for x, y in pairs:
                    if x > y:
                        lost[b] += 1
                    elif y > x:
                        lost[a] += 1
                    elif ties == REROLL:
                        tied += 1
                    else:  # the side named by ties wins the tied pair: the other one loses
                        lost[b if ties == a else a] += 1
                q.update({f"{a}_lost": lost[a], f"{b}_lost": lost[b], "tied": tied})
            full = {**env, **q}
            new = dict(state)
            for name, expr in d.update:
                new[name] = int(expr(full))
            tally["round"] += 1
            tally["decisive" if new != state else "tie"] += 1
            state = new
        env = {**env0, **state}
        out: dict[str, Any] = {}
        for m in d.metrics:
            if m.counts:
                out[m.name] = tally[COUNTS[m.counts]]
            else:
                v = m.value(env)
                out[m.name] = bool(v) if m.kind == "probability" else int(v)
        return out


def _one_number(columns: list[np.ndarray]) -> np.ndarray | None:
    """Each row of ``columns`` (whole numbers) as one whole number, in the same order as the rows
    compare (mixed radix over each column's range); None when they would not fit in 62 bits."""
    key = np.zeros(columns[0].size, dtype=np.int64)
    width = 1
    for column in columns:
        low = int(column.min())
        span = int(column.max()) - low + 1
        width *= span
        if width >= 1 << 62:
            return None
        key = key * span + (column - low)
    return key


def _shown(value: Any) -> str:
    """A rule's value as a battle file writes it (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _values(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _state_type(fields: tuple[str, ...]) -> Callable[..., tuple[int, ...]]:
    """The chain's state: a named tuple of ints with the definition's state fields."""
    return collections.namedtuple("State", fields, rename=False)


def _rules_type(d: Definition) -> type:
    """The file's ``[rules]`` as a frozen dataclass, values checked on construction."""

    def post_init(self) -> None:
        for name, default in d.rules.items():
            value = getattr(self, name)
            if type(value) is not type(default) and not (
                type(default) is int and isinstance(value, (int, np.integer)) and not isinstance(value, bool)
            ):
                kind = (
                    "true/false"
                    if isinstance(default, bool)
                    else "whole number" if isinstance(default, int) else "string"
                )
                raise InputError(
                    f"{d.source}: rules.{name}: expected a {kind} like {default!r}, got {value!r}"
                )
            if type(default) is int and not -LIMIT < value < LIMIT:
                raise InputError(
                    f"{d.source}: rules.{name}: {value} is too large; numbers must be below 2**62 in size"
                )
            if name in d.keyword_rules and value not in (*d.sides, REROLL):
                raise InputError(
                    f"{d.source}: rules.{name}: {value!r} is used as round.ties; use one of: "
                    f"{', '.join((*d.sides, REROLL))}"
                )
        env = _values(self)
        for name, die in d.dice.items():
            if die.faces is not None:
                n = die.faces(env)
                if isinstance(n, bool) or n < 1 or n > MAX_FACES:
                    raise InputError(
                        f"{d.source}: dice.{name}.faces: gives {n!r} faces under these rules; "
                        f"a die needs 1..{MAX_FACES} faces"
                    )

    def reduce(self):
        return _rules_from, (d.text, d.source, tuple(_values(self).items()))

    fields = [(name, type(value), dataclasses.field(default=value)) for name, value in d.rules.items()]
    cls = dataclasses.make_dataclass(
        "Rules", fields, frozen=True, namespace={"__post_init__": post_init, "__reduce__": reduce}
    )
    cls.__doc__ = f"Rules of {d.name} ({d.source}): {', '.join(d.rules) or 'none'}."
    return cls


def _setup_type(d: Definition) -> type:
    def reduce(self):
        return _setup_from, (d.text, d.source, tuple(_values(self).items()))

    cls = dataclasses.make_dataclass(
        "Setup", [(f.name, int) for f in d.setup], frozen=True, namespace={"__reduce__": reduce}
    )
    cls.__doc__ = f"Setup of {d.name}: " + ", ".join(f"{f.name} {f.low}..{f.high}" for f in d.setup) + "."
    # the file's descriptions as the Attributes that mc.games() and the schema read (base.field_help)
    described = [f"        {f.name}: {' '.join(f.description.split())} ({f.low}..{f.high})"
                 for f in d.setup if f.description]
    if described:
        cls.__doc__ += "\n\n    Attributes:\n" + "\n".join(described) + "\n"
    return cls


@functools.lru_cache(maxsize=64)
def compile_text(text: str, source: str) -> CompiledGame:
    """A definition's text -> its compiled game (cached: a worker compiles each file once)."""
    return CompiledGame(parse_definition(text, source, default_name=_stem(source)))


def _stem(source: str) -> str:
    from pathlib import Path

    return Path(source).stem or "game"


def _rules_from(text: str, source: str, values: tuple) -> Any:
    return compile_text(text, source).Rules(**dict(values))


def _setup_from(text: str, source: str, values: tuple) -> Any:
    return compile_text(text, source).Setup(**dict(values))


__all__ = ["CompiledGame", "compile_text", "DefinitionError", "SAMPLER_MAX_STATES"]

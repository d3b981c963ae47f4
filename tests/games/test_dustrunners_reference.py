"""Dustrunners: the plain reference combat (``combat.reference_fight``) played from hand-built piles.

The reference is what the kernel and the exact solver are checked against, so its corner cases
are pinned here by hand, one combat at a time, with the draw pile's order fixed (the top card is
the last of the list) and every value derived from the rules (docs/rules/dustrunners.md):

- a VP redraw needs another card to draw: on a one-card deck none is paid for (initiative,
  finish, loot, steps), and on a two-card deck the initiative and loot redraws are made;
- under best play the ``finish`` decision is asked with the number of skull-less cards counted,
  which decides whether a second redraw can follow the first.
"""

import numpy as np
import pytest

from montecarlo.games.dustrunners.combat import (
    CardCopy, CombatSetup, Fighter, Piles, reference_fight, solved_best,
)
from montecarlo.games.dustrunners.deck import Enemy
from montecarlo.games.dustrunners.rules import Rules
from tests.games.test_dustrunners import TWO, deck_of


def fight(rules, deck, enemy, me, redraw, order=None, policy="all_in", best=None):
    """One reference combat of ``me`` (no damage bonus) from a draw pile of ``deck``'s cards in
    ``order`` (indices into ``deck.card_list()``, the last on top; default: file order)."""
    cards = [CardCopy(i, c) for i, c in enumerate(deck.card_list())]
    order = range(len(cards)) if order is None else order
    piles = Piles([cards[i] for i in order], [], rules.reshuffle == "when_empty", np.random.default_rng(0))
    return reference_fight(rules, deck, enemy, False, me, 0, policy, redraw, piles, best)


# One card (count 1): (die, driver, triangle, skulls, moon, loot); the enemy has die 0, moon full.
ONE_CARD = [
    # The raiders take the initiative (die 1: enemy health 1); redrawing the health card would
    # draw nothing (the card is in play, both piles are empty). No ammo, no skull: a stalemate.
    ("initiative", (1, "raiders", 0, 0, "new", "fuel"), 2, dict(stalemate=True, ammo_spent=0)),
    # You attack first with your 1 ammo: the lone card, no skull, short of the enemy's 1 health;
    # the whole deck is in your hand, so no finish redraw. Nobody deals damage: a stalemate.
    ("finish", (1, "you", 0, 0, "new", "fuel"), 2, dict(stalemate=True, ammo_spent=1)),
    # Your 1 skull wins at once; the loot card (the same card, reshuffled) has a new moon: no
    # bonus loot, but redrawing it would draw nothing.
    ("loot", (1, "you", 0, 1, "new", "fuel"), 0, dict(player_win=True, bonus_loot=False, loot="fuel")),
    # As above; the loot card's 2 triangles move the raider, and it cannot be redrawn either.
    ("steps", (1, "you", 2, 1, "full", "ammo"), 0, dict(player_win=True, raider_steps=2, loot="ammo")),
]


@pytest.mark.parametrize("redraw, card, vp, expected", ONE_CARD, ids=[case[0] for case in ONE_CARD])
def test_no_redraw_is_paid_for_on_a_one_card_deck(redraw, card, vp, expected):
    """Health 1, ammo 1 (none in the initiative case), turn limit 4, an enemy with 1 star.
    Nothing is paid: VP end at the start's plus 2 for a win."""
    me = Fighter(1, 0 if redraw == "initiative" else 1, vp)
    out = fight(Rules(turn_limit=4), deck_of((1, *card)), Enemy("e", 0, 0, 1, moon="full"), me, redraw)
    assert out["vp_spent"] == 0 and me.vp == vp + 2 * out["player_win"]
    assert out["vp_gained"] == 2 * out["player_win"]
    assert {name: out[name] for name in expected} == expected
    assert me.health == 1 and out["attacks"] == (1 if out["player_win"] else 4)


def test_initiative_redraw_on_a_two_card_deck():
    """Deck: X (die 1, raiders, 1 skull) on top of Y (die 1, you, 1 skull); enemy die 0, 1 star;
    you: health 1, 1 ammo, 2 VP. X gives the raiders the initiative: redrawn for 2 VP, Y comes
    (enemy health 1, you first); the pile is rebuilt from X and Y (1 skull each): you win with
    health 1, and the win's 2 VP make up for the redraw. (Kept, the raiders' Y would kill you.)"""
    deck = TWO((1, "raiders", 0, 1, "new", "fuel"), (1, "you", 0, 1, "new", "fuel"))
    me = Fighter(1, 1, 2)
    out = fight(Rules(), deck, Enemy("e", 0, 0, 1, moon="full"), me, "initiative", order=[1, 0])
    assert (out["player_win"], out["vp_spent"], out["attacks"], out["ammo_spent"]) == (True, 2, 1, 1)
    assert (me.health, me.ammo, me.vp) == (1, 0, 2)


def test_loot_redraw_on_a_two_card_deck():
    """Deck: L1 (die 1, you, 1 skull, moon new, fuel) on top of L2 (the same, moon full, ammo);
    the enemy's moon is full, die 0; you: 1 ammo, 0 VP. L1 sets the enemy's health (1), your
    ammo reveals L2 and wins (2 VP); the pile is rebuilt from L1, the loot card: no bonus, so it
    is redrawn with the 2 VP just won: L2 (reshuffled back as L1 emptied the pile), bonus loot."""
    deck = TWO((1, "you", 0, 1, "new", "fuel"), (1, "you", 0, 1, "full", "ammo"))
    me = Fighter(1, 1, 0)
    out = fight(Rules(), deck, Enemy("e", 0, 0, 1, moon="full"), me, "loot", order=[1, 0])
    assert (out["player_win"], out["loot"], out["bonus_loot"], out["vp_spent"]) == (True, "ammo", True, 2)
    assert me.vp == 0 and out["vp_gained"] == 0


def test_best_play_redraws_twice_when_a_second_redraw_is_possible():
    """Turn limit 1 (your one attack), objective win: a deck of S (die 1, 1 skull) and two blanks
    B (die 1, no skull), all "you"; enemy die 0; you: health 1, 1 ammo, 4 VP (two redraws).

    S on top sets the enemy's health (1); your ammo reveals a B, short. One finish redraw
    draws the other B for certain (the pile holds only it), and only a second redraw (the pile
    rebuilt from S) can win: so the first is worth it only because the B it brings is skull-less,
    one more redraw. Best play redraws twice and wins, spending the 4 VP."""
    deck = deck_of((1, 1, "you", 0, 1, "new", "fuel"), (2, 1, "you", 0, 0, "new", "fuel"))
    rules = Rules(turn_limit=1)
    enemy = Enemy("e", 0, 0, 1, moon="full")
    setup = CombatSetup(deck, enemy, health=1, ammo=1, vp=4, policy="best", redraw="finish", objective="win")
    best = solved_best(rules, setup)
    assert best.values["player_win"] == pytest.approx(1.0)  # every health card: a win by redrawing
    me = Fighter(1, 1, 4)
    out = fight(rules, deck, enemy, me, "finish", order=[1, 2, 0], policy="best", best=best)
    assert (out["player_win"], out["ammo_spent"], out["vp_spent"]) == (True, 1, 4)
    assert me.vp == 2

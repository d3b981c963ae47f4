"""The template a contributor copies is itself a working game that passes the shared checks."""

import pytest

from montecarlo import registry
from tests.games import test_consistency as consistency


@pytest.fixture
def template(monkeypatch):
    monkeypatch.setitem(registry.EXTRA, "template", "montecarlo.games._template")
    return registry.get_game("template")


def test_the_template_is_not_registered_as_a_game():
    assert "template" not in registry.list_games()


def test_the_template_passes_the_consistency_checks(template):
    for question in template.questions:
        consistency.test_question_contract("template", question)
        for variant in (None, *template.variants):
            for i in range(len(template.setups(question))):
                case = ("template", question, variant, i)
                consistency.test_kernel_agrees_with_exact(case)
                consistency.test_reference_agrees_with_exact_or_kernel(case)
    for variant in template.variants:
        consistency.test_every_variant_changes_a_result("template", variant)

"""Renderers: a visitor with one hook per node; the diff used by replay."""

import pytest

import fracas
from fracas.diff import differences, render_differences
from fracas.rulesets.er.render import Renderer, TerminalRenderer, sparkline

REQUEST = {
    "attacker": {"strength": 2, "strength_mod": 1},
    "strikes": [{"target": "foe", "method": "melee", "style": "slashing", "dice": 3,
                 "weight": 1, "damage_type": "edged"}],
    "targets": {"foe": {"ac": 14}},
    "rolls": [20, 12, 1, 20, 2, 5],
}


class Faces(Renderer):
    """A second output: only the faces, to show a new output is a new subclass."""

    def attack_header(self, result):
        return ""

    def die(self, die, strike):
        return str(die["face"])

    def crit_die(self, link, strike):
        return f"c{link['face']}"

    def strike(self, index, strike, dice, chain):
        return " ".join(dice + chain)

    def target(self, tid, target):
        return f"{tid}={target['damage']}"

    def targets(self, rendered):
        return ",".join(rendered)

    def attack_footer(self, result):
        return ""


def test_a_new_output_is_a_new_subclass():
    result = fracas.resolve(REQUEST, seed=1).to_dict()
    assert Faces().render(result) == "20 12 1 c20 c5\nfoe=6"


def test_the_base_renderer_leaves_every_hook_to_subclasses():
    with pytest.raises(NotImplementedError):
        Renderer().render(fracas.resolve(REQUEST, seed=1).to_dict())


def test_terminal_renderer_styles_through_the_given_function():
    calls = []

    def style(text, **kw):
        calls.append(kw)
        return text

    TerminalRenderer(style).render(fracas.resolve(REQUEST, seed=1).to_dict())
    assert {"fg": "yellow", "bold": True} in calls     # the natural 20


def test_initiative_is_rendered_in_order():
    result = fracas.roll_initiative({"combatants": [{"id": "a", "agility": 4},
                                                    {"id": "b", "agility": 9}]}, seed=3).to_dict()
    text = TerminalRenderer().render(result)
    first, second = result["order"]
    assert f"1. {first['id']}: d10 {first['roll']}" in text
    assert f"2. {second['id']}: d10 {second['roll']}" in text


@pytest.mark.parametrize("expected, actual, found", [
    ({"a": 1}, {"a": 1}, []),
    ({"a": 1}, {"a": 2}, [("$.a", 1, 2)]),
    ({"a": [1, 2]}, {"a": [1, 3]}, [("$.a[1]", 2, 3)]),
    ({"a": True}, {"a": 1}, [("$.a", True, 1)]),
    ({"a": 1.0}, {"a": 1}, []),
    ({"a": None}, {"a": 0}, [("$.a", None, 0)]),
])
def test_differences(expected, actual, found):
    assert differences(expected, actual) == found


def test_differences_of_missing_fields_and_list_lengths():
    found = differences({"a": 1, "b": [1]}, {"c": 2, "b": [1, 2]})
    paths = [path for path, _, _ in found]
    assert paths == ["$.a", "$.b[1]", "$.c"]
    text = render_differences(found)
    assert "$.a: expected 1, got (missing)" in text
    assert "$.c: expected (missing), got 2" in text


def test_render_differences_is_bounded():
    found = [(f"$.x[{i}]", i, i + 1) for i in range(50)]
    text = render_differences(found, limit=10)
    assert text.count("\n") == 10 and "and 40 more" in text


@pytest.mark.parametrize("histogram, expected", [
    ([], "—"),
    ([0, 0], "—"),
    ([5], "0█0"),
    ([8, 0, 1], "0█ ▁2"),
])
def test_sparkline(histogram, expected):
    assert sparkline(histogram) == expected

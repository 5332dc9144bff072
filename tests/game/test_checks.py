"""tabled.game.checks: typed reads of a settings table, each error naming the full key in the caller's words."""

from __future__ import annotations

import tomllib
from enum import StrEnum
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from tabled.game.checks import MAX_CENTS, Section, Wording, is_cents, is_whole_number, shown
from tabled.daemon.config import ConfigError, parse_config
from tabled.game.profiles import ProfileError, profile_from_mapping
from tabled.profiles import load_profile
from tabled.game.progressive import ProgressiveError, ProgressiveSchedule


class Problem(ValueError):
    """The caller's own error class."""


def _error(key: str, problem: str) -> Problem:
    return Problem(f"<{key}> {problem}")


def section(data, wording: Wording = Wording()) -> Section:
    return Section(data, _error, "top", wording)


class Colour(StrEnum):
    RED = "red"
    BLACK = "black"


def fails(read, message: str) -> None:
    with pytest.raises(Problem) as err:
        read()
    assert str(err.value) == message


# -- each read -----------------------------------------------------------------------------------


def test_get_gives_the_value_or_default_and_names_a_missing_key():
    s = section({"a": 1})
    assert s.get("a") == 1
    assert s.get("b", None) is None
    fails(lambda: s.get("c"), "<top.c> is missing")


def test_integer_range_wording_and_no_bools():
    s = section({"n": 5, "big": 10**30, "yes": True, "f": 5.0})
    assert s.integer("n", 1, 7) == 5
    assert s.integer("big", 0) == 10**30                    # no upper bound
    assert s.integer("absent", 0, 9, 4) == 4
    fails(lambda: s.integer("n", 6, 7), "<top.n> must be an integer from 6 to 7, got 5")
    fails(lambda: s.integer("n", 6), "<top.n> must be an integer of at least 6, got 5")
    fails(lambda: s.integer("yes", 0, 9), "<top.yes> must be an integer from 0 to 9, got True")
    fails(lambda: s.integer("f", 0, 9), "<top.f> must be an integer from 0 to 9, got 5.0")
    fails(lambda: s.integer("n", 0, 1, what="a whole percent"),
          "<top.n> must be a whole percent from 0 to 1, got 5")


def test_cents_are_whole_and_never_negative_a_bool_or_a_float():
    s = section({"ok": 0, "neg": -1, "yes": False, "f": 5.0, "s": "500"})
    assert s.cents("ok") == 0
    for key, text in (("neg", "-1"), ("yes", "False"), ("f", "5.0"), ("s", "'500'")):
        fails(lambda key=key: s.cents(key), f"<top.{key}> must be a whole number of cents >= 0, got {text}")


def test_cents_wording_is_the_callers_and_a_float_can_have_its_own():
    s = section({"f": 5.0, "neg": -3}, Wording(cents="cents, 0 or more", cents_not_float="no decimal point"))
    fails(lambda: s.cents("f"), "<top.f> must be no decimal point, got 5.0")
    fails(lambda: s.cents("neg"), "<top.neg> must be cents, 0 or more, got -3")


def test_text_flag_choice_and_member():
    s = section({"t": "x", "blank": "  ", "on": True, "one": 1, "c": "red", "bad": "blue", "list": ["red"]})
    assert s.text("t") == "x"
    fails(lambda: s.text("blank"), "<top.blank> must be non-empty text, got '  '")
    assert s.flag("on") is True
    fails(lambda: s.flag("one"), "<top.one> must be true or false, got 1")
    assert s.choice("c", ("red", "black")) == "red"
    fails(lambda: s.choice("bad", ("red", "black")), "<top.bad> must be one of 'red', 'black', got 'blue'")
    assert s.member("c", Colour) is Colour.RED
    assert s.member("absent", Colour, "black") is Colour.BLACK
    fails(lambda: s.member("list", Colour), "<top.list> must be one of 'red', 'black', got ['red']")


# -- nesting and unknown keys ------------------------------------------------------------------


def test_nested_sections_and_list_entries_name_the_full_key():
    s = section({"inner": {"deep": {"n": "x"}}, "rows": [{"n": 1}, 7], "scalar": 3})
    deep = s.section("inner").section("deep")
    fails(lambda: deep.integer("n", 0), "<top.inner.deep.n> must be an integer of at least 0, got 'x'")
    assert s.entry(s.get("rows")[0], "rows[0]").integer("n", 0) == 1
    fails(lambda: s.entry(s.get("rows")[1], "rows[1]"), "<top.rows[1]> must be a table, got 7")
    fails(lambda: s.section("scalar"), "<top.scalar> must be a table, got 3")
    fails(lambda: s.section("absent"), "<top.absent> is missing")
    assert s.section("absent", {}).data == {}


def test_a_top_level_that_is_not_a_table_is_refused():
    with pytest.raises(Problem, match="^<> must be a table, got \\[1\\]$"):
        Section([1], _error)


def test_finish_refuses_the_first_key_nobody_read_in_the_callers_words():
    s = section({"b": 1, "a": 2, "z": 3})
    s.get("z")
    fails(s.finish, "<top.a> unknown key (a typo?)")
    quiet = section({"x": 1}, Wording(unknown_key="is not a setting"))
    fails(quiet.finish, "<top.x> is not a setting")
    read = section({"x": 1})
    read.get("x")
    read.finish()                                              # everything read: no error


# -- the predicates ----------------------------------------------------------------------------


@given(st.one_of(st.integers(), st.integers(MAX_CENTS - 2, MAX_CENTS + 2), st.integers(2**62, 10**40)))
def test_cents_are_exactly_the_ints_from_zero_to_the_maximum(n):
    assert is_whole_number(n)
    assert is_cents(n) == (0 <= n <= MAX_CENTS)
    if 0 <= n <= MAX_CENTS:
        assert section({"k": n}).cents("k") == n
    elif n > MAX_CENTS:
        fails(lambda: section({"k": n}).cents("k"),
              f"<top.k> must be at most {MAX_CENTS} cents (the most any amount may be), got {shown(n)}")
    else:
        fails(lambda: section({"k": n}).cents("k"), f"<top.k> must be a whole number of cents >= 0, got {n}")


@given(st.one_of(st.booleans(), st.floats(), st.text(), st.none(), st.lists(st.integers())))
def test_nothing_but_an_int_is_money(value):
    assert not is_whole_number(value)
    assert not is_cents(value)
    with pytest.raises(Problem, match="must be a whole number of cents"):
        section({"k": value}).cents("k")


# -- each caller keeps its own wording (the messages its users and tests know) ----------------


def test_config_words_its_errors_with_file_and_key():
    data = {"table": {"id": "T1", "spots": 7, "minimum_cents": 5.0, "maximum_cents": 500}}
    with pytest.raises(ConfigError) as err:
        parse_config(data, "t.toml", Path("."))
    assert str(err.value) == "t.toml: table.minimum_cents: must be whole cents (an integer, no decimal point), got 5.0"


def test_profile_words_its_errors_with_profile_and_quoted_key():
    with pytest.raises(ProfileError) as err:
        profile_from_mapping({"name": "x", "jurisdiction": "y", "description": "z", "ante": 1}, "'p.toml'")
    assert str(err.value) == "profile 'p.toml': key 'ante' must be a table, got 1"


@pytest.mark.parametrize("field,value,message", [
    ("royal_minimum_cents", -1, "royal_minimum_cents must be a whole number of cents >= 0, got -1"),
    ("reset_cents", 1.0, "reset_cents must be a whole number of cents >= 0, got 1.0"),
    ("royal_pool_percent", 101, "royal_pool_percent must be a whole percent from 0 to 100, got 101"),
    ("straight_flush_pool_percent", True,
     "straight_flush_pool_percent must be a whole percent from 0 to 100, got True"),
])
def test_progressive_schedule_words_its_errors_by_field(field, value, message):
    fields = dict(royal_minimum_cents=1, royal_pool_percent=100, straight_flush_minimum_cents=1,
                  straight_flush_pool_percent=10)
    fields[field] = value
    with pytest.raises(ProgressiveError) as err:
        ProgressiveSchedule(**fields)
    assert str(err.value) == message


@pytest.mark.parametrize("forfeited", [[["folded"]], [{"a": 1}], [1], "folded"])
def test_profile_forfeited_by_with_a_non_status_inside_is_a_clear_error(forfeited):
    """Was a TypeError (unhashable list in a set lookup) for a list or table inside the list."""
    data = tomllib.loads(resources.files("tabled").joinpath("profiles", "nsw.toml").read_text("utf-8"))
    data["progressive"]["forfeited_by"] = forfeited
    with pytest.raises(ProfileError) as err:
        profile_from_mapping(data, "'p.toml'")
    assert str(err.value) == ("profile 'p.toml': key 'progressive.forfeited_by' must be a list drawn from "
                              f"['conceded', 'folded'], got {forfeited!r}")
    assert load_profile("nsw").progressive_forfeited_by == {"folded", "conceded"}

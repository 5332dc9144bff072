"""The registry of journal kinds (tabled/table/kinds.py) covers every input the controller journals and
every note the fold writes, so replay tells them apart by name, never by a prefix."""

import re
from pathlib import Path

import pytest

from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.table.effects import Note
from tabled.table.kinds import CHECKPOINT
from tabled.table.kinds import INPUTS, KINDS, NOTES, is_input, is_note

TABLED = Path(__file__).parents[2] / "tabled"
SOURCES = tuple(TABLED.rglob("*.py"))


def literal_kinds(pattern: str, sources=SOURCES) -> set[str]:
    return {m for p in sources for m in re.findall(pattern, p.read_text())}


def test_every_note_the_code_builds_is_registered():
    built = literal_kinds(r'Note\(\s*"([a-z_.]+)"')
    assert built and built <= set(NOTES), built - set(NOTES)


def test_every_input_the_code_submits_is_registered():
    adapter = [TABLED / "daemon" / "devices.py"]
    translated = literal_kinds(r'\(\s*"([a-z]+\.[a-z_]+)",\s*\{', adapter)  # a device's event
    submitted = literal_kinds(r'submit\(\s*"([a-z_.]+)"') | translated
    assert "deck.verified" in submitted and "shoe.card" in submitted
    assert submitted <= set(INPUTS), submitted - set(INPUTS)


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_the_fold_knows_every_registered_input(kind):
    core = make_core(load_config(None), None)
    said = [getattr(e, "text", "") for e in core.apply(kind, {}, 0)]
    assert not any("unknown input" in text for text in said)


def test_a_note_with_an_unregistered_kind_cannot_be_built():
    with pytest.raises(ValueError, match="not registered"):
        Note("deck.recounted", {})


@pytest.mark.parametrize("kind", ["deck.checked", "round.settled", "panel.approved", "fault.raised"])
def test_notes_are_not_inputs_whatever_their_prefix(kind):
    assert is_note(kind) and not is_input(kind) and KINDS[kind].replayed


@pytest.mark.parametrize("kind", ["deck.verified", "panel", "pool.meter", "shuffler.hand", "something.new"])
def test_inputs_and_unknown_kinds_are_folded(kind):
    assert is_input(kind) and not is_note(kind)


def test_the_checkpoint_is_neither():
    assert not is_input(CHECKPOINT) and not is_note(CHECKPOINT)

"""The jurisdiction profiles shipped in this folder, and an operator's own profile file, read and
checked (:func:`tabled.game.profiles.profile_from_mapping`): the file reading the pure game core
leaves out."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from tabled.host.documents import parse_toml, read_text
from tabled.game.profiles import SHIPPED_PROFILES, Profile, ProfileError, profile_from_mapping


def load_profile(name_or_path: str | Path) -> Profile:
    """A shipped profile by name (``nsw``, ``us-standard``, ``nz-irregularities``) or a TOML file."""
    text_name = str(name_or_path)
    if text_name in SHIPPED_PROFILES:
        where = f"'{text_name}'"
        raw = resources.files("tabled").joinpath("profiles", f"{text_name}.toml").read_text("utf-8")
    else:
        path = Path(text_name)
        if not path.is_file():
            shipped = ", ".join(SHIPPED_PROFILES)
            raise ProfileError(f"no profile {text_name!r}: name one of {shipped} or a .toml file")
        where = f"'{path}'"
        raw = read_text(path, lambda problem: ProfileError(f"profile {where} {problem}"))
    data = parse_toml(raw, lambda problem: ProfileError(f"profile {where} {problem}"))
    return profile_from_mapping(data, where)


__all__ = ["load_profile"]

"""The software installed on the table PC, checked file by file.

Two checks over one list of files:

* against the **release manifest**: the SHA-256 of every file the release installed, signed with
  the release key (Ed25519). The public key alone checks it; a manifest signed by any other key, a
  changed byte in any file, a file missing or a file added is named.
* the **inspector's challenge**: an HMAC-SHA256 keyed with a challenge the inspector types, over the
  same files in the same order, so the answer cannot have been stored beforehand; the inspector
  compares it with the one computed on the approved copy (docs/verification.md gives the exact
  bytes, so it can be computed with any HMAC tool).

The files are those of the ``tabled`` distribution (its packages as they are on disk, the
jurisdiction profiles among them) and of every distribution it requires, found through their
installation records. Compiled caches (``__pycache__``) and the installer's own bookkeeping
(``RECORD``, ``INSTALLER``, ``REQUESTED``, ``direct_url.json``) are left out: they differ between two
correct installs of the same release.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import importlib
import importlib.metadata as metadata
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: the packages of the ``tabled`` distribution, read from disk (an editable install records none)
OWN_PACKAGES = ("tabled", "tabled_drivers")
OWN_DISTRIBUTION = "tabled"
#: installer bookkeeping that two correct installs of one release write differently
BOOKKEEPING = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})
MANIFEST_FORMAT = 1
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class SoftwareError(ValueError):
    """A manifest, signature, key or challenge that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class InstalledFile:
    """One file: ``name`` is how manifests and reports call it (``distribution/path``)."""

    name: str
    path: Path


@dataclass
class Verdict:
    """The installed files against a release manifest."""

    release: str
    files: int
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return not (self.changed or self.missing or self.added)

    def problems(self) -> list[str]:
        return ([f"changed: {n}" for n in self.changed] + [f"missing: {n}" for n in self.missing]
                + [f"not in the release: {n}" for n in self.added])


def _skipped(relative: str) -> bool:
    parts = Path(relative).parts
    return "__pycache__" in parts or relative.endswith((".pyc", ".pyo")) or parts[-1] in BOOKKEEPING \
        or parts[0] == ".."  # console scripts outside site-packages: rewritten per install


def _own_files(packages: Sequence[str]) -> list[InstalledFile]:
    found = []
    for package in packages:
        module = importlib.import_module(package)
        for folder in map(Path, module.__path__):
            for path in sorted(folder.rglob("*")):
                relative = path.relative_to(folder).as_posix()
                if path.is_file() and not _skipped(relative):
                    found.append(InstalledFile(f"{OWN_DISTRIBUTION}/{package}/{relative}", path))
    return found


def _required(dist: metadata.Distribution) -> list[str]:
    names = []
    for requirement in dist.requires or ():
        m = _NAME.match(requirement)
        if m:
            names.append(m.group(0))
    return names


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_closure(root: str = OWN_DISTRIBUTION) -> list[metadata.Distribution]:
    """Every installed distribution ``root`` requires, directly or through another (extras included
    when installed: what is installed is what runs)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = _required(metadata.distribution(root))
    while todo:
        name = _normal(todo.pop())
        if name in seen or name == _normal(root):
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an extra that is not installed, or a marker for another platform
        seen[name] = dist
        todo.extend(_required(dist))
    return [seen[n] for n in sorted(seen)]


def installed_files(packages: Sequence[str] = OWN_PACKAGES,
                    dependencies: Iterable[metadata.Distribution] | None = None) -> list[InstalledFile]:
    """The files checked, sorted by name: the order the challenge's HMAC reads them in."""
    found = _own_files(packages)
    for dist in dependency_closure() if dependencies is None else dependencies:
        label = f"{_normal(dist.metadata['Name'])}-{dist.version}"
        for entry in dist.files or ():
            relative = entry.as_posix()
            if not _skipped(relative):
                found.append(InstalledFile(f"{label}/{relative}", Path(str(dist.locate_file(entry)))))
    return sorted(found, key=lambda f: f.name)


def file_digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def challenge_answer(challenge: str, files: Sequence[InstalledFile]) -> str:
    """HMAC-SHA256 keyed with the challenge's UTF-8 bytes over, for each file in order: its name in
    UTF-8, a zero byte, its length as 8 bytes big-endian, its contents."""
    if not challenge.strip():
        raise SoftwareError("the challenge is empty: type the one the inspector gives")
    mac = hmac.new(challenge.encode("utf-8"), digestmod=hashlib.sha256)
    for f in files:
        data = f.path.read_bytes()
        mac.update(f.name.encode("utf-8") + b"\0" + len(data).to_bytes(8, "big"))
        mac.update(data)
    return mac.hexdigest()


# -- the release manifest ------------------------------------------------------------------------------


def manifest_document(release: str, files: Sequence[InstalledFile]) -> bytes:
    """The manifest's canonical bytes (sorted keys, no spaces): what the release key signs."""
    body = {"format": MANIFEST_FORMAT, "release": release, "files": {f.name: file_digest(f.path) for f in files}}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")


def sign_manifest(document: bytes, private_key_pem: bytes) -> bytes:
    """The Ed25519 signature of a manifest, base64 (a text file beside it)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key
    try:
        key = load_pem_private_key(private_key_pem, password=None)
    except (ValueError, TypeError) as exc:
        raise SoftwareError(f"the release private key cannot be read: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SoftwareError("the release private key is not an Ed25519 key")
    return base64.b64encode(key.sign(document)) + b"\n"


def key_fingerprint(public_key_pem: bytes) -> str:
    """SHA-256 of the raw public key, first 16 hex digits: how reports name a key."""
    return hashlib.sha256(_public_key(public_key_pem).public_bytes_raw()).hexdigest()[:16]


def _public_key(public_key_pem: bytes):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    try:
        key = load_pem_public_key(public_key_pem)
    except (ValueError, TypeError) as exc:
        raise SoftwareError(f"the release public key cannot be read: {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SoftwareError("the release public key is not an Ed25519 key")
    return key


def read_manifest(document: bytes, signature: bytes, public_key_pem: bytes) -> tuple[str, dict[str, str]]:
    """(release, file name -> SHA-256) of a manifest whose signature the release key made."""
    from cryptography.exceptions import InvalidSignature
    key = _public_key(public_key_pem)
    try:
        key.verify(base64.b64decode(signature.strip(), validate=True), document)
    except (InvalidSignature, ValueError):
        raise SoftwareError("the manifest's signature is not the release key's: the manifest is not the "
                            "release's (or the key is not its key)") from None
    try:
        body = json.loads(document)
        release, files = body["release"], body["files"]
        if body.get("format") != MANIFEST_FORMAT or not isinstance(release, str) or not isinstance(files, dict):
            raise ValueError("unknown format")
    except (ValueError, KeyError, TypeError) as exc:
        raise SoftwareError(f"the manifest cannot be read: {exc}") from None
    return release, {str(k): str(v) for k, v in files.items()}


def compare(release: str, expected: dict[str, str], files: Sequence[InstalledFile]) -> Verdict:
    verdict = Verdict(release=release, files=len(files))
    present = {f.name: f for f in files}
    for name, digest in sorted(expected.items()):
        f = present.get(name)
        if f is None:
            verdict.missing.append(name)
        elif file_digest(f.path) != digest:
            verdict.changed.append(name)
    verdict.added = sorted(set(present) - set(expected))
    return verdict


def verify(manifest: Path, signature: Path, public_key: Path,
           files: Sequence[InstalledFile] | None = None) -> Verdict:
    """The installed files against the signed release manifest (raises :class:`SoftwareError` when
    the manifest cannot be trusted at all)."""
    try:
        document, sig, key = manifest.read_bytes(), signature.read_bytes(), public_key.read_bytes()
    except OSError as exc:
        raise SoftwareError(f"{exc.filename}: {exc.strerror}") from None
    release, expected = read_manifest(document, sig, key)
    return compare(release, expected, installed_files() if files is None else files)


__all__ = [
    "InstalledFile", "Verdict", "SoftwareError", "installed_files", "dependency_closure", "file_digest",
    "challenge_answer", "manifest_document", "sign_manifest", "read_manifest", "compare", "verify",
    "key_fingerprint",
]

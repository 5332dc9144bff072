"""Seals: the journal's hash chain signed with a key the journal file does not hold.

The hash chain alone proves nothing against someone who can write the file: they change a record
and hash every record after it again. A seal is a record signed with the table's Ed25519 signing
key over the head of the chain (the record before it) *and* a short fingerprint of every record
since the previous seal. Whoever rewrites history cannot sign again, so ``tabled audit verify``,
holding only the public key, finds:

* a rewritten record, by its number, even when every hash after it was recomputed (its fingerprint
  is not the one sealed);
* a seal that is not the key's (forged, or signed by a key it was not given);
* a record no seal covers: between two seals, or after the last one.

The journal seals every commit in the same transaction as its records (tabled/journal/store.py),
so a journal written with a key never holds an unsealed record, a crash included: one found is
not the table's, and the start, ``tabled audit verify --public-key`` and the floor refuse it.

The private key comes from a file only root can read, handed to the service by systemd
(``LoadCredential=journal-signing-key:...``, found in ``$CREDENTIALS_DIRECTORY``), or named in the
config; it is never stored in the journal, the config or the repository. A key file others can
write is refused, one others can read is used with a warning (as ssh treats its keys), and every
key file is read bounded (:data:`MAX_KEY_BYTES`). A start with another key than the last seal's
writes a ``journal.key`` record naming both, sealed by the new key, so each stretch of the journal
names the key that sealed it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabled.journal.store import FINGERPRINT_HEX, fingerprint
from tabled.host.documents import read_text
from tabled.host.files import create_private
from tabled.table.kinds import KEY, SEAL

#: the credential systemd passes (tabled.service: LoadCredential=)
CREDENTIAL = "journal-signing-key"
_DOMAIN = b"tabled journal seal\0"
#: a PEM key (private or public) is a few hundred bytes; a file longer than this is not one
MAX_KEY_BYTES = 16 * 1024


class SealError(ValueError):
    """A signing or public key that cannot be used; the message names the file and why."""


def key_id(public_raw: bytes) -> str:
    """How a key is named: the first 16 hex digits of the SHA-256 of its 32 raw bytes."""
    return hashlib.sha256(public_raw).hexdigest()[:16]


@dataclass(frozen=True)
class SigningKey:
    """The table's private key, read once at start."""

    private: Any  # cryptography's Ed25519PrivateKey
    id: str

    @classmethod
    def from_pem(cls, pem: bytes, where: str) -> SigningKey:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import load_pem_private_key
        try:
            key = load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as exc:
            raise SealError(f"{where}: not a PEM private key ({exc})") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise SealError(f"{where}: the journal's signing key must be an Ed25519 key")
        return cls(key, key_id(key.public_key().public_bytes_raw()))

    def sign(self, message: bytes) -> str:
        return base64.b64encode(self.private.sign(message)).decode()

    def seal_payload(self, first: int, through: int, head: str, fingerprints: list[str]) -> dict[str, Any]:
        """A seal over records ``first`` to ``through``: the chain's hash at ``through`` and each
        record's fingerprint, signed."""
        return {"first": first, "through": through, "hash": head, "records": "".join(fingerprints), "key": self.id,
                "signature": self.sign(message(through, head, first, fingerprints))}

    def checker(self) -> SealChecker:
        """A check of seals against this key's own public half (the journal's start check: the last
        seal's signature vouches for every record before it)."""
        return SealChecker({self.id: self.private.public_key()}, last_signature_only=True)


def read_key(path: Path, what: str) -> bytes:
    """The bytes of a key file, read bounded: a device without end (``/dev/zero``) or a file far
    longer than a key is refused with one line naming it."""
    text = read_text(path, lambda problem: SealError(f"{path}: {what} {problem}"), limit=MAX_KEY_BYTES,
                     missing="cannot be read (no such file)")
    return text.encode()


def _check_mode(path: Path) -> None:
    """Refuse a signing key others can write (whoever can replace it signs as the table); warn on one
    others can read (whoever reads it can sign as the table)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise SealError(f"{path}: the journal's signing key cannot be read ({exc.strerror})") from None
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise SealError(f"{path}: the journal's signing key may be written by others (mode "
                        f"{stat.S_IMODE(mode):04o}): refused; make it its owner's alone (chmod 600)")
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        import structlog  # the daemon's log: not loaded by the audits that read public keys alone
        structlog.get_logger("tabled.journal.seals").warning(
            "journal.signing_key_readable_by_others", path=str(path), mode=f"{stat.S_IMODE(mode):04o}",
            detail="whoever reads it can seal as the table: make it its owner's alone (chmod 600)")


def find_signing_key(configured: Path | None, environ: Mapping[str, str] | None = None) -> SigningKey | None:
    """The key named in the config, else systemd's credential, else None (an unsealed journal)."""
    environ = os.environ if environ is None else environ
    path = configured
    if path is None and environ.get("CREDENTIALS_DIRECTORY"):
        candidate = Path(environ["CREDENTIALS_DIRECTORY"]) / CREDENTIAL
        path = candidate if candidate.exists() else None
    if path is None:
        return None
    _check_mode(path)
    return SigningKey.from_pem(read_key(path, "the journal's signing key"), str(path))


def local_key_files(journal: Path) -> tuple[Path, Path]:
    """Where a table that makes its own key (the simulated table) keeps it: the private key and its
    public half beside the journal (``var/journal.db``: ``var/journal-signing.key`` and ``.pub``)."""
    return (journal.with_name(f"{journal.stem}-signing.key"), journal.with_name(f"{journal.stem}-signing.pub"))


def local_public_key(journal: Path) -> Path | None:
    """The public key made beside ``journal`` (:func:`local_key_files`), when there is one."""
    public = local_key_files(journal)[1]
    return public if public.is_file() else None


def make_local_key(journal: Path) -> Path:
    """The signing key beside ``journal``, made on first use (Ed25519; the private key readable by
    its owner alone, the public half beside it for ``tabled audit verify``). Returns the private
    key's file; one there already is kept (and checked when it is read)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private, public = local_key_files(journal)
    if not private.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        create_private(private.with_name(private.name + ".new"))
        partial = private.with_name(private.name + ".new")
        partial.write_bytes(pem)
        os.replace(partial, private)  # whole or not there: a start killed meanwhile makes a new one
    if not public.exists():
        key = SigningKey.from_pem(read_key(private, "the journal's signing key"), str(private)).private
        public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                         serialization.PublicFormat.SubjectPublicKeyInfo))
    return private


def public_keys(pems: Iterable[tuple[str, bytes]]) -> dict[str, Any]:
    """Key id -> public key, from (file name, PEM) pairs."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    found = {}
    for where, pem in pems:
        try:
            key = load_pem_public_key(pem)
        except (ValueError, TypeError) as exc:
            raise SealError(f"{where}: not a PEM public key ({exc})") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SealError(f"{where}: a journal key is an Ed25519 key")
        found[key_id(key.public_bytes_raw())] = key
    return found


def message(through: int, head_hash: str, first: int, fingerprints: list[str]) -> bytes:
    """The bytes a seal signs: the records it covers, the head's full hash and each one's fingerprint."""
    return (_DOMAIN + first.to_bytes(8, "big") + through.to_bytes(8, "big") + bytes.fromhex(head_hash)
            + "".join(fingerprints).encode("ascii"))


@dataclass
class Stretch:
    """Records ``first`` to ``last`` sealed by one key."""

    key: str
    first: int
    last: int
    checked: bool  # False: no public key was given for it


@dataclass
class SealReport:
    seals: int = 0
    stretches: list[Stretch] = field(default_factory=list)
    rewritten: list[int] = field(default_factory=list)     # records whose contents are not those sealed
    forged: list[int] = field(default_factory=list)        # seals whose signature is not their key's
    skipped: list[int] = field(default_factory=list)       # records between two seals that neither covers
    unsealed_from: int | None = None                        # records from here to the end carry no seal

    @property
    def ok(self) -> bool:
        """No seal's check failed and no record was passed over by a seal (a tail after the last
        seal is :attr:`unsealed_from`, judged by the reader: a copy in transit may end there)."""
        return not (self.rewritten or self.forged or self.skipped)

    @property
    def first_unsealed(self) -> int | None:
        """The first record no seal covers, between seals or after the last; None when every one is."""
        found = self.skipped[:1] + ([self.unsealed_from] if self.unsealed_from is not None else [])
        return min(found) if found else None


def _signed(public: Any, p: dict[str, Any], fingerprints: list[str]) -> bool:
    """Whether seal ``p`` is signed by ``public``."""
    from cryptography.exceptions import InvalidSignature
    try:
        public.verify(base64.b64decode(str(p.get("signature")), validate=True),
                      message(p["through"], str(p.get("hash")), p["first"], fingerprints))
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


class SealChecker:
    """Fed every record in order (seq, kind, payload, hash); checks each seal against the records
    it covers.

    ``last_signature_only`` (the start's check): each seal is checked against its records, but only
    the last one's signature is verified. That one signs the chain's hash at the record before it,
    which the chain (checked beside this) ties to every record before, so it vouches for them all;
    an audit verifies every signature, to name the first seal that is not the key's."""

    def __init__(self, keys: Mapping[str, Any], last_signature_only: bool = False):
        self.keys = keys
        self.report = SealReport()
        self.since: list[tuple[int, str, str]] = []  # (seq, fingerprint, hash) of the records since the last seal
        self.last_signature_only = last_signature_only
        self._unverified: tuple[int, Any, dict[str, Any], list[str]] | None = None  # the last seal's, deferred

    def feed(self, seq: int, time_us: int, round_id: str | None, kind: str, text: str, digest: str) -> None:
        """One record of the journal, in order (``text``: its payload as stored)."""
        if kind == SEAL:
            try:
                payload = json.loads(text)
            except ValueError:
                payload = None
            if isinstance(payload, dict):
                self._seal(seq, payload)
            else:
                self.report.forged.append(seq)
            self.since = []
        else:
            self.since.append((seq, fingerprint(seq, time_us, round_id, kind, text), digest))

    def _seal(self, seq: int, p: dict[str, Any]) -> None:
        r = self.report
        r.seals += 1
        first, through, key = p.get("first"), p.get("through"), str(p.get("key"))
        if not isinstance(first, int) or not isinstance(through, int) or through < first:
            r.forged.append(seq)
            return
        sealed = str(p.get("records", ""))
        fingerprints = [sealed[i:i + FINGERPRINT_HEX] for i in range(0, len(sealed), FINGERPRINT_HEX)]
        # every record since the last seal is this seal's: one it leaves out is sealed by none
        r.skipped += [number for number, _, _ in self.since if not first <= number <= through]
        public = self.keys.get(key)
        checked = public is not None
        if public is not None and self.last_signature_only:
            self._unverified = (seq, public, p, fingerprints)
        elif public is not None and not _signed(public, p, fingerprints):
            r.forged.append(seq)
            checked = False
        if checked:  # a seal that is the key's: the records it names must be the ones here
            present = {number: (mark, digest) for number, mark, digest in self.since}
            for offset, sealed_mark in enumerate(fingerprints):
                number = first + offset
                if present.get(number, ("", ""))[0] != sealed_mark:
                    r.rewritten.append(number)
            if not r.rewritten and present.get(through, ("", ""))[1] != p.get("hash"):
                r.rewritten.append(through)  # the contents as sealed, but not the chain that was sealed
        stretches = r.stretches
        if stretches and stretches[-1].key == key and stretches[-1].checked == checked:
            stretches[-1].last = seq
        else:
            start = stretches[-1].last + 1 if stretches else 1
            stretches.append(Stretch(key, start, seq, checked))

    def finish(self) -> SealReport:
        if self._unverified is not None:
            seq, public, p, fingerprints = self._unverified
            if not _signed(public, p, fingerprints):
                self.report.forged.append(seq)
        if self.since:
            self.report.unsealed_from = self.since[0][0]
        return self.report


__all__ = ["SEAL", "KEY", "CREDENTIAL", "MAX_KEY_BYTES", "SealError", "SigningKey", "find_signing_key",
           "local_key_files", "local_public_key", "make_local_key", "public_keys", "read_key", "message",
           "SealChecker", "SealReport", "Stretch", "key_id"]

"""``tabled verify software``: is what runs on this table PC the release the regulator approved?

* ``tabled verify software`` checks every installed file (tabled, its profiles, every library it
  runs on) against the release manifest named in the config's ``[software]`` section (or
  ``--manifest`` and ``--release-key``), whose Ed25519 signature the release key must have made. It
  names each changed, missing or added file. Exit 0: verified; 1: a file differs; 2: the manifest,
  its signature or the key cannot be used.
* ``tabled verify software --challenge TEXT``: the inspector's check. Prints the HMAC-SHA256 keyed
  with the challenge over the same files (docs/verification.md says exactly which bytes), to compare
  with the answer computed on the approved copy; a stored answer cannot match a fresh challenge.
  ``--method sha1`` (no seed) and ``--method hmac-sha1 --challenge SEED`` answer as GSA's GAT does,
  over the same files and bytes.
* ``tabled verify manifest --private-key KEY --release NAME --output FILE``: the release step, run
  on the release machine over a fresh install from the wheelhouse: writes the manifest and
  ``FILE.sig``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tabled.commands._arguments import UserError
from tabled.daemon.config import find_config, load_config
from tabled.host import software

NAME = "verify"
HELP = "check the installed software against the signed release manifest, or answer an inspector's challenge"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("software", help="every installed file against the release manifest (or --challenge)")
    check.add_argument("--config", metavar="FILE", help="the daemon's config, for its [software] section "
                       "(default: $TABLED_CONFIG, else /etc/tabled/tabled.toml)")
    check.add_argument("--manifest", metavar="FILE", help="the release manifest (instead of the config's)")
    check.add_argument("--signature", metavar="FILE", help="its signature (default: the manifest's path + .sig)")
    check.add_argument("--release-key", metavar="FILE", help="the release's public key, PEM")
    check.add_argument("--challenge", metavar="TEXT",
                       help="the inspector's challenge: print the HMAC-SHA256 of the installed files keyed with it")
    check.add_argument("--method", choices=software.METHODS, default=None,
                       help="the answer an inspector's tool asks for: hmac-sha256 (default with --challenge), "
                            "sha1 (no seed) or hmac-sha1 (keyed with --challenge), as GAT answers")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    make = sub.add_parser("manifest", help="write the signed release manifest of this install (release machine)")
    make.add_argument("--private-key", metavar="FILE", required=True, help="the release's Ed25519 private key, PEM")
    make.add_argument("--release", metavar="NAME", required=True, help="the release's name, e.g. 1.4.0")
    make.add_argument("--output", metavar="FILE", required=True, help="the manifest to write (and FILE.sig)")


def _where(args: argparse.Namespace) -> tuple[Path, Path, Path]:
    if args.manifest or args.release_key:
        if not (args.manifest and args.release_key):
            raise UserError("--manifest and --release-key go together (the manifest is checked with the key)")
        manifest = Path(args.manifest)
        return manifest, Path(args.signature) if args.signature else manifest.with_name(manifest.name + ".sig"), \
            Path(args.release_key)
    cfg = load_config(find_config(args.config)).software
    if cfg.manifest is None or cfg.signature is None or cfg.release_key is None:
        raise UserError("no release manifest: the config's [software] section names none "
                        "(give --manifest and --release-key)")
    return cfg.manifest, cfg.signature, cfg.release_key


def run(args: argparse.Namespace) -> int:
    try:
        if args.action == "manifest":
            return _make_manifest(args)
        if args.challenge is not None or args.method is not None:
            return _answer(args.method or "hmac-sha256", args.challenge, args.json)
        manifest, signature, key = _where(args)
        verdict = software.verify(manifest, signature, key)
        fingerprint = software.key_fingerprint(key.read_bytes())
    except software.SoftwareError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps({"verified": verdict.verified, "release": verdict.release, "files": verdict.files,
                          "key": fingerprint, "changed": verdict.changed, "missing": verdict.missing,
                          "added": verdict.added}))
    elif verdict.verified:
        print(f"software verified: {verdict.files} files are release {verdict.release} "
              f"(manifest signed by release key {fingerprint})")
    else:
        print(f"SOFTWARE NOT VERIFIED against release {verdict.release} (key {fingerprint}):")
        for problem in verdict.problems():
            print(f"  {problem}")
    return 0 if verdict.verified else 1


#: how each method's answer is named in the output
_LABELS = {"hmac-sha256": "HMAC-SHA256 keyed with the challenge", "sha1": "SHA-1 (no seed)",
           "hmac-sha1": "HMAC-SHA1 keyed with the seed"}


def _answer(method: str, seed: str | None, as_json: bool) -> int:
    files = software.installed_files()
    answer = software.answer(method, files, seed)
    if as_json:
        print(json.dumps({"files": len(files), "method": method, method.replace("-", "_"): answer}))
    else:
        print(f"{len(files)} files, {_LABELS[method]}: {answer}")
    return 0


def _make_manifest(args: argparse.Namespace) -> int:
    try:
        private_key = Path(args.private_key).read_bytes()
    except OSError as exc:
        raise UserError(f"{args.private_key}: {exc.strerror}") from None
    files = software.installed_files()
    document = software.manifest_document(args.release, files)
    signature = software.sign_manifest(document, private_key)
    output = Path(args.output)
    output.write_bytes(document)
    output.with_name(output.name + ".sig").write_bytes(signature)
    print(f"manifest of release {args.release}: {len(files)} files -> {output} (signature {output.name}.sig)")
    return 0

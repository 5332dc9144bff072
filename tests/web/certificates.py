"""A certificate authority of the test's own, and a server certificate it signs for this PC's
addresses, written as PEM files: what an operator configures as [screen]/[floor] certificate and
key. Made with the ``cryptography`` package (the seals' dependency)."""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tabled.web.settings import Tls


@dataclass(frozen=True)
class Authority:
    ca: Path          # the authority's certificate: what a client trusts
    tls: Tls          # the server's certificate and key, signed by it
    spki_sha256: str  # base64 of the server key's SubjectPublicKeyInfo digest (Chromium's pin)

    def client_context(self) -> ssl.SSLContext:
        """A client that trusts this authority alone and checks the server's name."""
        return ssl.create_default_context(cafile=str(self.ca))


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_authority(folder: Path, addresses: tuple[str, ...] = ("127.0.0.1",),
                   names: tuple[str, ...] = ("localhost",)) -> Authority:
    """A CA and a server certificate for ``addresses`` and ``names``, in ``folder``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("tabled test CA")).issuer_name(_name("tabled test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
    sans += [x509.DNSName(n) for n in names]
    cert = (x509.CertificateBuilder().subject_name(_name(names[0] if names else addresses[0]))
            .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    ca_path, cert_path, key_path = folder / "ca.pem", folder / "screen.pem", folder / "screen.key"
    ca_path.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM) + ca.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    spki = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return Authority(ca_path, Tls(cert_path, key_path), base64.b64encode(hashlib.sha256(spki).digest()).decode())

"""A private certificate authority for a dask cluster over TLS: one CA, a cluster certificate, a client certificate.

    paths = write_certs(tmp_path)   # {"ca", "cluster_cert", "cluster_key", "client_cert", "client_key"}: PEM files
"""

from __future__ import annotations

import datetime
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _key_pem(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _signed(cn: str, ca_key, ca_name: x509.Name, usages) -> tuple[bytes, bytes]:
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.ExtendedKeyUsage(usages), False)
            .sign(ca_key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def write_certs(directory: Path) -> dict[str, Path]:
    """Write a CA and two certificates it signs (the cluster's, this client's) into `directory`; return their paths."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_name = _name("mathloop test CA")
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), True).sign(ca_key, hashes.SHA256()))
    both = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]  # workers serve and connect
    files = {"ca": ca.public_bytes(serialization.Encoding.PEM)}
    files["cluster_cert"], files["cluster_key"] = _signed("mathloop cluster", ca_key, ca_name, both)
    files["client_cert"], files["client_key"] = _signed("mathloop session", ca_key, ca_name, both)
    paths = {}
    for name, data in files.items():
        paths[name] = directory / f"{name}.pem"
        paths[name].write_bytes(data)
        paths[name].chmod(0o600)
    return paths

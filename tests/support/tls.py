"""Certificates for TLS tests, made by ``openssl`` in a folder of the test's own: a CA, a
server certificate for 127.0.0.1 and localhost, a client certificate, all signed by that CA
(plus a second CA that signed nothing, to be distrusted by); and the arguments that make a
``redis-server`` listen with them (``redis_tls_args``).

The ACL user the server needs (``SERVER_ACL``) is written down once in ``docs/operations.md``
("TLS and ACL to Redis"); ``acl_from_docs`` reads it from there, so the tests run with exactly
the documented rule.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TlsFiles", "acl_from_docs", "make_certificates", "redis_tls_args"]

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = ROOT / "docs" / "operations.md"


@dataclass(frozen=True)
class TlsFiles:
    """PEM files of one test's certificates."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path
    """A CA that signed nothing here: trusting only it must refuse the server."""


def _openssl(*args: str | Path) -> None:
    binary = shutil.which("openssl")
    if binary is None:
        raise RuntimeError("openssl is not installed (Debian's openssl package)")
    subprocess.run([binary, *map(str, args)], check=True, capture_output=True, timeout=60)


def _key_and_request(folder: Path, name: str, subject: str) -> tuple[Path, Path]:
    key, request = folder / f"{name}.key", folder / f"{name}.csr"
    _openssl(
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", key, "-out", request, "-subj", subject,
    )  # fmt: skip
    return key, request


def _ca(folder: Path, name: str) -> tuple[Path, Path]:
    key, cert = folder / f"{name}.key", folder / f"{name}.crt"
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", key, "-out", cert, "-days", "2", "-subj", f"/CN=gin test {name}",
    )  # fmt: skip
    return key, cert


def _sign(folder: Path, name: str, request: Path, ca: tuple[Path, Path], ext: str) -> Path:
    cert, extensions = folder / f"{name}.crt", folder / f"{name}.ext"
    extensions.write_text(ext + "\n")
    _openssl(
        "x509", "-req", "-in", request, "-CA", ca[1], "-CAkey", ca[0], "-CAcreateserial",
        "-out", cert, "-days", "2", "-extfile", extensions,
    )  # fmt: skip
    return cert


def make_certificates(folder: Path) -> TlsFiles:
    """A CA, a server and a client certificate signed by it, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = _ca(folder, "ca")
    other = _ca(folder, "other-ca")
    server_key, server_request = _key_and_request(folder, "server", "/CN=localhost")
    server_cert = _sign(
        folder,
        "server",
        server_request,
        ca,
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth",
    )
    client_key, client_request = _key_and_request(folder, "client", "/CN=gin server")
    client_cert = _sign(folder, "client", client_request, ca, "extendedKeyUsage=clientAuth")
    return TlsFiles(ca[1], server_cert, server_key, client_cert, client_key, other[1])


def redis_tls_args(files: TlsFiles, tls_port: int, *, clients: str = "no") -> tuple[str, ...]:
    """``redis-server`` arguments: TLS on ``tls_port`` with ``files``; ``clients``: does it
    ask clients for a certificate (``no``, ``optional``, ``yes``)."""
    return (
        "--tls-port", str(tls_port),
        "--tls-cert-file", str(files.server_cert),
        "--tls-key-file", str(files.server_key),
        "--tls-ca-cert-file", str(files.ca),
        "--tls-auth-clients", clients,
    )  # fmt: skip


def acl_from_docs(user: str, password: str, documented: str = "gin") -> list[str]:
    """The arguments of ``ACL SETUSER`` for the user ``documented`` (the server's ``gin``,
    the tools' ``gin-backup``) as ``docs/operations.md`` writes them, for ``user`` and
    ``password``."""
    text = OPERATIONS.read_text(encoding="utf-8")
    match = re.search(rf"```\n(ACL SETUSER {re.escape(documented)} .*?)```", text, re.S)
    if match is None:
        raise AssertionError(f"docs/operations.md has no ```ACL SETUSER {documented} ``` block")
    words = match.group(1).replace("\\\n", " ").split()
    rules = words[3:]  # after ACL SETUSER gin
    return [user, *(f">{password}" if rule == ">PASSWORD" else rule for rule in rules)]

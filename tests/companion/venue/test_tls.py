"""``[venue] ca_file``: TLS to a broker whose certificate that CA signed (openssl makes both)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from companion.venue.broker import LocalBroker

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")


def make_ca(folder, name):
    folder.mkdir(parents=True, exist_ok=True)
    key, ca = folder / "ca.key", folder / "ca.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(ca),
            "-days",
            "2",
            "-subj",
            f"/CN={name}",
        ],
        check=True,
        capture_output=True,
    )
    return ca, key


def server_cert(folder, ca, ca_key):
    key, csr, cert, ext = (folder / n for n in ("server.key", "server.csr", "server.pem", "ext.cnf"))
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    subprocess.run(
        [
            "openssl",
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(csr),
            "-subj",
            "/CN=127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            "openssl",
            "x509",
            "-req",
            "-in",
            str(csr),
            "-CA",
            str(ca),
            "-CAkey",
            str(ca_key),
            "-CAcreateserial",
            "-out",
            str(cert),
            "-days",
            "2",
            "-extfile",
            str(ext),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture
def tls_broker(tmp_path):
    ca, ca_key = make_ca(tmp_path / "pki", "Dingo test CA")
    cert, key = server_cert(tmp_path / "pki", ca, ca_key)
    with LocalBroker(tmp_path / "tls-broker", tls=(ca, cert, key)) as b:
        yield b, ca


def test_tls_with_the_brokers_ca_connects_and_publishes(tls_broker, make_table, wait):
    broker, ca = tls_broker
    table = make_table(broker.port, ca_file=str(ca))
    table.start()
    table.step()
    wait(table.publisher.connected.is_set, what="a TLS connection")
    wait(lambda: table.publisher.acked == table.publisher.journal.last_seq == 1, what="the first event acked")


def test_tls_with_another_ca_is_a_status_not_a_crash(tls_broker, make_table, wait, tmp_path):
    broker, _ = tls_broker
    other, _ = make_ca(tmp_path / "other", "Someone else")
    table = make_table(broker.port, ca_file=str(other))
    table.start()
    wait(lambda: "TLS: check [venue] ca_file" in (table.publisher.problem or ""), what="the TLS status")
    table.step()
    assert not table.publisher.connected.is_set()

"""The same bounds over HTTPS: the deadline reaches the TLS stream, and an untrusted certificate gets no request."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from mathloop.propose.base import StopSession
from tests.adversarial.test_hostile_model_server import MARGIN, _drip_body
from tests.support.hostile_server import HostileServer, reply
from tests.unit.test_openai_proposer import GOOD, context, proposer


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[str, str]:
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out",
                        str(cert)], check=True, capture_output=True, timeout=60)
    except (FileNotFoundError, subprocess.CalledProcessError) as e:
        pytest.skip(f"openssl cannot make a test certificate: {e}")
    return str(cert), str(key)


def test_a_trusted_https_server_is_used_and_its_drip_is_cut_at_the_deadline(certificate, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", certificate[0])
    with HostileServer([reply(json.dumps(GOOD)), _drip_body], tls=certificate) as srv:
        prop = proposer(srv, request_timeout=0.8, max_retries=0, max_consecutive_failures=1)
        [p] = prop.propose(context())
        assert p.payload == GOOD
        t0 = time.monotonic()
        with pytest.raises(StopSession, match="timeout after"):
            prop.propose(context())
        assert time.monotonic() - t0 < 0.8 + MARGIN


def test_an_untrusted_certificate_is_refused_before_the_key_is_sent(certificate, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with HostileServer([], default=reply(json.dumps(GOOD)), tls=certificate) as srv:
        with pytest.raises(StopSession, match="connection error.*(CERTIFICATE_VERIFY_FAILED|certificate verify failed)"):
            proposer(srv, max_retries=0, max_consecutive_failures=1).propose(context())
        assert srv.seen == []  # no request, so no Authorization header, reached the server

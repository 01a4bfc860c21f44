"""The certificate store is read once per process and HTTP library, and still follows SSL_CERT_FILE."""

from __future__ import annotations

import ssl
from pathlib import Path

import certifi
import httpx
import httpx2
import pytest

from atlas.foundation.tls import shared_context
from atlas.github.client import GitHubClient
from atlas.llm.server_time import transport_for


def _one_certificate(tmp_path: Path) -> Path:
    bundle = Path(certifi.where()).read_text(encoding="ascii")
    end = "-----END CERTIFICATE-----"
    first = bundle[bundle.index("-----BEGIN CERTIFICATE-----") : bundle.index(end) + len(end)]
    path = tmp_path / "one.pem"
    path.write_text(first + "\n", encoding="ascii")
    return path


def test_each_library_reads_its_store_once_and_a_new_cert_file_gets_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    first = shared_context(httpx.create_ssl_context)
    assert shared_context(httpx.create_ssl_context) is first
    assert shared_context(httpx2.create_ssl_context) is not first  # each library's own way of making one
    assert first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
    assert len(first.get_ca_certs()) > 1

    monkeypatch.setenv("SSL_CERT_FILE", str(_one_certificate(tmp_path)))
    narrow = shared_context(httpx.create_ssl_context)
    assert narrow is not first and len(narrow.get_ca_certs()) == 1
    monkeypatch.delenv("SSL_CERT_FILE")
    assert shared_context(httpx.create_ssl_context) is first


def test_clients_made_one_after_another_share_the_store() -> None:
    contexts = []
    for _ in range(3):
        client = GitHubClient(base_url="https://api.github.test", token=None)
        contexts.append(client._http._transport._pool._ssl_context)
        client.close()
        contexts.append(transport_for("https://api.openai.test/v1", 10.0).inner._pool._ssl_context)
    assert contexts[0] is contexts[2] is contexts[4] and contexts[1] is contexts[3] is contexts[5]

"""The Python client against a real server with TLS (certificates made here with openssl) and an
auth file (tokens issued by ``semafor auth token``)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess

import pytest

import semafor
import servers
from semafor.errors import ErrorCode, PermissionDenied, Unauthenticated

OPENSSL = "/usr/bin/openssl"


def run(*args, cwd):
    subprocess.run(list(args), cwd=cwd, check=True, capture_output=True, timeout=120)


def make_certificates(d):
    """A CA and a server certificate for 127.0.0.1 and localhost, as docs/security-tls.md does."""
    run(OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-days", "2", "-subj", "/CN=Test CA", "-keyout", "ca.key", "-out", "ca.pem",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    run(OPENSSL, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-subj", "/CN=server", "-keyout", "server.key", "-out", "server.csr", cwd=d)
    with open(os.path.join(d, "ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
                "keyUsage=critical,digitalSignature,keyAgreement\n")
    run(OPENSSL, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-out", "server.pem", "-extfile", "ext", cwd=d)


def issue_token(principal, d):
    """(token, auth-file entry) from ``semafor auth token PRINCIPAL``."""
    command = ["java", *servers.JVM_OPTIONS, "-jar", servers.JAR, "auth", "token", principal]
    out = subprocess.run(command, cwd=d, check=True, capture_output=True, timeout=60,
                         text=True).stdout.splitlines()
    return out[0].strip(), json.loads(out[1])


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    why = servers.missing() or (None if os.path.exists(OPENSSL) else f"{OPENSSL} is missing")
    if why:
        pytest.skip(why)
    d = str(tmp_path_factory.mktemp("tls"))
    make_certificates(d)
    alice, alice_entry = issue_token("alice", d)
    ops, ops_entry = issue_token("ops", d)
    with open(os.path.join(d, "auth.json"), "w") as f:
        json.dump({"tokens": [alice_entry, ops_entry], "rules": [
            {"principal": "ops", "prefix": "", "permissions": ["read", "admin", "acquire", "release"]},
            {"principal": "alice", "prefix": "jobs/", "permissions": ["read", "acquire", "release"]},
        ]}, f)
    s = servers.Server("--port", "0", "--admin-port", "-1",
                       "--tls-cert", os.path.join(d, "server.pem"),
                       "--tls-key", os.path.join(d, "server.key"),
                       "--auth-file", os.path.join(d, "auth.json"))
    try:
        yield s, os.path.join(d, "ca.pem"), {"alice": alice, "ops": ops}
    finally:
        s.stop()
        shutil.rmtree(d, ignore_errors=True)


def test_a_client_with_the_ca_and_a_token_works_over_tls(secured):
    server, ca, tokens = secured
    name = f"jobs/tls-{random.randrange(1 << 40)}"
    with semafor.connect(server.address, tls=ca, token=tokens["ops"]) as ops:
        ops.create(name, 1, capacity=1)
    with semafor.connect(server.address, tls=ca, token=tokens["alice"], client_name="alice") as c:
        sem = c.semaphore(name)
        with sem.acquire(1, timeout=5) as permit:
            assert permit.token > 0 and sem.get().value == 0
        assert sem.get().value == 1


def test_a_wrong_token_is_refused_unauthenticated_with_a_clear_message(secured):
    server, ca, tokens = secured
    wrong = tokens["alice"][:-4] + ("AAAA" if not tokens["alice"].endswith("AAAA") else "BBBB")
    with pytest.raises(Unauthenticated) as e:
        semafor.connect(server.address, tls=ca, token=wrong, connect_timeout=10)
    assert e.value.code == ErrorCode.UNAUTHENTICATED
    assert "token" in e.value.message, e.value.message
    print("\nwrong token:", e.value)
    with pytest.raises(Unauthenticated):
        semafor.connect(server.address, tls=ca, connect_timeout=10)  # no token at all


def test_an_operation_outside_the_principal_s_rules_is_denied_naming_the_permission(secured):
    server, ca, tokens = secured
    with semafor.connect(server.address, tls=ca, token=tokens["alice"]) as c:
        with pytest.raises(PermissionDenied) as e:
            c.create(f"jobs/denied-{random.randrange(1 << 40)}", 1)  # alice has no admin
        assert e.value.code == ErrorCode.PERMISSION_DENIED
        assert "admin" in e.value.message, e.value.message
        print("\ndenied:", e.value)
        with pytest.raises(PermissionDenied) as r:
            c.semaphore("other/x").get()  # nor read outside jobs/
        assert "read" in r.value.message, r.value.message

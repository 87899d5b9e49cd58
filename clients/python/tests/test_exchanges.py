"""The client session machine plays the client's side of every exchange trace of
conformance/traces/exchange (docs/protocol.md §9, "Exchange traces"): recorded between the Java
client's machine and the server's, each gives the client's inputs at their times and what the
client did in answer. The Java server's machine plays the other side (``ExchangeTraceTest``)."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List

import pytest
import traces

from semafor._proto import semafor_pb2 as pb
from semafor._session import ClientSession, SessionConfig

EXCHANGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                         "conformance", "traces", "exchange")
FORMAT = "semafor-exchange-trace/1"


def _files() -> List[str]:
    return sorted(f for f in os.listdir(EXCHANGES) if f.endswith(".json"))


def play_client_side(trace: Dict[str, Any]) -> None:
    """Gives a fresh machine the client's inputs; raises AssertionError at the first difference."""
    if trace.get("format") != FORMAT:
        raise ValueError(f"format: expected {FORMAT}, was {trace.get('format')!r}")
    client = trace["client"]
    m = ClientSession(SessionConfig(addresses=list(client["addresses"]),
                                    give_up_after_ns=client["give_up_after_ns"]))
    for i, event in enumerate(trace["events"]):
        if event["side"] != "client":
            continue
        now = event["at_ns"]
        kind = event["input"]
        if kind == "submit":
            m.submit(traces.parse(pb.Request, event["request"]), now)
        elif kind == "received":
            m.received(traces.parse(pb.ServerFrame, event["frame"]), now, event["conn"])
        elif kind == "connected":
            m.connected(now, event["conn"])
        elif kind == "disconnected":
            m.disconnected(now, event["conn"])
        elif kind == "tick":
            m.tick(now)
        else:
            raise ValueError(f"event {i}: unknown client input {kind!r}")
        got = [traces.effect_json(e) for e in m.take()]
        want = event["output"]
        where = f"{trace['name']} event {i} ({kind} at {now} ns)"
        assert [traces._normal(e) for e in got] == [traces._normal(e) for e in want], (
            f"{where}: effects\n  got  {got}\n  want {want}")


def test_there_are_exchanges_to_play():
    assert len(_files()) >= 5


@pytest.mark.parametrize("file", _files())
def test_the_machine_plays_the_clients_side(file):
    with open(os.path.join(EXCHANGES, file)) as f:
        trace = json.load(f)
    assert trace["name"] + ".json" == file
    play_client_side(trace)


def test_an_exchange_whose_client_did_otherwise_fails_naming_the_event():
    with open(os.path.join(EXCHANGES, _files()[0])) as f:
        trace = json.load(f)
    first = next(i for i, e in enumerate(trace["events"]) if e["side"] == "client")
    trace["events"][first]["output"] = [{"dial": {"conn": 1, "address": "elsewhere:1"}}]
    with pytest.raises(AssertionError, match=f"event {first} "):
        play_client_side(trace)

"""The client session machine plays every protocol trace of conformance/traces/client exactly
(docs/protocol.md §9): the same inputs at the same times give the same effects and deadlines."""

from __future__ import annotations

import json
import os

import pytest
import traces

TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "conformance",
                      "traces", "client")


def _files():
    return sorted(f for f in os.listdir(TRACES) if f.endswith(".json"))


def test_there_are_traces_to_play():
    assert len(_files()) >= 40


@pytest.mark.parametrize("file", _files())
def test_the_machine_plays_the_trace(file):
    with open(os.path.join(TRACES, file)) as f:
        trace = json.load(f)
    assert trace["name"] + ".json" == file
    traces.play(trace)


def test_a_trace_whose_effects_differ_fails_naming_the_step():
    with open(os.path.join(TRACES, _files()[0])) as f:
        trace = json.load(f)
    trace["steps"][0]["effects"] = [{"dial": {"conn": 1, "address": "elsewhere:1"}}]
    with pytest.raises(AssertionError, match="step 0"):
        traces.play(trace)

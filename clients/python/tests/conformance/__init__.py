"""The Python runner of the conformance kit (conformance/README.md): ``cases`` reads a case file
strictly, ``executor`` runs it with one ``semafor.aio`` client per actor (``actor``), each behind
its own TCP proxy (``proxy``) on a single node, and ``expectations`` holds the outcomes to the
case. ``tests/test_conformance.py`` runs every case with pytest."""

SUPPORTED_TAGS = frozenset({"session", "lease", "wait_many", "semop", "cut", "deafen", "freeze",
                            "kill"})
"""Every requirement tag the Python runner supports: all of them."""

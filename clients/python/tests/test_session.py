"""The session machine against docs/protocol.md §2-3 and §4b, one rule per test, with a fake clock."""

from __future__ import annotations

from machine import MS, SECOND, SECRET, Harness, acquire, failure, fx, granted, increment, pb

from semafor.errors import ErrorCode, SessionExpired, Unavailable


def test_the_first_frame_is_a_hello_opening_a_session_with_ttl_and_identity():
    h = Harness(client_name="billing-7", client_host="app-3", client_pid=4242, token="tok")
    h.m.start(h.now)
    assert h.dials() == ["a:1"]
    h.m.connected(h.now, h.last_conn())
    (frame,) = h.sent()
    hello = frame.hello
    assert (hello.protocol_version, hello.session_id, hello.session_ttl_ns) == (1, 0, 3 * SECOND)
    assert (hello.client_name, hello.client_host, hello.client_pid, hello.token) == (
        "billing-7", "app-3", 4242, "tok")
    assert hello.session_secret == b""


def test_requests_submitted_before_the_welcome_go_out_after_it_in_id_order():
    h = Harness()
    first = h.submit(increment())
    second = h.submit(acquire())
    assert h.dials() == ["a:1"]
    h.open()
    assert [r.id for r in h.requests()] == [first, second]


def test_request_ids_strictly_increase_in_submission_order():
    h = Harness()
    h.open()
    ids = [h.submit(increment()) for _ in range(5)]
    assert ids == sorted(set(ids)) and [r.id for r in h.requests()] == ids


def test_a_resume_shows_the_session_id_and_its_secret():
    h = Harness()
    h.open(session_id=42)
    h.drop()
    h.m.connected(h.now, h.last_conn())
    hello = [f.hello for f in h.sent() if f.HasField("hello")][-1]
    assert (hello.session_id, hello.session_secret) == (42, SECRET)


def test_unanswered_requests_are_resent_in_id_order_before_new_ones_after_resume():
    h = Harness()
    h.open()
    a, b, c = h.submit(acquire()), h.submit(increment()), h.submit(acquire())
    h.respond(b, incremented=pb.Incremented(value=1))
    h.drop()
    d = h.submit(increment())  # new while away
    h.sent()
    h.open(resumed=True)
    assert [r.id for r in h.requests()] == [a, c, d]


def test_a_response_is_acknowledged_on_the_next_request():
    h = Harness()
    h.open()
    a = h.submit(increment())
    h.respond(a, incremented=pb.Incremented(value=1))
    h.sent()
    h.submit(increment())
    (req,) = h.requests()
    assert list(req.acks) == [a]


def test_a_response_is_acknowledged_in_a_keepalive_within_a_millisecond_when_no_request_follows():
    h = Harness()
    h.open()
    a = h.submit(increment())
    h.respond(a, incremented=pb.Incremented(value=1))
    h.sent()
    assert h.m.next_deadline() == h.now + 1 * MS
    h.advance(1 * MS)
    (frame,) = h.sent()
    assert list(frame.keep_alive.acks) == [a] and frame.keep_alive.id > 0


def test_one_keepalive_acknowledges_a_burst_of_responses():
    h = Harness()
    h.open()
    ids = [h.submit(increment()) for _ in range(3)]
    for rid in ids:
        h.respond(rid, incremented=pb.Incremented(value=1))
    h.sent()
    h.advance(2 * MS)
    keepalives = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    assert len(keepalives) == 1 and list(keepalives[0].acks) == ids


def test_keepalive_ids_increase():
    h = Harness()
    h.open()
    h.advance(1 * SECOND)
    ka1 = [f.keep_alive.id for f in h.sent() if f.HasField("keep_alive")]
    h.receive(pong=pb.Pong(id=ka1[-1]))
    h.advance(1 * SECOND)
    ka2 = [f.keep_alive.id for f in h.sent() if f.HasField("keep_alive")]
    assert ka1 and ka2 and ka2[0] > ka1[-1]


def test_acks_whose_pong_was_not_seen_are_sent_again_after_resume():
    h = Harness()
    h.open()
    a = h.submit(increment())
    h.respond(a, incremented=pb.Incremented(value=1))
    h.advance(1 * MS)  # the keep-alive carrying the ack goes; its pong never comes
    h.drop()
    h.sent()
    h.open(resumed=True)
    h.advance(1 * MS)
    acks = [x for f in h.sent() if f.HasField("keep_alive") for x in f.keep_alive.acks]
    assert acks == [a]


def test_acks_whose_pong_was_seen_are_not_sent_again_after_resume():
    h = Harness()
    h.open()
    a = h.submit(increment())
    h.respond(a, incremented=pb.Incremented(value=1))
    h.advance(1 * MS)
    (ka,) = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    h.receive(pong=pb.Pong(id=ka.id))
    h.drop()
    h.open(resumed=True)
    h.advance(1 * MS)
    assert [x for f in h.sent() if f.HasField("keep_alive") for x in f.keep_alive.acks] == []


def test_a_keepalive_goes_out_after_a_third_of_the_ttl_without_sending():
    h = Harness(ttl_ns=3 * SECOND)
    h.open()
    h.sent()
    h.advance(999 * MS)
    assert not [f for f in h.sent() if f.HasField("keep_alive")]
    h.advance(1 * MS)
    assert len([f for f in h.sent() if f.HasField("keep_alive")]) == 1


def test_the_ttl_the_welcome_grants_paces_the_keepalives():
    h = Harness(ttl_ns=0)
    h.open(ttl_ns=6 * SECOND)
    h.sent()
    h.advance(1999 * MS)
    assert not h.sent()
    h.advance(1 * MS)
    assert [f for f in h.sent() if f.HasField("keep_alive")]


def test_a_silent_server_is_left_for_the_next_address_within_a_second_while_a_request_waits():
    h = Harness()
    h.open()
    h.dials()
    h.submit(acquire())
    h.advance(250 * MS)  # silence: a probe with an id goes out
    (probe,) = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    assert probe.id > 0 and not probe.acks
    h.advance(750 * MS)  # no pong
    assert [type(e) for e in h.of(fx.Hangup)] == [fx.Hangup]
    assert h.dials() == ["b:1".replace("1", "2")]


def test_a_not_leader_naming_the_server_just_left_for_silence_is_not_followed_back_to_it():
    h = Harness()
    h.open()
    h.dials()
    h.submit(acquire())
    h.advance(1000 * MS)  # a:1 froze: left for b:2
    assert h.dials() == ["b:2"]
    h.m.connected(h.now, h.last_conn())
    h.receive(welcome=pb.Welcome(failure=failure(ErrorCode.NOT_LEADER, "not the leader", "a:1")))
    assert h.dials() == ["c:3"]  # b:2 has not heard of the election yet: a:1 is silent, skip it


def test_a_server_left_for_silence_is_dialled_again_once_every_other_address_failed():
    h = Harness(addresses=("a:1", "b:2"))
    h.open()
    h.dials()
    h.submit(acquire())
    h.advance(1000 * MS)
    assert h.dials() == ["b:2"]
    h.drop()  # b:2 refuses
    h.advance(h.m.next_deadline() - h.now)
    assert h.dials() == ["a:1"]


def test_a_server_that_answers_probes_is_kept_while_a_request_waits_for_long():
    h = Harness()
    h.open()
    h.dials()
    h.submit(acquire())
    for _ in range(20):
        h.advance(250 * MS)
        for f in h.sent():
            if f.HasField("keep_alive"):
                h.receive(pong=pb.Pong(id=f.keep_alive.id))
    assert not h.of(fx.Hangup) and not h.dials()


def test_an_unanswered_hello_moves_on_to_the_next_address():
    h = Harness()
    h.m.start(h.now)
    h.m.connected(h.now, h.last_conn())
    h.advance(750 * MS)
    assert h.dials() == ["a:1", "b:2"]


def test_with_one_address_an_unanswered_hello_is_waited_for():
    h = Harness(addresses=("a:1",))
    h.m.start(h.now)
    h.m.connected(h.now, h.last_conn())
    h.advance(5 * SECOND)  # a slow server under load: leaving would redial it and orphan a session
    assert h.dials() == ["a:1"] and h.m.phase == "hello" and not h.of(fx.Hangup)


def test_every_address_failing_in_turn_backs_off_before_the_next_round():
    h = Harness(addresses=("a:1", "b:2"))
    h.m.start(h.now)
    h.drop()  # a:1 refused
    h.drop()  # b:2 refused
    assert h.dials() == ["a:1", "b:2"]
    assert h.m.phase == "backoff"
    h.advance(50 * MS)
    assert h.dials() == ["a:1"]


def test_a_session_connection_lost_within_a_second_of_its_welcome_counts_as_a_failed_dial():
    h = Harness(addresses=("a:1", "b:2"))
    h.open(session_id=7)
    h.drop()  # a:1 closes at once (say, on a request it cannot take): b:2 at once
    h.open(session_id=7, resumed=True)
    h.drop()  # b:2 too: every address failed in turn, so the next round waits
    assert h.dials() == ["a:1", "b:2"] and h.m.phase == "backoff"
    h.advance(50 * MS)
    assert h.dials() == ["a:1"]


def test_a_session_connection_that_worked_for_a_second_is_redialled_at_once_when_lost():
    h = Harness(addresses=("a:1",))
    h.open(session_id=7)
    h.dials()
    h.advance(1 * SECOND)
    h.drop()
    assert h.dials() == ["a:1"]


def test_a_not_leader_welcome_dials_the_leader_it_names():
    h = Harness()
    h.m.start(h.now)
    h.m.connected(h.now, h.last_conn())
    h.receive(welcome=pb.Welcome(failure=failure(ErrorCode.NOT_LEADER, "not the leader", "c:3")))
    assert h.dials() == ["a:1", "c:3"]


def test_a_not_leader_fatal_follows_the_leader_and_resends_pending_requests_there():
    h = Harness()
    h.open(session_id=9)
    a = h.submit(acquire())
    h.receive(fatal=pb.Fatal(failure=failure(ErrorCode.NOT_LEADER, "lost leadership", "b:2")))
    assert h.dials()[-1] == "b:2"
    h.sent()
    h.open(session_id=9, resumed=True)
    assert [r.id for r in h.requests()] == [a]


def test_a_not_leader_response_sends_the_request_to_the_leader_under_its_id():
    h = Harness()
    h.open(session_id=9)
    a = h.submit(increment())
    h.respond(a, failure=failure(ErrorCode.NOT_LEADER, "not the leader", "c:3"))
    assert h.dials()[-1] == "c:3" and not h.of(fx.Completed)
    h.sent()
    h.open(session_id=9, resumed=True)
    (req,) = h.requests()
    assert req.id == a and a not in req.acks


def test_a_fatal_session_expired_fails_pending_requests_at_once_and_reports_the_loss():
    h = Harness()
    h.open()
    a = h.submit(acquire())
    h.receive(fatal=pb.Fatal(failure=failure(ErrorCode.SESSION_EXPIRED, "session 7 expired")))
    (failed,) = h.of(fx.Failed)
    assert failed.request_id == a and isinstance(failed.error, SessionExpired)
    assert failed.error.outcome_known is False
    assert len(h.of(fx.SessionLost)) == 1 and h.m.phase == "idle"


def test_after_the_session_is_lost_the_next_use_opens_a_new_one():
    h = Harness()
    h.open(session_id=7)
    h.receive(fatal=pb.Fatal(failure=failure(ErrorCode.SESSION_EXPIRED, "expired")))
    h.dials()
    h.sent()
    b = h.submit(increment())
    assert len(h.dials()) == 1
    h.m.connected(h.now, h.last_conn())
    (hello,) = [f.hello for f in h.sent() if f.HasField("hello")]
    assert hello.session_id == 0 and hello.session_secret == b""
    h.receive(welcome=pb.Welcome(session_id=8, session_ttl_ns=3 * SECOND, session_secret=SECRET))
    assert [r.id for r in h.requests()] == [b] and h.m.session_id == 8


def test_a_request_bound_to_a_lost_session_fails_session_expired_and_is_sent_on_no_other():
    h = Harness()
    h.open(session_id=7)
    epoch = h.m.epoch
    h.receive(fatal=pb.Fatal(failure=failure(ErrorCode.SESSION_EXPIRED, "expired")))
    h.dials()
    release = pb.Request(release=pb.Release(name=b"jobs", amount=1))  # of a permit of session 7
    r = h.m.submit(release, h.now, session_epoch=epoch)
    (failed,) = h.of(fx.Failed)
    assert failed.request_id == r and isinstance(failed.error, SessionExpired)
    assert failed.error.outcome_known is True  # not sent: what it would release went back
    assert not h.dials() and h.m.phase == "idle"  # no new session for it
    h.open(session_id=8)
    assert not h.requests()


def test_a_request_bound_to_the_current_session_is_sent():
    h = Harness()
    h.open(session_id=7)
    r = h.m.submit(pb.Request(release=pb.Release(name=b"jobs", amount=1)), h.now,
                   session_epoch=h.m.epoch)
    h.collect()
    assert [x.id for x in h.requests()] == [r]


def test_a_refused_resume_fails_pending_requests_and_opens_a_new_session_when_needed():
    h = Harness()
    h.open(session_id=7)
    a = h.submit(acquire())
    h.m.read(pb.Read(get=pb.Get(name=b"jobs")), h.now)  # a read keeps the connection wanted
    h.drop()
    h.m.connected(h.now, h.last_conn())
    h.receive(welcome=pb.Welcome(failure=failure(ErrorCode.SESSION_EXPIRED, "no such session")))
    assert [f.request_id for f in h.of(fx.Failed)] == [a] and h.of(fx.SessionLost)
    hellos = [f.hello for f in h.sent() if f.HasField("hello")]
    assert hellos[-1].session_id == 0


def test_resource_exhausted_for_unacked_replies_resends_the_same_id_after_the_acks_pong():
    h = Harness()
    h.open()
    a = h.submit(increment())
    h.respond(a, incremented=pb.Incremented(value=1))
    b = h.submit(increment())
    h.sent()
    h.of(fx.Completed)
    h.respond(b, failure=failure(ErrorCode.RESOURCE_EXHAUSTED, "maxUnackedReplies (16) reached: x"))
    (ka,) = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    c = h.submit(increment())
    assert not h.requests() and not h.of(fx.Completed)  # held back until the pong
    h.receive(pong=pb.Pong(id=ka.id))
    assert [r.id for r in h.requests()] == [b, c]


def _refused(h, rid):
    h.respond(rid, failure=failure(ErrorCode.RESOURCE_EXHAUSTED, "maxUnackedReplies (16) reached: x"))


def test_requests_in_flight_behind_a_refused_one_and_refused_too_are_resent_in_id_order_after_it():
    h = Harness()
    h.open()
    b, c = h.submit(increment()), h.submit(increment())
    h.sent()
    _refused(h, b)
    _refused(h, c)
    (ka,) = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    d = h.submit(increment())
    assert not h.requests()
    h.receive(pong=pb.Pong(id=ka.id))
    assert [r.id for r in h.requests()] == [b, c, d]


def test_a_refused_request_passed_by_a_later_applied_one_goes_again_under_a_new_id_after_it():
    h = Harness()
    h.open()
    a = h.submit(increment())
    h.respond(a, incremented=pb.Incremented(value=1))
    h.of(fx.Completed)
    b, c = h.submit(increment()), h.submit(increment())  # c carries a's ack: the server applies it
    h.sent()
    _refused(h, b)
    h.respond(c, incremented=pb.Incremented(value=2))
    (ka,) = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    d = h.submit(increment(amount=4))
    assert not h.requests()
    h.receive(pong=pb.Pong(id=ka.id))
    again = h.requests()  # b's own id would now be INVALID_ARGUMENT: b, then d, under new ids
    assert [r.increment.amount for r in again] == [1, 4]
    assert c < again[0].id < again[1].id
    wire_b = again[0].id
    h.respond(wire_b, incremented=pb.Incremented(value=3))
    h.respond(again[1].id, incremented=pb.Incremented(value=7))
    done = {e.request_id: e.response.incremented.value for e in h.of(fx.Completed)}
    assert done == {c: 2, b: 3, d: 7}  # told under the callers' ids
    h.advance(2 * MS)
    acked = [x for f in h.sent() if f.HasField("keep_alive") for x in f.keep_alive.acks]
    acked += [x for r in h.requests() for x in r.acks]
    assert wire_b in acked  # the answer is acknowledged under the id it was sent with


def test_a_resent_request_whose_refusal_was_lost_and_a_later_one_applied_goes_again_under_a_new_id():
    h = Harness()
    h.open(session_id=7)
    a, b = h.submit(increment()), h.submit(increment(amount=2))  # a refused, b applied: both lost
    h.drop()
    h.sent()
    h.open(session_id=7, resumed=True)
    assert [r.id for r in h.requests()] == [a, b]
    h.respond(a, failure=failure(ErrorCode.INVALID_ARGUMENT,
                                 f"requestId: {a} is not after {b} and has no reply kept"))
    (again,) = h.requests()  # never applied (no reply kept for an id never acknowledged)
    assert again.id > b and again.increment.amount == 1 and not h.of(fx.Completed)
    h.respond(b, incremented=pb.Incremented(value=2))
    h.respond(again.id, incremented=pb.Incremented(value=3))
    done = {e.request_id: e.response.incremented.value for e in h.of(fx.Completed)}
    assert done == {a: 3, b: 2}  # told under the callers' ids


def test_after_a_resume_requests_behind_a_refusal_go_again_under_their_own_ids():
    h = Harness()
    h.open(session_id=7)
    a = h.submit(increment())
    h.respond(a, incremented=pb.Incremented(value=1))
    b, c = h.submit(increment()), h.submit(increment())  # c carries a's ack and is applied
    h.sent()
    _refused(h, b)  # the hold begins; c's answer is lost with the connection
    h.drop()
    h.sent()
    h.open(session_id=7, resumed=True)
    # c may have been applied: under a new id it would be applied twice. Both go under their ids
    assert [r.id for r in h.requests()] == [b, c]


def test_a_waiting_request_behind_a_refused_one_counts_as_applied():
    h = Harness()
    h.open()
    b, c = h.submit(increment()), h.submit(acquire())  # c waits: no answer, but it was applied
    h.sent()
    _refused(h, b)
    (ka,) = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    h.receive(pong=pb.Pong(id=ka.id))
    (again,) = h.requests()
    assert again.id > c and again.HasField("increment")
    assert h.m.cancel(c, h.now)
    (cancel,) = h.requests()
    assert cancel.cancel.request_id == c


def test_reads_have_their_own_ids_and_are_sent_again_after_a_reconnect():
    h = Harness()
    h.open()
    h.submit(increment())
    r1 = h.m.read(pb.Read(get=pb.Get(name=b"x")), h.now)
    assert r1 == 1
    h.drop()
    h.sent()
    h.open(resumed=True)
    reads = [f.read for f in h.sent() if f.HasField("read")]
    assert [r.id for r in reads] == [r1]
    h.receive(read_response=pb.ReadResponse(id=r1, status=pb.SemaphoreStatus(value=3)))
    (done,) = h.of(fx.ReadCompleted)
    assert done.response.status.value == 3


def test_cancel_of_a_sent_request_sends_cancel_and_its_answer_still_comes():
    h = Harness()
    h.open()
    a = h.submit(acquire())
    h.sent()
    assert h.m.cancel(a, h.now) is True
    (req,) = h.requests()
    assert req.cancel.request_id == a
    h.respond(req.id, cancelled=pb.Cancelled(cancelled=True))
    h.respond(a, granted=pb.Granted(amount=0))
    assert [c.request_id for c in h.of(fx.Completed)] == [a]  # the cancel's own answer is internal


def test_cancel_of_a_request_never_sent_drops_it():
    h = Harness()
    a = h.submit(acquire())
    assert h.m.cancel(a, h.now) is False
    h.open()
    assert h.requests() == []


def test_a_confirmed_delivery_completes_only_once_the_pong_of_its_ack_is_seen():
    h = Harness()
    h.open()
    a = h.submit(pb.Request(acquire_lease=pb.AcquireLease(name=b"x", amount=1, lease_ttl_ns=SECOND)),
                 confirm=True)
    h.sent()
    h.respond(a, lease_granted=pb.LeaseGranted(permit_id=3, amount=1))
    (ka,) = [f.keep_alive for f in h.sent() if f.HasField("keep_alive")]
    assert list(ka.acks) == [a] and not h.of(fx.Completed)
    h.receive(pong=pb.Pong(id=ka.id))
    (done,) = h.of(fx.Completed)
    assert done.response.lease_granted.permit_id == 3


def test_confirming_acknowledgements_sends_them_at_once_in_a_sync_keepalive_whose_pong_confirms():
    h = Harness()
    h.open()
    a = h.submit(acquire())
    h.respond(a, granted=pb.Granted(amount=1, token=5))
    h.sent()
    token = h.m.confirm_acknowledgements(h.now)
    (frame,) = h.sent()
    assert frame.keep_alive.sync and list(frame.keep_alive.acks) == [a]
    assert not h.of(fx.AcknowledgementsConfirmed)
    h.receive(pong=pb.Pong(id=frame.keep_alive.id))
    assert [c.token for c in h.of(fx.AcknowledgementsConfirmed)] == [token]


def test_a_confirmation_asked_before_a_cut_is_asked_again_after_the_resume():
    h = Harness()
    h.open(session_id=7)
    a = h.submit(acquire())
    h.respond(a, granted=pb.Granted(amount=1, token=5))
    token = h.m.confirm_acknowledgements(h.now)
    h.drop()
    h.sent()
    h.open(session_id=7, resumed=True)
    (frame,) = [f for f in h.sent() if f.HasField("keep_alive")]
    assert frame.keep_alive.sync and list(frame.keep_alive.acks) == [a]
    h.receive(pong=pb.Pong(id=frame.keep_alive.id))
    assert [c.token for c in h.of(fx.AcknowledgementsConfirmed)] == [token]


def test_a_confirmation_the_session_ended_before_is_never_confirmed():
    h = Harness()
    h.open(session_id=7)
    h.m.confirm_acknowledgements(h.now)
    (frame,) = [f for f in h.sent() if f.HasField("keep_alive")]
    h.receive(fatal=pb.Fatal(failure=failure(ErrorCode.SESSION_EXPIRED, "expired")))
    assert h.of(fx.SessionLost)
    h.open(session_id=8)
    h.receive(pong=pb.Pong(id=frame.keep_alive.id))
    assert not h.of(fx.AcknowledgementsConfirmed)


def test_a_nudge_sends_a_keepalive_without_acknowledgements():
    h = Harness()
    h.open()
    a = h.submit(acquire())
    h.respond(a, granted=pb.Granted(amount=1, token=5))
    h.sent()
    h.m.nudge(h.now)
    (frame,) = h.sent()
    assert frame.keep_alive.id > 0 and not frame.keep_alive.acks and not frame.keep_alive.sync


def test_an_answer_left_unacknowledged_is_carried_by_no_later_frame():
    h = Harness()
    h.open()
    a, b = h.submit(acquire()), h.submit(acquire())
    h.respond(a, granted=pb.Granted(amount=1, token=5))
    h.m.leave_unacknowledged(a, h.now)  # its caller is gone as the client closes
    h.respond(b, granted=pb.Granted(amount=1, token=6))
    h.sent()
    h.advance(2 * MS)
    acks = [x for f in h.sent() for x in (list(f.keep_alive.acks) + list(f.request.acks))]
    assert acks == [b]


def test_no_server_for_the_give_up_time_fails_pending_requests_with_outcome_unknown():
    h = Harness(addresses=("a:1",), give_up_after_ns=2 * SECOND)
    h.open()
    a = h.submit(acquire())
    for _ in range(100):
        h.drop()
        h.advance(100 * MS)
        if h.of(fx.Failed):
            break
        h.effects.clear()
    else:
        raise AssertionError("never gave up")
    assert h.now - 1_000 * SECOND <= 4 * SECOND
    assert a not in h.m.pending_ids()


def test_a_late_answer_to_a_given_up_request_is_reported_so_it_can_be_given_back():
    h = Harness(addresses=("a:1",), give_up_after_ns=1 * SECOND)
    h.open(session_id=5)
    a = h.submit(acquire())
    h.drop()
    for _ in range(50):
        h.advance(100 * MS)
        if h.m.phase == "dialing":
            h.drop()
    failed = h.of(fx.Failed)
    assert [f.request_id for f in failed] == [a] and isinstance(failed[0].error, Unavailable)
    h.open(session_id=5, resumed=True)
    h.respond(a, **granted())
    (late,) = h.of(fx.Completed)
    assert late.request_id == a and late.response.granted.amount == 1


def test_close_sends_close_session_and_fails_pending_requests():
    h = Harness()
    h.open()
    a = h.submit(acquire())
    h.sent()
    h.m.close(h.now)
    assert [f.request_id for f in h.of(fx.Failed)] == [a]
    (req,) = h.requests()
    assert req.HasField("close_session")
    h.respond(req.id, session_closed=pb.SessionClosed())
    assert h.of(fx.Closed) and h.m.phase == "closed"


def test_after_close_an_answer_to_a_request_it_failed_is_not_acknowledged():
    h = Harness()
    h.open()
    a = h.submit(acquire())
    h.m.close(h.now)
    h.sent()
    h.respond(a, granted=pb.Granted(amount=1, token=5))  # granted as the close went out
    h.advance(2 * MS)
    acks = [x for f in h.sent() for x in (list(f.keep_alive.acks) + list(f.request.acks))]
    assert a not in acks  # undelivered, the grant goes back with the session (a lease too)


def test_an_unauthenticated_welcome_fails_pending_requests_and_goes_idle():
    h = Harness()
    a = h.submit(increment())
    h.m.connected(h.now, h.last_conn())
    h.receive(welcome=pb.Welcome(failure=failure(ErrorCode.UNAUTHENTICATED, "token: unknown")))
    assert [f.request_id for f in h.of(fx.Failed)] == [a] and h.of(fx.HelloRefused)
    assert h.m.phase == "idle"


def test_events_of_a_connection_already_given_up_are_ignored():
    h = Harness()
    h.open()
    old = h.last_conn()
    h.submit(acquire())
    h.advance(1 * SECOND)  # silent: hung up, next address dialed
    assert h.last_conn() != old
    h.m.disconnected(h.now, old)
    h.m.received(pb.ServerFrame(welcome=pb.Welcome(session_id=99)), h.now, old)
    assert h.m.phase == "dialing" and h.m.session_id == 7


def _event(wid, revision, kind, name=b""):
    return pb.WatchEvent(id=wid, revision=revision, kind=kind, name=name)


def _watch_frames(h):
    return [f.watch for f in h.sent() if f.HasField("watch")]


def test_a_watch_resumes_after_the_revision_of_its_last_synced():
    h = Harness()
    h.open()
    wid = h.m.watch(b"jobs", h.now)
    (start,) = _watch_frames(h)
    assert (start.id, start.name, start.after_revision) == (wid, b"jobs", 0)
    h.receive(watch_event=_event(wid, 10, pb.WatchEvent.CHANGED, b"jobs"))
    h.receive(watch_event=_event(wid, 12, pb.WatchEvent.SYNCED))
    h.drop()
    h.open(resumed=True)
    (again,) = _watch_frames(h)
    assert again.after_revision == 12


def test_a_watch_cut_in_the_middle_of_a_commands_events_resumes_before_it_and_skips_names_told():
    h = Harness()
    h.open()
    wid = h.m.watch(b"", h.now, prefix=True)
    h.sent()
    h.receive(watch_event=_event(wid, 12, pb.WatchEvent.SYNCED))
    h.receive(watch_event=_event(wid, 15, pb.WatchEvent.CHANGED, b"a"))  # one command, two names:
    h.drop()  # cut before "b" at 15 was told
    h.of(fx.WatchEventReceived)
    h.open(resumed=True)
    (again,) = _watch_frames(h)
    assert again.after_revision == 14
    h.receive(watch_event=_event(wid, 15, pb.WatchEvent.CHANGED, b"a"))  # told already: dropped
    h.receive(watch_event=_event(wid, 15, pb.WatchEvent.CHANGED, b"b"))
    h.receive(watch_event=_event(wid, 15, pb.WatchEvent.SYNCED))
    told = [(e.event.name, e.event.kind) for e in h.of(fx.WatchEventReceived)]
    assert told == [(b"b", pb.WatchEvent.CHANGED), (b"", pb.WatchEvent.SYNCED)]


def test_a_watch_failed_by_the_server_ends_with_its_error():
    h = Harness()
    h.open()
    wid = h.m.watch(b"x", h.now)
    h.sent()
    h.receive(watch_event=pb.WatchEvent(id=wid, kind=pb.WatchEvent.FAILED,
                                        failure=failure(ErrorCode.PERMISSION_DENIED, "no")))
    (ended,) = h.of(fx.WatchEnded)
    assert ended.watch_id == wid and ended.error.code == ErrorCode.PERMISSION_DENIED
    h.drop()
    h.open(resumed=True)
    assert _watch_frames(h) == []

"""A table publishing to a real Mosquitto and the hub receiving: order, schemas, status, problems."""

from __future__ import annotations

import json
import time

import jsonschema
import paho.mqtt.client as mqtt
import pytest

from companion.venue.broker import LocalBroker, free_port


def all_delivered(hub, table) -> bool:
    last = table.publisher.journal.last_seq
    return (table.caught_up() and last > 0
            and hub.seqs(table.publisher.venue.table) == list(range(1, last + 1)))


def test_a_whole_game_reaches_the_hub_once_in_order_and_every_message_fits_its_schema(
    broker, hub, make_table, wait, schemas
):
    table = make_table(broker.port)
    table.start()
    n = table.play_until_over()
    wait(lambda: hub.store.games() and all_delivered(hub, table), what="every event at the hub")
    events = hub.store.events("club", "t1")
    assert len(events) == n + 1  # every action of the game (new_game included) and the game_over
    for e in events:
        jsonschema.validate({k: v for k, v in e.items() if k != "received_at"}, schemas("event"))
    arrived = [p["seq"] for kind, p in hub.raw if kind == "events"]
    assert arrived == sorted(arrived), "the hub received the events in sequence order"
    over = [e for e in events if e["kind"] == "game_over"]
    assert len(over) == 1 and over[0]["seq"] == events[-1]["seq"]
    info = table.store.session(over[0]["session_id"])
    assert [p["rank"] for p in over[0]["result"]["players"]] == info.ranking
    assert over[0]["result"]["winners"] == info.winners
    games = hub.store.games()
    assert len(games) == 1 and games[0]["players"] == over[0]["result"]["players"]
    # the retained state and status fit their schemas and say the game is over
    wait(lambda: (hub.store.tables()[0]["state"] or {}).get("summary", {}).get("over"), what="final state")
    row = hub.store.tables()[0]
    jsonschema.validate(row["state"], schemas("state"))
    assert row["state"]["last_seq"] == table.publisher.journal.last_seq
    statuses = [p for kind, p in hub.raw if kind == "status"]
    assert statuses and statuses[-1]["status"] == "online"
    for s in statuses:
        jsonschema.validate(s, schemas("status"))


def test_actions_logged_on_the_table_name_the_log_rows_they_come_from(broker, hub, make_table, wait):
    table = make_table(broker.port)
    table.start()
    for _ in range(25):
        table.step()
    wait(lambda: all_delivered(hub, table), what="25 actions at the hub")
    sid = table.controller.session_id
    logged = [(r.seq, r.action) for r in table.store.actions(sid)]
    sent = [(e["log_index"], e["action"]) for e in hub.store.events("club", "t1") if e["kind"] == "action"]
    assert sent == logged


def test_a_late_hub_gets_the_retained_status_and_state(broker, make_table, tmp_path, wait, new_hub):
    table = make_table(broker.port)
    table.start()
    for _ in range(10):
        table.step()
    pub = table.publisher
    wait(lambda: table.caught_up() and pub.acked == pub.journal.last_seq and not pub._state_dirty,
         what="every event acknowledged and the state sent")
    time.sleep(0.5)  # the last state's PUBLISH reaches the broker
    late = new_hub(broker.port, client_id="late-hub")  # subscribes only now: it gets the retained ones
    wait(lambda: late.store.tables() and late.store.tables()[0]["state"], what="retained state")
    row = late.store.tables()[0]
    assert row["status"] == "online"
    assert row["state"]["version"] == table.controller.version
    assert row["state"]["summary"]["players"]


def test_a_wrong_password_is_a_status_on_the_page_and_the_game_goes_on(tmp_path, make_table, wait):
    with LocalBroker(tmp_path / "secure", users={"table": "right"}) as secure:
        table = make_table(secure.port, username="table", password="wrong")
        table.start()
        wait(lambda: "refused the login" in (table.publisher.problem or ""), what="the login refusal")
        assert "username and password" in table.publisher.problem
        wait(lambda: "venue" in table.controller.message()["status"], what="the page's status line")
        for _ in range(20):
            table.step()  # no exception: the table plays on
        wait(lambda: table.publisher.journal.last_seq >= 20, what="every event kept for later")
        assert table.publisher.acked == 0


def test_the_right_password_connects(tmp_path, make_table, wait):
    with LocalBroker(tmp_path / "secure", users={"table": "right"}) as secure:
        table = make_table(secure.port, username="table", password="right")
        table.start()
        wait(table.publisher.connected.is_set, what="a connection")
        assert table.publisher.problem is None


def test_an_unreachable_broker_never_holds_up_the_game(make_table, wait):
    table = make_table(free_port())
    table.start()
    wait(lambda: "cannot reach" in (table.publisher.problem or ""), what="the unreachable status")
    worst = 0.0
    for _ in range(100):
        start = time.perf_counter()
        table.step()
        worst = max(worst, time.perf_counter() - start)
    assert worst < 0.25, f"an action took {worst:.3f} s with the broker unreachable"
    assert table.controller.message()["status"]["venue"].startswith("venue: cannot reach the broker")


def test_the_table_accepts_no_commands_from_the_broker(broker, make_table, wait):
    table = make_table(broker.port)
    table.start()
    table.step()
    wait(table.publisher.connected.is_set, what="a connection")
    version = table.controller.version
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="intruder")
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    for topic in ("dingo/club/tables/t1/command", "dingo/club/tables/t1/events", "dingo/club/tables/t1/undo"):
        c.publish(topic, json.dumps({"type": "undo"}), qos=1).wait_for_publish(2)
    time.sleep(0.5)
    c.loop_stop()
    assert table.controller.version == version


@pytest.mark.parametrize("seed", [3])
def test_a_duplicate_is_stored_once(broker, hub, make_table, seed, wait):
    table = make_table(broker.port, seed=seed)
    table.start()
    for _ in range(5):
        table.step()
    wait(lambda: all_delivered(hub, table), what="5 events")
    seq, payload = table.publisher.journal.pending(2, 1)[0]  # resend number 3, as QoS 1 may
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="resender")
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    c.publish("dingo/club/tables/t1/events", payload, qos=1).wait_for_publish(2)
    wait(lambda: hub.receiver.duplicates >= 1, what="the duplicate to arrive")
    c.loop_stop()
    assert hub.seqs() == list(range(1, table.publisher.journal.last_seq + 1))

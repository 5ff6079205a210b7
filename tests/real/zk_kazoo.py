"""kazoo (Debian's python3-kazoo) as an operator's tool against a running cluster's zk.

Usage: zk_kazoo.py CONNECT_STRING COMMAND...
  inspect TOPIC BROKERS     checks /brokers/ids, /controller, /controller_epoch, /cluster/id and the
                            topic's znodes (Kafka's JSON), prints the controller's broker id
  controller                prints the controller's broker id
  owners                    prints "id session" for every /brokers/ids/N (its ephemeral owner)
  srvr                      (CONNECT_STRING is one HOST:PORT) prints the server's Mode from the
                            srvr four-letter word, or "down"
  await-move OLD SECONDS    leaves a one-shot watch on /controller (held by OLD), prints "watching",
                            checks that it fires with NodeDeleted, then prints the broker that
                            holds /controller next
Exits 1 with a message on the first check that fails.
"""
import json
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def json_of(zk, path):
    data, stat = zk.get(path)
    try:
        return json.loads(data.decode()), stat
    except ValueError:
        fail("%s holds no JSON: %r" % (path, data))


def inspect(zk, topic, brokers):
    ids = sorted(zk.get_children("/brokers/ids"), key=int)
    if ids != [str(b) for b in range(1, brokers + 1)]:
        fail("ls /brokers/ids: %s" % ids)
    for b in ids:
        reg, stat = json_of(zk, "/brokers/ids/" + b)
        if reg.get("version") != 5 or not reg.get("endpoints") or "timestamp" not in reg:
            fail("/brokers/ids/%s is not Kafka's registration: %s" % (b, reg))
        if stat.ephemeralOwner == 0:
            fail("/brokers/ids/%s is not ephemeral" % b)
    controller, stat = json_of(zk, "/controller")
    if controller.get("version") != 1 or str(controller.get("brokerid")) not in ids:
        fail("get /controller: %s" % controller)
    if stat.ephemeralOwner == 0:
        fail("/controller is not ephemeral")
    epoch, _ = zk.get("/controller_epoch")
    if int(epoch) < 1:
        fail("/controller_epoch: %r" % epoch)
    cluster, _ = json_of(zk, "/cluster/id")
    if cluster.get("version") != "1" or len(cluster.get("id", "")) != 22:
        fail("/cluster/id: %s" % cluster)
    assignment, _ = json_of(zk, "/brokers/topics/" + topic)
    if assignment.get("version") != 3 or "0" not in assignment.get("partitions", {}):
        fail("/brokers/topics/%s: %s" % (topic, assignment))
    state, stat = json_of(zk, "/brokers/topics/%s/partitions/0/state" % topic)
    for key in ("controller_epoch", "leader", "leader_epoch", "isr", "version"):
        if key not in state:
            fail("the partition state has no %s: %s" % (key, state))
    if state["leader"] not in assignment["partitions"]["0"] or state["leader"] not in state["isr"]:
        fail("partition 0's leader is not a replica in the ISR: %s" % state)
    print(controller["brokerid"])


def await_move(zk, old, seconds):
    # A plain one-shot ZooKeeper watch (kazoo's DataWatch would re-read at once and may fold the
    # deletion into the next read): it must fire with NodeDeleted when the controller's session
    # goes; then another broker must hold /controller.
    fired = threading.Event()
    events = []

    def on_event(event):
        events.append(event)
        fired.set()

    data, _ = zk.get("/controller", watch=on_event)
    if json.loads(data.decode())["brokerid"] != old:
        fail("broker %d is not the controller to begin with" % old)
    print("watching", flush=True)
    if not fired.wait(seconds):
        fail("the watch on /controller did not fire within %d s" % seconds)
    print("event: %s %s" % (events[0].type, events[0].path), file=sys.stderr)
    if events[0].type != "DELETED" or events[0].path != "/controller":
        fail("the watch on /controller fired with %s" % events[0])
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            new = json.loads(zk.get("/controller")[0].decode())["brokerid"]
            if new != old:
                print(new)
                return
        except NoNodeError:
            pass
        time.sleep(0.1)
    fail("no other broker became the controller within %d s" % seconds)


def srvr(address):
    import socket
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=2) as s:
            s.sendall(b"srvr")
            reply = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
    except OSError:
        print("down")
        return
    for line in reply.decode(errors="replace").splitlines():
        if line.startswith("Mode: "):
            print(line[len("Mode: "):])
            return
    print("down")


def main():
    if sys.argv[2] == "srvr":
        return srvr(sys.argv[1])
    zk = KazooClient(hosts=sys.argv[1], timeout=10)
    zk.start(timeout=15)
    try:
        command = sys.argv[2]
        if command == "inspect":
            inspect(zk, sys.argv[3], int(sys.argv[4]))
        elif command == "controller":
            print(json_of(zk, "/controller")[0]["brokerid"])
        elif command == "owners":
            for b in sorted(zk.get_children("/brokers/ids"), key=int):
                print(b, zk.exists("/brokers/ids/" + b).ephemeralOwner)
        elif command == "await-move":
            await_move(zk, int(sys.argv[3]), int(sys.argv[4]))
        else:
            fail("unknown command " + command)
    finally:
        zk.stop()
        zk.close()


main()

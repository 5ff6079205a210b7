#!/usr/bin/python3
"""Memory under abuse: 100 hostile connections each to a broker and to zk, then a handshake flood.

Usage: abuse.py BROKER_PID BROKER_PORT ZK_PID ZK_PORT BOUND_KB

Each target gets 100 connections at once, of four kinds, kept open together:
  40 length-prefix-only: a size just under the limit (100,000,000 / zk's jute.maxbuffer + 8 KiB), then nothing;
  30 slowloris: a size of 10 MB, then one byte every 200 ms;
  20 partial: a size just under the limit, then 2 MiB of body, then nothing;
  10 oversized: a size above the limit (the node closes them at once).
then a flood of 2,000 handshakes on fresh connections (ApiVersions to the broker, ConnectRequest
to zk). The resident size of each node (VmRSS) may grow by at most BOUND_KB over its size before.
Afterwards every node answers a well-behaved client: the broker an ApiVersions request, zk a
ConnectRequest from another loopback address (127.0.0.2: the flood's address has used up its
maxClientCnxns sessions, as it should). Prints one line per node with its figures; exit 1 on failure.
"""
import socket
import struct
import sys
import time

broker_pid, broker_port, zk_pid, zk_port, bound_kb = (int(a) for a in sys.argv[1:6])


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def connect(port, source="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    return s


def api_versions(correlation_id):
    client = b"abuse"
    body = struct.pack(">hhih", 18, 0, correlation_id, len(client)) + client
    return struct.pack(">i", len(body)) + body


def zk_connect():
    body = struct.pack(">iqiqi", 0, 0, 4000, 0, 16) + b"\0" * 16 + b"\0"
    return struct.pack(">i", len(body)) + body


def read_frame(s):
    head = b""
    while len(head) < 4:
        chunk = s.recv(4 - len(head))
        if not chunk:
            raise RuntimeError("closed before an answer")
        head += chunk
    (n,) = struct.unpack(">i", head)
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise RuntimeError("closed in the middle of an answer")
        data += chunk
    return data


def abuse(name, pid, port, limit, handshake):
    before = rss_kb(pid)
    peak = before
    conns = []
    slow = []
    for i in range(100):
        s = connect(port)
        if i < 40:
            s.sendall(struct.pack(">i", limit - 1))
        elif i < 70:
            s.sendall(struct.pack(">i", 10_000_000))
            slow.append(s)
        elif i < 90:
            s.sendall(struct.pack(">i", limit - 1))
            try:
                s.sendall(b"\x07" * (2 << 20))
            except OSError:
                pass  # a node that stops reading (queued.max.request.bytes) leaves it in our buffer
        else:
            s.sendall(struct.pack(">i", limit + 1))
        conns.append(s)
        peak = max(peak, rss_kb(pid))
    # The handshake flood, while the 100 stay open and the slow ones trickle.
    floods = 0
    for i in range(2000):
        try:
            f = connect(port)
            f.sendall(handshake(i))
            f.close()
            floods += 1
        except OSError:
            pass  # refused (max.connections.per.ip / maxClientCnxns): that is the point
        if i % 100 == 0:
            for s in slow:
                try:
                    s.send(b"\x01")
                except OSError:
                    pass
            peak = max(peak, rss_kb(pid))
    for _ in range(10):
        for s in slow:
            try:
                s.send(b"\x01")
            except OSError:
                pass
        time.sleep(0.2)
        peak = max(peak, rss_kb(pid))
    after = rss_kb(pid)
    print(f"{name}: VmRSS {before} kB before, {peak} kB at most, {after} kB after 100 abusive connections "
          f"and {floods} handshakes (growth {peak - before} kB, bound {bound_kb} kB)")
    for s in conns:
        s.close()
    return peak - before


def broker_answers():
    s = connect(broker_port)
    s.sendall(api_versions(4242))
    data = read_frame(s)
    s.close()
    return struct.unpack(">i", data[:4])[0] == 4242


def zk_answers():
    s = connect(zk_port, source="127.0.0.2")
    s.sendall(zk_connect())
    data = read_frame(s)
    s.close()
    _, timeout, session = struct.unpack(">iiq", data[:16])
    return timeout > 0 and session != 0


ok = True
growth = abuse("broker", broker_pid, broker_port, 104857600, api_versions)
if growth > bound_kb:
    print(f"FAIL: the broker grew by {growth} kB, more than {bound_kb} kB")
    ok = False
growth = abuse("zk", zk_pid, zk_port, 0xfffff + 8192, lambda i: zk_connect())  # jute.maxbuffer + room
if growth > bound_kb:
    print(f"FAIL: zk grew by {growth} kB, more than {bound_kb} kB")
    ok = False
if not broker_answers():
    print("FAIL: the broker does not answer ApiVersions after the abuse")
    ok = False
if not zk_answers():
    print("FAIL: zk does not open a session for another address after the abuse")
    ok = False
sys.exit(0 if ok else 1)

#!/usr/bin/python3
"""Sends one forged controller request to a broker, as any client can, and prints the error code
the broker answers with (a number; "closed" when it closed the connection instead).

Usage: forge_controller_request.py PORT KIND [args]
  PORT stop-replica TOPIC PARTITIONS BROKER_EPOCH    StopReplica v1: delete=true, controller
                                                     epoch INT32_MAX, controller id 1
  PORT update-metadata BROKER_EPOCH                  UpdateMetadata v5: controller epoch INT32_MAX,
                                                     no brokers, no partitions
  PORT controlled-shutdown BROKER_ID BROKER_EPOCH    ControlledShutdown v2
  PORT write-txn-markers TOPIC                       WriteTxnMarkers v0: an ABORT marker for
                                                     producer 1 on TOPIC-0 (prints its error)
  PORT metadata                                      Metadata v1 (an honest one): prints
                                                     "ID HOST:PORT" per broker it lists
BROKER_EPOCH -1 is "unknown" (a request without one, as before KIP-380).
"""
import socket
import struct
import sys

INT32_MAX = 2**31 - 1


def string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def frame(api_key, version, body):
    head = struct.pack(">hhi", api_key, version, 4242) + string("forger")
    payload = head + body
    return struct.pack(">i", len(payload)) + payload


def read_frame(s):
    data = b""
    while len(data) < 4:
        chunk = s.recv(4 - len(data))
        if not chunk:
            return None
        data += chunk
    (n,) = struct.unpack(">i", data)
    body = b""
    while len(body) < n:
        chunk = s.recv(n - len(body))
        if not chunk:
            return None
        body += chunk
    return body


def main():
    port, kind = int(sys.argv[1]), sys.argv[2]
    args = sys.argv[3:]
    if kind == "stop-replica":
        topic, partitions, epoch = args[0], int(args[1]), int(args[2])
        body = struct.pack(">iiqb", 1, INT32_MAX, epoch, 1)
        body += struct.pack(">i", 1) + string(topic) + struct.pack(">i", partitions)
        body += b"".join(struct.pack(">i", p) for p in range(partitions))
        request = frame(5, 1, body)
    elif kind == "update-metadata":
        epoch = int(args[0])
        body = struct.pack(">iiq", 1, INT32_MAX, epoch) + struct.pack(">i", 0) + struct.pack(">i", 0)
        request = frame(6, 5, body)
    elif kind == "controlled-shutdown":
        broker, epoch = int(args[0]), int(args[1])
        request = frame(7, 2, struct.pack(">iq", broker, epoch))
    elif kind == "write-txn-markers":
        body = struct.pack(">iqhb", 1, 1, 0, 0) + struct.pack(">i", 1) + string(args[0])
        body += struct.pack(">ii", 1, 0) + struct.pack(">i", 0)
        request = frame(27, 0, body)
    elif kind == "metadata":
        request = frame(3, 1, struct.pack(">i", -1))
    else:
        sys.exit(f"unknown kind {kind}")
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(request)
    answer = read_frame(s)
    if answer is None:
        print("closed")
        return
    if kind == "metadata":
        (correlation, count) = struct.unpack(">ii", answer[:8])
        at = 8
        for _ in range(count):
            (node,) = struct.unpack(">i", answer[at:at + 4])
            (n,) = struct.unpack(">h", answer[at + 4:at + 6])
            host = answer[at + 6:at + 6 + n].decode()
            at += 6 + n
            (port,) = struct.unpack(">i", answer[at:at + 4])
            at += 4
            (rack,) = struct.unpack(">h", answer[at:at + 2])
            at += 2 + max(rack, 0)
            print(f"{node} {host}:{port}")
        return
    if kind == "write-txn-markers":
        # correlation, [markers: producer id, [topics: name, [partitions: index, error]]]
        (n,) = struct.unpack(">h", answer[20:22])
        at = 22 + n + 4 + 4
        (correlation,) = struct.unpack(">i", answer[:4])
        (error,) = struct.unpack(">h", answer[at:at + 2])
        assert correlation == 4242, correlation
        print(error)
        return
    (correlation, error) = struct.unpack(">ih", answer[:6])
    assert correlation == 4242, correlation
    print(error)


main()

#!/usr/bin/env bash
# Stock librdkafka (Debian's kcat 1.7.1 / librdkafka 2.0.2) against a 3-broker Gregor cluster:
# metadata (-L), produce (-P, plain and idempotent), consume to the end (-C -o beginning -e), and a
# balanced group of two consumers (-G) that split the partitions and commit.
source "$(dirname "$0")/lib.sh" "$1"
require kcat "Debian package kcat"

start_cluster 3
"$GREGOR" topics --bootstrap-server "$BOOTSTRAP" --create --topic t1 --partitions 4 --replication-factor 3 >/dev/null ||
  fail "topics --create"

timeout 30 kcat -b "$BOOTSTRAP" -L >"$TMP/metadata.txt" || fail "kcat -L"
cat "$TMP/metadata.txt"
grep -q "3 brokers:" "$TMP/metadata.txt" || fail "kcat -L does not list 3 brokers"
grep -q 'topic "t1" with 4 partitions' "$TMP/metadata.txt" || fail "kcat -L does not show t1 with 4 partitions"

seq 1 300 | sed 's/.*/k&:v&/' >"$TMP/sent.txt"
timeout 60 kcat -b "$BOOTSTRAP" -P -t t1 -K: -X message.timeout.ms=20000 -l "$TMP/sent.txt" || fail "kcat -P"
seq 301 400 | sed 's/.*/k&:v&/' >"$TMP/sent2.txt"
timeout 60 kcat -b "$BOOTSTRAP" -P -t t1 -K: -X enable.idempotence=true -X message.timeout.ms=20000 -l "$TMP/sent2.txt" ||
  fail "kcat -P with enable.idempotence=true"
cat "$TMP/sent.txt" "$TMP/sent2.txt" >"$TMP/all.txt"

timeout 60 kcat -b "$BOOTSTRAP" -C -t t1 -o beginning -e -X check.crcs=true -f '%k:%s\n' >"$TMP/got.txt" ||
  fail "kcat -C -o beginning -e"
diff <(sort "$TMP/all.txt") <(sort "$TMP/got.txt") || fail "kcat -C did not read back exactly what kcat -P wrote"

# Our consumer reads what kcat wrote, too.
timeout 60 "$GREGOR" consume --bootstrap-server "$BOOTSTRAP" --topic t1 --from-beginning --max-messages 400 --print-key |
  tr '\t' : | sort >"$TMP/ours.txt" || fail "gregor consume"
diff <(sort "$TMP/all.txt") "$TMP/ours.txt" || fail "gregor consume disagrees with kcat -P"

# A group of two kcat consumers: together they read every record once, each gets some partitions.
kcat -b "$BOOTSTRAP" -G grp -X auto.offset.reset=earliest -f '%p %k:%s\n' -e t1 >"$TMP/member1.txt" 2>"$TMP/member1.log" &
M1=$!
CHILD_PIDS+=($M1)
kcat -b "$BOOTSTRAP" -G grp -X auto.offset.reset=earliest -f '%p %k:%s\n' -e t1 >"$TMP/member2.txt" 2>"$TMP/member2.log" &
M2=$!
CHILD_PIDS+=($M2)
deadline=$((SECONDS + 90))
while kill -0 $M1 2>/dev/null || kill -0 $M2 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the kcat group did not finish within 90 s"
  sleep 0.2
done
wait $M1 || fail "kcat group member 1 failed"
wait $M2 || fail "kcat group member 2 failed"
cat "$TMP/member1.txt" "$TMP/member2.txt" | cut -d' ' -f2 | sort >"$TMP/group.txt"
# A member that joins late may re-read what the first one had not committed yet; count distinct.
diff <(sort "$TMP/all.txt") <(sort -u "$TMP/group.txt") || fail "the group did not read every record"
echo "member 1 partitions: $(cut -d' ' -f1 "$TMP/member1.txt" | sort -u | tr '\n' ' ')"
echo "member 2 partitions: $(cut -d' ' -f1 "$TMP/member2.txt" | sort -u | tr '\n' ' ')"

# Rerun: the group resumes from its commits and finds nothing new.
timeout 60 kcat -b "$BOOTSTRAP" -G grp -X auto.offset.reset=earliest -f '%k:%s\n' -e t1 >"$TMP/rerun.txt" 2>"$TMP/rerun.log" ||
  fail "kcat group rerun"
[ ! -s "$TMP/rerun.txt" ] || fail "the group rerun read $(wc -l <"$TMP/rerun.txt") records again instead of resuming"
stop_cluster
echo "PASS"

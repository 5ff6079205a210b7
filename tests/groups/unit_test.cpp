// Unit tests of the pieces under the group coordinator and the clients: Kafka's hash functions
// (murmur2 for keys, String.hashCode for groups), the __consumer_offsets record schemas, the
// consumer protocol and the assignors.
#include <catch2/catch.hpp>

#include "engine/client/assignors.h"
#include "engine/client/consumer_config.h"
#include "engine/protocol/consumer_protocol.h"
#include "engine/client/partitioner.h"
#include "engine/group/offsets_topic.h"

using namespace gregor;
using namespace gregor::client;
using namespace gregor::protocol;

TEST_CASE("murmur2 matches Kafka's UtilsTest.testMurmur2 known values", "[groups][partitioner]") {
  // org.apache.kafka.common.utils.UtilsTest#testMurmur2.
  CHECK(murmur2(as_view(std::string("21"))) == -973932308);
  CHECK(murmur2(as_view(std::string("foobar"))) == -790332482);
  CHECK(murmur2(as_view(std::string("a-little-bit-long-string"))) == -985981536);
  CHECK(murmur2(as_view(std::string("a-little-bit-longer-string"))) == -1486304829);
  CHECK(murmur2(as_view(std::string("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"))) == -58897971);
  CHECK(murmur2(as_view(std::string("abc"))) == 479470107);
  // The default partitioner: toPositive(murmur2(key)) % partitions.
  CHECK(to_positive(-790332482) == 1357151166);
  CHECK(partition_for_key(as_view(std::string("foobar")), 50) == 16);
  CHECK(partition_for_key(as_view(std::string("foobar")), 6) == 1357151166 % 6);
}

TEST_CASE("a group's offsets partition is abs(String.hashCode) % partitions, as Kafka computes it", "[groups]") {
  CHECK(group::java_string_hash("group") == 98629247);
  CHECK(group::java_string_hash("my-group") == -1906497762);
  CHECK(group::java_string_hash("") == 0);
  // Java's famous Integer.MIN_VALUE hash: Utils.abs maps it to 0, not to a negative partition.
  CHECK(group::java_string_hash("polygenelubricants") == INT32_MIN);
  CHECK(group::partition_for_group("polygenelubricants", 50) == 0);
  CHECK(group::partition_for_group("group", 50) == 47);
  CHECK(group::partition_for_group("my-group", 50) == 12);
  CHECK(group::partition_for_group("consumer-group-1", 50) == 20);
  // UTF-16 code units, as Java sees the string: "été" and an astral character (a surrogate pair).
  CHECK(group::java_string_hash("\xc3\xa9t\xc3\xa9") == 227742);
  CHECK(group::java_string_hash("\xf0\x9f\x98\x80") == 1772899);
}

TEST_CASE("__consumer_offsets records use Kafka's key and value schemas", "[groups]") {
  using namespace gregor::group;
  Bytes key = encode_key(OffsetCommitKey{"g", "orders", 3});
  // int16 version 1, STRING "g", STRING "orders", int32 3.
  CHECK(hex(as_view(key)) == "00010001670006" + hex(as_view(std::string("orders"))) + "00000003");
  Bytes value = encode_value(OffsetCommitValue{42, -1, "", 1000});
  CHECK(hex(as_view(value)) == "0003" "000000000000002a" "ffffffff" "0000" "00000000000003e8");
  auto rec = decode_offsets_record(key, value);
  REQUIRE(rec);
  auto* k = std::get_if<OffsetCommitKey>(&rec->key);
  REQUIRE(k);
  CHECK(k->topic == "orders");
  CHECK(k->partition == 3);
  REQUIRE(rec->offset_value);
  CHECK(rec->offset_value->offset == 42);

  GroupMetadataValue gv;
  gv.protocol_type = "consumer";
  gv.generation = 7;
  gv.protocol = "range";
  gv.leader = "m1";
  gv.current_state_timestamp = 5;
  gv.members.push_back({"m1", std::nullopt, "c1", "/h", 300000, 10000, Bytes{1, 2}, Bytes{3}});
  auto g = decode_offsets_record(encode_key(GroupMetadataKey{"g"}), encode_value(gv));
  REQUIRE(g);
  REQUIRE(std::holds_alternative<GroupMetadataKey>(g->key));
  REQUIRE(g->group_value);
  CHECK(g->group_value->generation == 7);
  CHECK(g->group_value->protocol == std::optional<std::string>("range"));
  REQUIRE(g->group_value->members.size() == 1);
  CHECK(g->group_value->members[0].session_timeout_ms == 10000);
  CHECK(g->group_value->members[0].assignment == Bytes{3});
  // A tombstone, an older value version, and garbage.
  auto t = decode_offsets_record(key, std::nullopt);
  REQUIRE(t);
  CHECK(t->tombstone);
  ByteWriter v1;
  v1.i16(1);
  v1.i64(9);
  v1.string("meta");
  v1.i64(100);
  v1.i64(200);  // expire_timestamp
  auto old = decode_offsets_record(key, v1.take());
  REQUIRE(old);
  CHECK(old->offset_value->offset == 9);
  CHECK(old->offset_value->metadata == "meta");
  CHECK(!decode_offsets_record(key, Bytes{0, 3, 1}));
  CHECK(decode_offsets_record(Bytes{0, 9}, value).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("consumer protocol subscriptions and assignments round trip", "[groups]") {
  Subscription s;
  s.topics = {"a", "b"};
  s.user_data = Bytes{0, 0, 0, 4};
  s.owned_partitions["a"] = {0, 2};
  auto d = decode_subscription(as_view(encode_subscription(s)));
  REQUIRE(d);
  CHECK(d->topics == s.topics);
  CHECK(d->owned_partitions == s.owned_partitions);
  CHECK(d->user_data == s.user_data);
  Assignment a;
  a.partitions["a"] = {1, 3};
  auto da = decode_assignment(as_view(encode_assignment(a)));
  REQUIRE(da);
  CHECK(da->partitions == a.partitions);
  CHECK(format_partitions(da->partitions) == "a-1,a-3");
  // Empty bytes (what the coordinator fills in for a member the leader left out) is no partitions.
  auto empty = decode_assignment(ByteView{});
  REQUIRE(empty);
  CHECK(empty->partitions.empty());
  CHECK(!decode_subscription(ByteView{}));
}

namespace {
std::map<std::string, Subscription> members(std::vector<std::string> ids, std::vector<std::string> topics) {
  std::map<std::string, Subscription> out;
  for (const auto& id : ids) out[id].topics = topics;
  return out;
}
std::map<std::string, std::string> flat(const std::map<std::string, Assignment>& a) {
  std::map<std::string, std::string> out;
  for (const auto& [m, x] : a) out[m] = format_partitions(x.partitions);
  return out;
}
}  // namespace

TEST_CASE("range gives each member contiguous ranges per topic", "[groups][assignors]") {
  auto range = make_assignor("range");
  REQUIRE(range);
  auto a = flat(range->assign({{"t", 7}}, members({"c1", "c2", "c3"}, {"t"})));
  CHECK(a["c1"] == "t-0,t-1,t-2");
  CHECK(a["c2"] == "t-3,t-4");
  CHECK(a["c3"] == "t-5,t-6");
  // Per topic: with two topics of 3 and 2 members, the first member gets the extra of both.
  auto b = flat(range->assign({{"t", 3}, {"u", 3}}, members({"c1", "c2"}, {"t", "u"})));
  CHECK(b["c1"] == "t-0,t-1,u-0,u-1");
  CHECK(b["c2"] == "t-2,u-2");
}

TEST_CASE("roundrobin deals partitions of all topics in turn", "[groups][assignors]") {
  auto rr = make_assignor("roundrobin");
  REQUIRE(rr);
  auto a = flat(rr->assign({{"t", 3}, {"u", 3}}, members({"c1", "c2"}, {"t", "u"})));
  CHECK(a["c1"] == "t-0,t-2,u-1");
  CHECK(a["c2"] == "t-1,u-0,u-2");
  // A member not subscribed to a topic is skipped for its partitions.
  auto subs = members({"c1", "c2"}, {"t"});
  subs["c2"].topics = {"t", "u"};
  auto b = flat(rr->assign({{"t", 2}, {"u", 2}}, subs));
  CHECK(b["c1"] == "t-0");
  CHECK(b["c2"] == "t-1,u-0,u-1");
  CHECK(make_assignor("sticky") == nullptr);
}

TEST_CASE("cooperative-sticky balances, keeps ownership, and hands moved partitions over in two steps", "[groups][assignors]") {
  auto cs = make_assignor("cooperative-sticky");
  REQUIRE(cs);
  CHECK(cs->protocol() == RebalanceProtocol::kCooperative);
  // Fresh group of 3 over 6 partitions: 2 each.
  auto first = cs->assign({{"t", 6}}, members({"a", "b", "c"}, {"t"}));
  for (const auto& [m, x] : first) CHECK(count_partitions(x.partitions) == 2);
  // Member c leaves: a and b keep theirs and share c's.
  auto subs = members({"a", "b"}, {"t"});
  subs["a"].owned_partitions = first["a"].partitions;
  subs["b"].owned_partitions = first["b"].partitions;
  subs["a"].user_data = cs->subscription_user_data(1);
  subs["b"].user_data = cs->subscription_user_data(1);
  auto second = cs->assign({{"t", 6}}, subs);
  CHECK(count_partitions(second["a"].partitions) == 3);
  CHECK(count_partitions(second["b"].partitions) == 3);
  for (int32_t p : first["a"].partitions["t"])
    CHECK(std::count(second["a"].partitions["t"].begin(), second["a"].partitions["t"].end(), p) == 1);
  // Member d joins a group of a (owning 0-2) and b (owning 3-5): each gives one up, but d gets it
  // only in the follow-up rebalance, after the owner revoked it.
  auto subs3 = members({"a", "b", "d"}, {"t"});
  subs3["a"].owned_partitions["t"] = {0, 1, 2};
  subs3["b"].owned_partitions["t"] = {3, 4, 5};
  subs3["a"].user_data = cs->subscription_user_data(2);
  subs3["b"].user_data = cs->subscription_user_data(2);
  auto third = cs->assign({{"t", 6}}, subs3);
  CHECK(count_partitions(third["a"].partitions) == 2);
  CHECK(count_partitions(third["b"].partitions) == 2);
  CHECK(count_partitions(third["d"].partitions) == 0);
  // Follow-up: a and b own 2 each now; d gets the two free partitions.
  auto subs4 = subs3;
  subs4["a"].owned_partitions = third["a"].partitions;
  subs4["b"].owned_partitions = third["b"].partitions;
  subs4["a"].user_data = cs->subscription_user_data(3);
  subs4["b"].user_data = cs->subscription_user_data(3);
  auto fourth = cs->assign({{"t", 6}}, subs4);
  CHECK(fourth["a"].partitions == third["a"].partitions);
  CHECK(fourth["b"].partitions == third["b"].partitions);
  CHECK(count_partitions(fourth["d"].partitions) == 2);
  // A stale claim (older generation) loses to the latest one.
  auto subs5 = members({"a", "b"}, {"t"});
  subs5["a"].owned_partitions["t"] = {0, 1};
  subs5["a"].user_data = cs->subscription_user_data(4);
  subs5["b"].owned_partitions["t"] = {1, 2, 3};
  subs5["b"].user_data = cs->subscription_user_data(3);
  auto fifth = cs->assign({{"t", 4}}, subs5);
  CHECK(format_partitions(fifth["a"].partitions) == "t-0,t-1");
  CHECK(format_partitions(fifth["b"].partitions) == "t-2,t-3");
}

TEST_CASE("consumer configs use Kafka's keys and reject bad values", "[groups]") {
  ConsumerConfig c;
  CHECK(c.apply({{"group.id", "g"},
                 {"auto.offset.reset", "earliest"},
                 {"partition.assignment.strategy", "roundrobin, range"},
                 {"max.poll.records", "10"}})
            .is_ok());
  CHECK(c.group_id == "g");
  CHECK(c.partition_assignment_strategy == std::vector<std::string>{"roundrobin", "range"});
  CHECK(c.max_poll_records == 10);
  ConsumerConfig d;
  CHECK(!d.apply({{"auto.offset.reset", "smallest"}}).is_ok());
  CHECK(!d.apply({{"partition.assignment.strategy", "sticky"}}).is_ok());
  CHECK(!d.apply({{"no.such.key", "1"}}).is_ok());
  CHECK(!d.apply({{"heartbeat.interval.ms", "50000"}}).is_ok());  // not below session.timeout.ms
}

// Authorization (engine/broker/acl.h, authorizer.h): the AclAuthorizer's rules on their own, the
// zk encoding, the three ACL APIs through a simulated cluster (a change made through one broker
// reaching the others by /kafka-acl-changes), and the handlers' checks. In the simulator every
// connection is User:ANONYMOUS, so the handler tests open resources with
// allow.everyone.if.no.acl.found=true and close them with Deny ACLs.
#include <catch2/catch.hpp>

#include <limits>

#include "cluster_fixture.h"
#include "engine/broker/acl.h"
#include "engine/broker/authorizer.h"
#include "engine/protocol/create_acls.h"
#include "engine/protocol/delete_acls.h"
#include "engine/protocol/describe_acls.h"
#include "engine/protocol/describe_cluster.h"
#include "engine/protocol/describe_groups.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/leader_and_isr.h"
#include "engine/protocol/metadata.h"
#include "engine/protocol/offset_commit.h"
#include "engine/protocol/stop_replica.h"
#include "engine/protocol/add_partitions_to_txn.h"
#include "engine/protocol/write_txn_markers.h"

namespace gregor::test {
namespace {

using broker::AccessControlEntry;
using broker::AclBindingFilter;
using broker::AclCache;
using broker::AclOperation;
using broker::AclPatternType;
using broker::AclPermission;
using broker::AclResourceType;
using broker::ResourcePattern;
using protocol::ErrorCode;

const std::string kAnonymous = "User:ANONYMOUS";

AclCache cache_with(std::set<std::string> supers = {}, bool allow_everyone = false) {
  return AclCache(AclCache::Settings{std::move(supers), allow_everyone});
}

bool may(const AclCache& c, const std::string& who, AclOperation op, AclResourceType type, const std::string& name,
         const std::string& host = "10.0.0.1") {
  return c.authorize(who, host, op, type, name);
}

TEST_CASE("acl rules: deny beats allow and an entry applies to its principal host and operation", "[acl]") {
  AclCache c = cache_with();
  const ResourcePattern orders{AclResourceType::kTopic, "orders", AclPatternType::kLiteral};
  c.set(orders, {{"User:bob", "*", AclOperation::kRead, AclPermission::kAllow},
                 {"User:bob", "*", AclOperation::kWrite, AclPermission::kAllow},
                 {"User:bob", "10.0.0.9", AclOperation::kRead, AclPermission::kDeny},
                 {"User:*", "*", AclOperation::kDescribe, AclPermission::kAllow}});
  CHECK(may(c, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "orders"));
  CHECK_FALSE(may(c, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "orders", "10.0.0.9"));  // denied host
  CHECK(may(c, "User:bob", AclOperation::kWrite, AclResourceType::kTopic, "orders", "10.0.0.9"));        // other op
  CHECK_FALSE(may(c, "User:alice", AclOperation::kRead, AclResourceType::kTopic, "orders"));
  CHECK(may(c, "User:alice", AclOperation::kDescribe, AclResourceType::kTopic, "orders"));  // User:* entry
  CHECK_FALSE(may(c, "User:bob", AclOperation::kDelete, AclResourceType::kTopic, "orders"));
  // A Deny of All refuses every operation, Allow entries notwithstanding.
  c.set({AclResourceType::kTopic, "*", AclPatternType::kLiteral}, {{"User:bob", "*", AclOperation::kAll, AclPermission::kDeny}});
  CHECK_FALSE(may(c, "User:bob", AclOperation::kWrite, AclResourceType::kTopic, "orders"));
  CHECK(may(c, "User:alice", AclOperation::kDescribe, AclResourceType::kTopic, "orders"));
}

TEST_CASE("acl rules: prefixed and wildcard patterns apply to the names they cover", "[acl]") {
  AclCache c = cache_with();
  c.set({AclResourceType::kTopic, "ord", AclPatternType::kPrefixed}, {{"User:bob", "*", AclOperation::kRead, AclPermission::kAllow}});
  c.set({AclResourceType::kGroup, "*", AclPatternType::kLiteral}, {{"User:bob", "*", AclOperation::kRead, AclPermission::kAllow}});
  CHECK(may(c, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "orders"));
  CHECK(may(c, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "ord"));
  CHECK_FALSE(may(c, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "or"));
  CHECK_FALSE(may(c, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "payments"));
  CHECK(may(c, "User:bob", AclOperation::kRead, AclResourceType::kGroup, "any-group"));
  // A pattern of another resource type does not apply.
  CHECK_FALSE(may(c, "User:bob", AclOperation::kRead, AclResourceType::kTransactionalId, "orders"));
  // A prefixed Deny covers a literal Allow.
  c.set({AclResourceType::kTopic, "orders", AclPatternType::kLiteral}, {{"User:carol", "*", AclOperation::kWrite, AclPermission::kAllow}});
  c.set({AclResourceType::kTopic, "orders-", AclPatternType::kPrefixed},
        {{"User:carol", "*", AclOperation::kWrite, AclPermission::kDeny}});
  CHECK(may(c, "User:carol", AclOperation::kWrite, AclResourceType::kTopic, "orders"));
  CHECK_FALSE(may(c, "User:carol", AclOperation::kWrite, AclResourceType::kTopic, "orders-eu"));
}

TEST_CASE("acl rules: super users and allow.everyone.if.no.acl.found", "[acl]") {
  AclCache strict = cache_with({"User:admin"});
  CHECK(may(strict, "User:admin", AclOperation::kAlter, AclResourceType::kCluster, "kafka-cluster"));
  CHECK_FALSE(may(strict, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "orders"));  // no ACL: refused
  strict.set({AclResourceType::kTopic, "orders", AclPatternType::kLiteral},
             {{"User:admin", "*", AclOperation::kAll, AclPermission::kDeny}});
  CHECK(may(strict, "User:admin", AclOperation::kRead, AclResourceType::kTopic, "orders"));  // super users are not denied

  AclCache open = cache_with({}, true);
  CHECK(may(open, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "orders"));  // no ACL: allowed
  open.set({AclResourceType::kTopic, "orders", AclPatternType::kLiteral}, {{"User:alice", "*", AclOperation::kRead, AclPermission::kAllow}});
  CHECK_FALSE(may(open, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "orders"));  // an ACL: the rules
  CHECK(may(open, "User:bob", AclOperation::kRead, AclResourceType::kTopic, "payments"));
  CHECK(broker::parse_super_users(" User:a ; User:b;") == std::set<std::string>{"User:a", "User:b"});
}

TEST_CASE("acl rules: Describe is implied by Read Write Delete and Alter and DescribeConfigs by AlterConfigs", "[acl]") {
  for (AclOperation granted : {AclOperation::kRead, AclOperation::kWrite, AclOperation::kDelete, AclOperation::kAlter}) {
    AclCache c = cache_with();
    c.set({AclResourceType::kTopic, "t", AclPatternType::kLiteral}, {{"User:bob", "*", granted, AclPermission::kAllow}});
    INFO(broker::operation_name(granted));
    CHECK(may(c, "User:bob", AclOperation::kDescribe, AclResourceType::kTopic, "t"));
    CHECK_FALSE(may(c, "User:bob", AclOperation::kCreate, AclResourceType::kTopic, "t"));
  }
  AclCache c = cache_with();
  c.set({AclResourceType::kTopic, "t", AclPatternType::kLiteral},
        {{"User:bob", "*", AclOperation::kAlterConfigs, AclPermission::kAllow},
         {"User:bob", "*", AclOperation::kCreate, AclPermission::kAllow}});
  CHECK(may(c, "User:bob", AclOperation::kDescribeConfigs, AclResourceType::kTopic, "t"));
  CHECK_FALSE(may(c, "User:bob", AclOperation::kDescribe, AclResourceType::kTopic, "t"));  // Create implies nothing
  // A Deny of Read does not deny the Describe it would imply.
  c.set({AclResourceType::kTopic, "u", AclPatternType::kLiteral},
        {{"User:bob", "*", AclOperation::kWrite, AclPermission::kAllow}, {"User:bob", "*", AclOperation::kRead, AclPermission::kDeny}});
  CHECK(may(c, "User:bob", AclOperation::kDescribe, AclResourceType::kTopic, "u"));
}

TEST_CASE("acl filters: ANY and MATCH and names as Kafka's AclBindingFilter matches them", "[acl]") {
  AclCache c = cache_with();
  c.set({AclResourceType::kTopic, "orders", AclPatternType::kLiteral}, {{"User:bob", "*", AclOperation::kRead, AclPermission::kAllow}});
  c.set({AclResourceType::kTopic, "ord", AclPatternType::kPrefixed}, {{"User:bob", "*", AclOperation::kWrite, AclPermission::kAllow}});
  c.set({AclResourceType::kTopic, "*", AclPatternType::kLiteral}, {{"User:eve", "*", AclOperation::kRead, AclPermission::kDeny}});
  c.set({AclResourceType::kGroup, "orders", AclPatternType::kLiteral}, {{"User:bob", "*", AclOperation::kRead, AclPermission::kAllow}});
  AclBindingFilter any;
  CHECK(c.matching(any).size() == 4);
  AclBindingFilter match;
  match.type = AclResourceType::kTopic;
  match.name = "orders";
  match.pattern = AclPatternType::kMatch;
  CHECK(c.matching(match).size() == 3);  // the literal, the prefix, the wildcard
  AclBindingFilter literal = match;
  literal.pattern = AclPatternType::kLiteral;
  CHECK(c.matching(literal).size() == 1);
  AclBindingFilter by_principal;
  by_principal.principal = "User:eve";
  REQUIRE(c.matching(by_principal).size() == 1);
  CHECK(c.matching(by_principal)[0].pattern.name == "*");
  AclBindingFilter unknown;
  unknown.operation = AclOperation::kUnknown;
  CHECK(unknown.invalid_reason().has_value());
  CHECK_FALSE(any.invalid_reason().has_value());
  // What may be created.
  broker::AclBinding b{{AclResourceType::kCluster, "other", AclPatternType::kLiteral},
                       {"User:bob", "*", AclOperation::kAlter, AclPermission::kAllow}};
  CHECK(broker::invalid_binding(b).has_value());
  b.pattern.name = "kafka-cluster";
  CHECK_FALSE(broker::invalid_binding(b).has_value());
  b.pattern.pattern = AclPatternType::kMatch;
  CHECK(broker::invalid_binding(b).has_value());
  b.pattern.pattern = AclPatternType::kLiteral;
  b.entry.principal = "bob";
  CHECK(broker::invalid_binding(b).has_value());
}

TEST_CASE("acl znodes: Kafka's paths and JSON", "[acl]") {
  CHECK(broker::Authorizer::path_of({AclResourceType::kTopic, "orders", AclPatternType::kLiteral}) == "/kafka-acl/Topic/orders");
  CHECK(broker::Authorizer::path_of({AclResourceType::kGroup, "g", AclPatternType::kPrefixed}) ==
        "/kafka-acl-extended/prefixed/Group/g");
  CHECK(broker::Authorizer::path_of({AclResourceType::kTransactionalId, "tx", AclPatternType::kLiteral}) ==
        "/kafka-acl/TransactionalId/tx");
  std::set<AccessControlEntry> entries = {{"User:bob", "*", AclOperation::kClusterAction, AclPermission::kAllow}};
  const Bytes encoded = broker::Authorizer::encode_entries(entries);
  CHECK(std::string(encoded.begin(), encoded.end()) ==
        R"({"acls":[{"host":"*","operation":"ClusterAction","permissionType":"Allow","principal":"User:bob"}],"version":1})");
  auto decoded = broker::Authorizer::decode_entries(as_view(encoded));
  REQUIRE(decoded.is_ok());
  CHECK(*decoded == entries);
  CHECK_FALSE(broker::Authorizer::decode_entries(as_view(std::string(R"({"version":1,"acls":[{"principal":"User:x"}]})"))).is_ok());
}

// --- through the simulated cluster ------------------------------------------------------------

using Creation = protocol::CreateAclsRequest::AclCreation;

Creation creation(AclResourceType type, const std::string& name, AclPatternType pattern, const std::string& principal,
                  AclOperation op, AclPermission permission) {
  Creation c;
  c.resource_type = static_cast<int8_t>(type);
  c.resource_name = name;
  c.resource_pattern_type = static_cast<int8_t>(pattern);
  c.principal = principal;
  c.host = "*";
  c.operation = static_cast<int8_t>(op);
  c.permission_type = static_cast<int8_t>(permission);
  return c;
}

std::map<std::string, std::string> authorizer_config(bool allow_everyone, const std::string& super_users = "") {
  return {{"authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"},
          {"allow.everyone.if.no.acl.found", allow_everyone ? "true" : "false"},
          {"super.users", super_users}};
}

// Creates the ACLs through `through` and waits until every broker's cache holds `total` patterns.
void create_acls(ClusterFixture& f, int32_t through, std::vector<Creation> creations, size_t total) {
  protocol::CreateAclsRequest req;
  req.creations = std::move(creations);
  auto resp = f.call<protocol::CreateAclsRequest, protocol::CreateAclsResponse>(through, req, 3);
  REQUIRE(resp);
  for (const auto& r : resp->results) CHECK(r.error_code == ErrorCode::NONE);
  REQUIRE(f.run_until([&] {
    for (int32_t b : {1, 2, 3})
      if (f.cluster.broker(b)->authorizer().cache().all().size() != total) return false;
    return true;
  }));
}

TEST_CASE("acl apis: CreateAcls then DescribeAcls then DeleteAcls through the cluster reach every broker", "[acl][broker]") {
  ClusterFixture f(17, authorizer_config(false, "User:ANONYMOUS"));
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  create_acls(f, 1,
              {creation(AclResourceType::kTopic, "orders", AclPatternType::kLiteral, "User:bob", AclOperation::kRead, AclPermission::kAllow),
               creation(AclResourceType::kTopic, "orders", AclPatternType::kLiteral, "User:bob", AclOperation::kWrite, AclPermission::kAllow),
               creation(AclResourceType::kTopic, "ord", AclPatternType::kPrefixed, "User:eve", AclOperation::kAll, AclPermission::kDeny),
               creation(AclResourceType::kGroup, "g", AclPatternType::kLiteral, "User:bob", AclOperation::kRead, AclPermission::kAllow)},
              3);
  CHECK(f.count("acl_change") > 0);
  // Broker 3 learned them from the notifications: it answers DescribeAcls with them.
  protocol::DescribeAclsRequest describe;
  describe.resource_type_filter = static_cast<int8_t>(AclResourceType::kTopic);
  describe.resource_name_filter = "orders";
  describe.pattern_type_filter = static_cast<int8_t>(AclPatternType::kMatch);
  describe.operation = static_cast<int8_t>(AclOperation::kAny);
  describe.permission_type = static_cast<int8_t>(AclPermission::kAny);
  for (int16_t v : {1, 2, 3}) {
    auto d = f.call<protocol::DescribeAclsRequest, protocol::DescribeAclsResponse>(3, describe, v);
    REQUIRE(d);
    CHECK(d->error_code == ErrorCode::NONE);
    REQUIRE(d->resources.size() == 2);  // orders (LITERAL) and ord (PREFIXED)
    size_t acls = 0;
    for (const auto& r : d->resources) acls += r.acls.size();
    CHECK(acls == 3);
  }
  // v0 knows LITERAL only.
  auto d0 = f.call<protocol::DescribeAclsRequest, protocol::DescribeAclsResponse>(2, describe, 0);
  REQUIRE(d0);
  REQUIRE(d0->resources.size() == 1);
  CHECK(d0->resources[0].resource_name == "orders");
  // A filter with an UNKNOWN element is refused.
  auto bad = describe;
  bad.operation = 0;
  auto refused = f.call<protocol::DescribeAclsRequest, protocol::DescribeAclsResponse>(2, bad, 3);
  REQUIRE(refused);
  CHECK(refused->error_code == ErrorCode::INVALID_REQUEST);
  // A binding that cannot be created: INVALID_REQUEST for it, the others are created.
  protocol::CreateAclsRequest create;
  create.creations = {creation(AclResourceType::kCluster, "not-the-cluster", AclPatternType::kLiteral, "User:bob",
                               AclOperation::kAlter, AclPermission::kAllow),
                      creation(AclResourceType::kTopic, "x", AclPatternType::kAny, "User:bob", AclOperation::kRead,
                               AclPermission::kAllow)};
  auto c = f.call<protocol::CreateAclsRequest, protocol::CreateAclsResponse>(2, create, 3);
  REQUIRE(c);
  REQUIRE(c->results.size() == 2);
  CHECK(c->results[0].error_code == ErrorCode::INVALID_REQUEST);
  CHECK(c->results[1].error_code == ErrorCode::INVALID_REQUEST);

  // DeleteAcls through broker 2: bob's Read on orders, and everything of eve.
  protocol::DeleteAclsRequest del;
  protocol::DeleteAclsRequest::DeleteAclsFilter by_bob;
  by_bob.resource_type_filter = static_cast<int8_t>(AclResourceType::kTopic);
  by_bob.resource_name_filter = "orders";
  by_bob.pattern_type_filter = static_cast<int8_t>(AclPatternType::kLiteral);
  by_bob.principal_filter = "User:bob";
  by_bob.operation = static_cast<int8_t>(AclOperation::kRead);
  by_bob.permission_type = static_cast<int8_t>(AclPermission::kAny);
  protocol::DeleteAclsRequest::DeleteAclsFilter by_eve;
  by_eve.resource_type_filter = static_cast<int8_t>(AclResourceType::kAny);
  by_eve.pattern_type_filter = static_cast<int8_t>(AclPatternType::kAny);
  by_eve.principal_filter = "User:eve";
  by_eve.operation = static_cast<int8_t>(AclOperation::kAny);
  by_eve.permission_type = static_cast<int8_t>(AclPermission::kAny);
  del.filters = {by_bob, by_eve};
  auto r = f.call<protocol::DeleteAclsRequest, protocol::DeleteAclsResponse>(2, del, 3);
  REQUIRE(r);
  REQUIRE(r->filter_results.size() == 2);
  REQUIRE(r->filter_results[0].matching_acls.size() == 1);
  CHECK(r->filter_results[0].matching_acls[0].operation == static_cast<int8_t>(AclOperation::kRead));
  REQUIRE(r->filter_results[1].matching_acls.size() == 1);
  CHECK(r->filter_results[1].matching_acls[0].resource_name == "ord");
  CHECK(r->filter_results[1].matching_acls[0].pattern_type == static_cast<int8_t>(AclPatternType::kPrefixed));
  // Every broker drops them: orders keeps bob's Write, the group its ACL, the prefix is gone.
  const ResourcePattern orders{AclResourceType::kTopic, "orders", AclPatternType::kLiteral};
  REQUIRE(f.run_until([&] {
    for (int32_t b : {1, 2, 3}) {
      const auto& cache = f.cluster.broker(b)->authorizer().cache();
      if (cache.all().size() != 2 || !cache.entries(orders) || cache.entries(orders)->size() != 1) return false;
    }
    return true;
  }));
  for (int32_t b : {1, 2, 3})
    CHECK(f.cluster.broker(b)->authorizer().cache().entries(orders)->begin()->operation == AclOperation::kWrite);
}

TEST_CASE("acl apis: without an authorizer they answer SECURITY_DISABLED", "[acl][broker]") {
  ClusterFixture f(18);
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  protocol::DescribeAclsRequest describe;
  describe.resource_type_filter = 1;
  describe.pattern_type_filter = 1;
  describe.operation = 1;
  describe.permission_type = 1;
  auto d = f.call<protocol::DescribeAclsRequest, protocol::DescribeAclsResponse>(1, describe, 3);
  REQUIRE(d);
  CHECK(d->error_code == ErrorCode::SECURITY_DISABLED);
  protocol::CreateAclsRequest create;
  create.creations = {creation(AclResourceType::kTopic, "t", AclPatternType::kLiteral, "User:bob", AclOperation::kRead,
                               AclPermission::kAllow)};
  auto c = f.call<protocol::CreateAclsRequest, protocol::CreateAclsResponse>(1, create, 3);
  REQUIRE(c);
  REQUIRE(c->results.size() == 1);
  CHECK(c->results[0].error_code == ErrorCode::SECURITY_DISABLED);
  protocol::DeleteAclsRequest del;
  del.filters.push_back({});
  del.filters[0].resource_type_filter = 1;
  del.filters[0].pattern_type_filter = 1;
  del.filters[0].operation = 1;
  del.filters[0].permission_type = 1;
  auto r = f.call<protocol::DeleteAclsRequest, protocol::DeleteAclsResponse>(1, del, 3);
  REQUIRE(r);
  REQUIRE(r->filter_results.size() == 1);
  CHECK(r->filter_results[0].error_code == ErrorCode::SECURITY_DISABLED);
}

protocol::FetchRequest consumer_fetch(const std::string& topic) {
  protocol::FetchRequest req;
  req.replica_id = -1;
  req.max_wait_ms = 0;
  req.min_bytes = 1;
  protocol::FetchRequest::FetchTopic t;
  t.topic = topic;
  protocol::FetchRequest::FetchPartition p;
  p.partition = 0;
  p.fetch_offset = 0;
  p.partition_max_bytes = 1 << 20;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  return req;
}

ErrorCode commit(ClusterFixture& f, int32_t broker, const std::string& group, const std::string& topic) {
  protocol::OffsetCommitRequest req;
  req.group_id = group;
  req.generation_id = -1;
  req.member_id = "";
  protocol::OffsetCommitRequest::OffsetCommitRequestTopic t;
  t.name = topic;
  protocol::OffsetCommitRequest::OffsetCommitRequestPartition p;
  p.partition_index = 0;
  p.committed_offset = 1;
  t.partitions.push_back(p);
  req.topics.push_back(t);
  auto r = f.call<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(broker, req, 7);
  REQUIRE(r);
  return r->topics.at(0).partitions.at(0).error_code;
}

TEST_CASE("acl checks: a denied produce and fetch and group commit are refused with Kafka's errors", "[acl][broker]") {
  ClusterFixture f(19, authorizer_config(true));
  f.create_topic("orders", 1, 3);
  const int32_t leader = f.leader_of("orders", 0);
  REQUIRE(f.produce(leader, "orders", 0, -1, "before") == ErrorCode::NONE);  // no ACL yet: everyone may
  auto open = f.call<protocol::FetchRequest, protocol::FetchResponse>(leader, consumer_fetch("orders"), 11);
  REQUIRE(open);
  CHECK(open->responses.at(0).partitions.at(0).error_code == ErrorCode::NONE);
  create_acls(f, 1,
              {creation(AclResourceType::kTopic, "orders", AclPatternType::kLiteral, kAnonymous, AclOperation::kWrite,
                        AclPermission::kDeny),
               creation(AclResourceType::kTopic, "ord", AclPatternType::kPrefixed, kAnonymous, AclOperation::kRead,
                        AclPermission::kDeny),
               creation(AclResourceType::kGroup, "closed", AclPatternType::kLiteral, kAnonymous, AclOperation::kAll,
                        AclPermission::kDeny)},
              3);
  CHECK(f.produce(leader, "orders", 0, -1, "after") == ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  auto fetched = f.call<protocol::FetchRequest, protocol::FetchResponse>(leader, consumer_fetch("orders"), 11);
  REQUIRE(fetched);
  CHECK(fetched->responses.at(0).partitions.at(0).error_code == ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  CHECK(commit(f, 1, "closed", "orders") == ErrorCode::GROUP_AUTHORIZATION_FAILED);
  CHECK(commit(f, 1, "open", "orders") == ErrorCode::TOPIC_AUTHORIZATION_FAILED);  // Read on the topic is denied
  CHECK(f.count("authorization_denied") >= 4);
  // The followers still replicate (their fetches need ClusterAction on the cluster, which has no ACL).
  auto* p = f.replica(leader, "orders", 0);
  REQUIRE(p);
  CHECK(p->isr().size() == 3);
}

protocol::MetadataResponse metadata(ClusterFixture& f, std::optional<std::vector<std::string>> topics, bool auto_create = false) {
  protocol::MetadataRequest req;
  if (topics) {
    req.topics.emplace();
    for (const auto& t : *topics) {
      protocol::MetadataRequest::MetadataRequestTopic mt;
      mt.name = t;
      req.topics->push_back(mt);
    }
  }
  req.allow_auto_topic_creation = auto_create;
  auto r = f.call<protocol::MetadataRequest, protocol::MetadataResponse>(2, req, 9);
  REQUIRE(r);
  return *r;
}

TEST_CASE("acl checks: Metadata lists only the topics the principal may describe and auto-creation needs Create", "[acl][broker]") {
  ClusterFixture f(20, authorizer_config(true));
  f.create_topic("public", 1, 3);
  f.create_topic("secret", 1, 3);
  // The cluster's ACLs must keep ClusterAction for the brokers, who are User:ANONYMOUS too.
  create_acls(f, 1,
              {creation(AclResourceType::kTopic, "secret", AclPatternType::kLiteral, kAnonymous, AclOperation::kDescribe,
                        AclPermission::kDeny),
               creation(AclResourceType::kCluster, "kafka-cluster", AclPatternType::kLiteral, kAnonymous,
                        AclOperation::kClusterAction, AclPermission::kAllow),
               creation(AclResourceType::kCluster, "kafka-cluster", AclPatternType::kLiteral, kAnonymous,
                        AclOperation::kCreate, AclPermission::kDeny),
               creation(AclResourceType::kTopic, "auto-", AclPatternType::kPrefixed, kAnonymous, AclOperation::kCreate,
                        AclPermission::kDeny),
               creation(AclResourceType::kTopic, "auto-", AclPatternType::kPrefixed, kAnonymous, AclOperation::kDescribe,
                        AclPermission::kAllow)},
              3);
  auto all = metadata(f, std::nullopt);
  std::set<std::string> names;
  for (const auto& t : all.topics) names.insert(t.name.value_or(""));
  CHECK(names.count("public") == 1);
  CHECK(names.count("secret") == 0);
  auto named = metadata(f, std::vector<std::string>{"secret", "public"});
  REQUIRE(named.topics.size() == 2);
  CHECK(named.topics[0].error_code == ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  CHECK(named.topics[0].partitions.empty());
  CHECK(named.topics[1].error_code == ErrorCode::NONE);
  // auto-new may be described (the Allow on auto-) but not created: Create is denied on the cluster
  // and on auto-.
  auto created = metadata(f, std::vector<std::string>{"auto-new"}, true);
  REQUIRE(created.topics.size() == 1);
  CHECK(created.topics[0].error_code == ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  (void)f.sim.run_for(Duration::seconds(5));
  CHECK_FALSE(f.cluster.topic_ready("auto-new", 1));
}

TEST_CASE("acl checks: a forged controller or transaction marker request from a principal without ClusterAction is refused", "[acl][broker]") {
  ClusterFixture f(21, authorizer_config(true));
  f.create_topic("victims", 2, 3);
  create_acls(f, 1,
              {creation(AclResourceType::kCluster, "kafka-cluster", AclPatternType::kLiteral, kAnonymous,
                        AclOperation::kClusterAction, AclPermission::kDeny)},
              1);
  for (int32_t b : {1, 2, 3}) {
    protocol::StopReplicaRequest stop;
    stop.controller_id = 1;
    stop.controller_epoch = INT32_MAX;
    stop.broker_epoch = -1;
    protocol::StopReplicaRequest::StopReplicaTopicState ts;
    ts.topic_name = "victims";
    for (int32_t p : {0, 1}) {
      protocol::StopReplicaRequest::StopReplicaPartitionState ps;
      ps.partition_index = p;
      ps.delete_partition = true;
      ts.partition_states.push_back(ps);
    }
    stop.topic_states.push_back(ts);
    auto resp = f.call<protocol::StopReplicaRequest, protocol::StopReplicaResponse>(b, stop, 3);
    REQUIRE(resp);
    CHECK(resp->error_code == ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
    protocol::LeaderAndIsrRequest lai;
    lai.controller_id = 1;
    lai.controller_epoch = INT32_MAX;
    lai.broker_epoch = -1;
    auto lai_resp = f.call<protocol::LeaderAndIsrRequest, protocol::LeaderAndIsrResponse>(b, lai, 3);
    REQUIRE(lai_resp);
    CHECK(lai_resp->error_code == ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
    // The transaction coordinator's requests to brokers need ClusterAction too.
    protocol::WriteTxnMarkersRequest markers;
    protocol::WriteTxnMarkersRequest::WritableTxnMarker m;
    m.producer_id = 9;
    m.producer_epoch = 0;
    m.transaction_result = false;
    m.coordinator_epoch = 0;
    m.topics.push_back({.name = "victims", .partition_indexes = {0, 1}});
    markers.markers.push_back(m);
    auto wm = f.call<protocol::WriteTxnMarkersRequest, protocol::WriteTxnMarkersResponse>(b, markers, 1);
    REQUIRE(wm);
    for (const auto& p : wm->markers.at(0).topics.at(0).partitions)
      CHECK(p.error_code == ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
    protocol::AddPartitionsToTxnRequest verify;
    protocol::AddPartitionsToTxnRequest::AddPartitionsToTxnTransaction t;
    t.transactional_id = "tx";
    t.producer_id = 9;
    t.producer_epoch = 0;
    t.verify_only = true;
    t.topics.push_back({"victims", {0}});
    verify.transactions.push_back(t);
    auto vr = f.call<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse>(b, verify, 4);
    REQUIRE(vr);
    CHECK(vr->error_code == ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
  }
  for (int32_t b : {1, 2, 3}) {
    CHECK(f.cluster.broker(b)->partition(TopicPartition{"victims", 0}) != nullptr);
    CHECK(f.cluster.broker(b)->partition(TopicPartition{"victims", 1}) != nullptr);
  }
  size_t denied = 0;
  for (const auto& e : f.events)
    if (e.kind() == std::string_view("authorization_denied")) denied++;
  CHECK(denied >= 6);
}

}  // namespace

TEST_CASE("acl checks: DescribeCluster and DescribeGroups report the operations the principal may do", "[acl][broker]") {
  ClusterFixture f(23, authorizer_config(true));
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  // The cluster has ACLs now, so only what they allow (Describe implied by Alter).
  create_acls(f, 1,
              {creation(AclResourceType::kCluster, "kafka-cluster", AclPatternType::kLiteral, kAnonymous,
                        AclOperation::kAlter, AclPermission::kAllow),
               creation(AclResourceType::kCluster, "kafka-cluster", AclPatternType::kLiteral, kAnonymous,
                        AclOperation::kClusterAction, AclPermission::kAllow),
               creation(AclResourceType::kGroup, "g", AclPatternType::kLiteral, kAnonymous, AclOperation::kDelete,
                        AclPermission::kDeny),
               creation(AclResourceType::kGroup, "g", AclPatternType::kLiteral, kAnonymous, AclOperation::kRead,
                        AclPermission::kAllow)},
              2);
  auto bit = [](AclOperation op) { return 1 << static_cast<int>(op); };
  protocol::DescribeClusterRequest dc;
  dc.include_cluster_authorized_operations = true;
  auto cluster = f.call<protocol::DescribeClusterRequest, protocol::DescribeClusterResponse>(2, dc, 0);
  REQUIRE(cluster);
  CHECK(cluster->cluster_authorized_operations ==
        (bit(AclOperation::kAlter) | bit(AclOperation::kDescribe) | bit(AclOperation::kClusterAction)));
  dc.include_cluster_authorized_operations = false;
  auto without = f.call<protocol::DescribeClusterRequest, protocol::DescribeClusterResponse>(2, dc, 0);
  REQUIRE(without);
  CHECK(without->cluster_authorized_operations == std::numeric_limits<int32_t>::min());
  // Without Describe on the cluster nothing is reported (as Kafka).
  create_acls(f, 1,
              {creation(AclResourceType::kCluster, "kafka-cluster", AclPatternType::kLiteral, kAnonymous,
                        AclOperation::kDescribe, AclPermission::kDeny)},
              2);
  dc.include_cluster_authorized_operations = true;
  REQUIRE(f.run_until([&] {
    auto c = f.call<protocol::DescribeClusterRequest, protocol::DescribeClusterResponse>(2, dc, 0);
    return c && c->cluster_authorized_operations == 0;
  }));

  // The group's coordinator (FindCoordinator creates __consumer_offsets) answers with READ and
  // DESCRIBE (implied by Read), not DELETE.
  std::optional<protocol::DescribeGroupsResponse> groups;
  REQUIRE(f.run_until(
      [&] {
        protocol::FindCoordinatorRequest fc;
        fc.key = "g";
        auto c = f.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(1, fc, 3);
        if (!c || c->error_code != ErrorCode::NONE) {
          f.sim.run_for(Duration::millis(200));
          return false;
        }
        protocol::DescribeGroupsRequest dg;
        dg.groups = {"g"};
        dg.include_authorized_operations = true;
        groups = f.call<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(c->node_id, dg, 3);
        return groups && groups->groups.size() == 1 && groups->groups[0].error_code == ErrorCode::NONE;
      },
      Duration::seconds(60)));
  const int32_t ops = groups->groups[0].authorized_operations;
  CHECK((ops & bit(AclOperation::kRead)) != 0);
  CHECK((ops & bit(AclOperation::kDescribe)) != 0);
  CHECK((ops & bit(AclOperation::kDelete)) == 0);
}

}  // namespace gregor::test

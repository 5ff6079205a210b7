// AlterUserScramCredentials: add or remove users' SCRAM credentials in zk /config/users/<name>,
// as Kafka's ZK-mode broker does (KIP-554). Each user's changes are checked first (Kafka's
// messages and codes), then written one user at a time; the answer has one result per user.
#include <memory>
#include <set>

#include "engine/broker/request_handler.h"
#include "engine/core/scram.h"
#include "engine/protocol/alter_user_scram_credentials.h"

namespace gregor::broker {

namespace {

using Response = protocol::AlterUserScramCredentialsResponse;
using Result = Response::AlterUserScramCredentialsResult;

struct Change {
  std::string user;
  scram::Mechanism mechanism;
  std::optional<scram::Credential> credential;  // nullopt: a deletion
};

struct Pending {
  Request req;
  Response resp;
  std::vector<Change> changes;
  std::map<std::string, size_t> result_of;  // user -> index in resp.results
  size_t next = 0;
};

void write_next(HandlerContext& ctx, std::shared_ptr<Pending> p) {
  if (p->next == p->changes.size()) return ctx.channel.respond(p->req, p->resp);
  const Change& c = p->changes[p->next++];
  ctx.sasl.alter_scram_credential(c.user, c.mechanism, c.credential, [&ctx, p, user = c.user](bool ok, bool missing) {
    Result& r = p->resp.results[p->result_of.at(user)];
    if (r.error_code == ErrorCode::NONE && !ok) {
      r.error_code = missing ? ErrorCode::RESOURCE_NOT_FOUND : ErrorCode::UNKNOWN_SERVER_ERROR;
      r.error_message = missing ? "Attempt to delete a user credential that does not exist"
                                : "could not write the user's credentials to zk";
    }
    write_next(ctx, p);
  });
}

}  // namespace

void handle_alter_user_scram_credentials(HandlerContext& ctx, const Request& req,
                                         protocol::AlterUserScramCredentialsRequest request) {
  auto p = std::make_shared<Pending>();
  p->req = req;
  std::map<std::string, std::pair<ErrorCode, std::string>> errors;
  std::set<std::pair<std::string, int8_t>> seen;
  auto note_user = [&](const std::string& user) {
    if (p->result_of.count(user)) return;
    p->result_of[user] = p->resp.results.size();
    Result r;
    r.user = user;
    r.error_code = ErrorCode::NONE;
    p->resp.results.push_back(r);
  };
  auto refuse = [&](const std::string& user, ErrorCode code, std::string message) {
    if (!errors.count(user)) errors[user] = {code, std::move(message)};
  };
  auto check = [&](const std::string& user, int8_t mechanism) -> std::optional<scram::Mechanism> {
    note_user(user);
    if (user.empty()) return refuse(user, ErrorCode::UNACCEPTABLE_CREDENTIAL, "Username must not be empty"), std::nullopt;
    if (!seen.insert({user, mechanism}).second)
      return refuse(user, ErrorCode::DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request"),
             std::nullopt;
    if (mechanism != 1 && mechanism != 2)
      return refuse(user, ErrorCode::UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"), std::nullopt;
    return mechanism == 1 ? scram::Mechanism::kSha256 : scram::Mechanism::kSha512;
  };
  for (const auto& d : request.deletions) {
    if (auto m = check(d.name, d.mechanism)) p->changes.push_back({d.name, *m, std::nullopt});
  }
  for (const auto& u : request.upsertions) {
    auto m = check(u.name, u.mechanism);
    if (!m) continue;
    if (u.iterations < scram::kIterationsMin) {
      refuse(u.name, ErrorCode::UNACCEPTABLE_CREDENTIAL, "Too few iterations");
      continue;
    }
    if (u.iterations > scram::kIterationsMax) {
      refuse(u.name, ErrorCode::UNACCEPTABLE_CREDENTIAL, "Too many iterations");
      continue;
    }
    const std::string salt(u.salt.begin(), u.salt.end());
    const std::string salted(u.salted_password.begin(), u.salted_password.end());
    if (salt.empty() || salted.empty()) {
      refuse(u.name, ErrorCode::UNACCEPTABLE_CREDENTIAL, "Credential must have a salt and a salted password");
      continue;
    }
    p->changes.push_back({u.name, *m, scram::credential_from_salted(*m, salted, salt, u.iterations)});
  }
  // Kafka's rule: Alter on the cluster, else every user's changes are refused.
  if (!authorize_cluster(ctx, req, AclOperation::kAlter))
    for (const auto& [user, index] : p->result_of) refuse(user, ErrorCode::CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
  // A user with any refused change gets none of its changes written, as Kafka does.
  for (const auto& [user, error] : errors) {
    Result& r = p->resp.results[p->result_of.at(user)];
    r.error_code = error.first;
    r.error_message = error.second;
  }
  std::vector<Change> allowed;
  for (auto& c : p->changes)
    if (!errors.count(c.user)) allowed.push_back(std::move(c));
  p->changes = std::move(allowed);
  write_next(ctx, p);
}

}  // namespace gregor::broker

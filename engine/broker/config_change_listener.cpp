#include "engine/broker/config_change_listener.h"

#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/zk_data.h"

namespace gregor::broker {

using coord::ZkError;

void ConfigChangeListener::on_change() {
  zk_.get_children(zk_paths::config_changes(), true, [this](ZkError err, std::vector<std::string> kids) {
    if (err != ZkError::kOk) return;
    std::sort(kids.begin(), kids.end());
    std::vector<std::string> fresh;
    int64_t newest = last_change_;
    for (const auto& k : kids) {
      const int64_t seq = sequence_of(k);
      if (seq < 0) continue;
      if (listed_ && seq > last_change_) fresh.push_back(k);
      newest = std::max(newest, seq);
    }
    last_change_ = newest;
    listed_ = true;
    sequentially<std::string>(
        fresh,
        [this](const std::string& k, std::function<void()> next) {
          zk_.get_data(zk_paths::config_changes() + "/" + k, false, [this, next](ZkError e2, Bytes data, coord::Stat) {
            if (e2 != ZkError::kOk) return next();
            auto entity = decode_config_change(as_view(data));
            const std::string prefix = "topics/";
            if (!entity || entity->rfind(prefix, 0) != 0) return next();
            reload_topic_config(entity->substr(prefix.size()), next);
          });
        },
        [] {});
  });
}

void ConfigChangeListener::reload_topic_config(const std::string& topic, std::function<void()> done) {
  zk_.get_data(zk_paths::topic_config(topic), false, [this, topic, done](ZkError err, Bytes data, coord::Stat) {
    if (err != ZkError::kOk) return done();
    auto overrides = decode_topic_config(as_view(data));
    TopicConfig tc = config_.topic_defaults;
    Status s = overrides ? tc.apply(*overrides) : overrides.status();
    if (!s.is_ok()) {
      rt_.log("topic " + topic + ": ignoring a config change: " + s.to_string());
      return done();
    }
    apply_(topic, tc, *overrides);
    done();
  });
}

}  // namespace gregor::broker

#include "gui/text_report.h"

#include <algorithm>
#include <cstdio>

namespace gregor::gui {

namespace {

std::string stamp(Time t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%9.3fs", static_cast<double>(t.us) / 1e6);
  return buf;
}

// Wraps a caption at about width columns, indenting the continuation lines; paragraphs (blank
// lines) are kept, single line breaks are joined.
std::string wrap(const std::string& text, size_t width, const std::string& indent) {
  std::vector<std::string> paragraphs(1);
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == '\n') {
      while (i + 1 < text.size() && text[i + 1] == '\n') i++;
      paragraphs.emplace_back();
    } else {
      paragraphs.back() += text[i] == '\n' ? ' ' : text[i];
    }
  }
  std::string out;
  for (const auto& p : paragraphs) {
    if (p.empty()) continue;
    if (!out.empty()) out += "\n" + indent;
    std::string line;
    size_t i = 0;
    while (i < p.size()) {
      size_t j = p.find(' ', i);
      if (j == std::string::npos) j = p.size();
      const std::string word = p.substr(i, j - i);
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        out += line + "\n" + indent;
        line.clear();
      }
      if (!word.empty()) line += (line.empty() ? "" : " ") + word;
      i = j + 1;
    }
    out += line;
  }
  return out;
}

}  // namespace

void print_text_report(Session& session, std::ostream& out, size_t changes_max) {
  if (session.is_live()) session.run_to(session.end_time());
  const History& h = session.history();
  out << session.title() << "  (seed " << session.seed() << ", " << h.events().size() << " events, "
      << stamp(session.end_time()) << ")\n\n";

  struct Line {
    Time at;
    int order;  // story first at equal times
    std::string text;
  };
  std::vector<Line> lines;
  for (const auto& s : session.story()) lines.push_back({s.at, 0, "  story  " + wrap(s.text, 88, std::string(21, ' '))});
  size_t changes = 0, skipped = 0;
  for (const auto& m : h.markers()) {
    const bool change = m.kind == MarkerKind::kLeader || m.kind == MarkerKind::kIsrShrink || m.kind == MarkerKind::kIsrExpand ||
                        m.kind == MarkerKind::kOffline;
    if (change && ++changes > changes_max) {
      skipped++;
      continue;
    }
    char kind[16];
    std::snprintf(kind, sizeof kind, "%-10s", marker_kind_name(m.kind));
    lines.push_back({m.at, 1, std::string(kind) + " " + m.label});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return a.at != b.at ? a.at < b.at : a.order < b.order;
  });
  out << "Timeline:\n";
  for (const auto& l : lines) out << stamp(l.at) << "  " << l.text << "\n";
  if (skipped) out << "  ... and " << skipped << " more leader/ISR changes\n";

  const DashboardModel end = h.model_at(session.end_time(), Duration::millis(1));
  out << "\nAt the end (" << stamp(session.end_time()) << "):\n";
  for (const auto& p : end.partitions) {
    if (&p - end.partitions.data() >= 20) {
      out << "  ... " << end.partitions.size() - 20 << " more partitions\n";
      break;
    }
    std::string isr, replicas;
    for (int32_t b : p.isr) isr += (isr.empty() ? "" : ",") + std::to_string(b);
    for (int32_t b : p.replicas) replicas += (replicas.empty() ? "" : ",") + std::to_string(b);
    out << "  Topic: " << p.topic << "\tPartition: " << p.partition << "\tLeader: "
        << (p.leader < 0 ? std::string("none") : std::to_string(p.leader)) << "\tReplicas: " << replicas << "\tIsr: " << isr
        << "\tHW: " << p.hw << "\tLEO: " << p.leo << "\n";
  }
  out << "  UnderReplicatedPartitions " << end.health.under_replicated << ", UnderMinIsrPartitionCount "
      << end.health.under_min_isr << ", OfflinePartitionsCount " << end.health.offline << ", acked batches "
      << end.health.produce_acked << ", produce errors " << end.health.produce_errors + end.health.produce_rejected << "\n";

  out << "\nVerdicts:\n";
  int failed = 0;
  for (const auto& v : end.verdicts) {
    const char* word = v.state == VerdictState::kPass ? "pass" : v.state == VerdictState::kFail ? "FAIL" : "undecided";
    out << "  " << word << "  " << v.checker;
    if (v.state == VerdictState::kFail) {
      out << " at " << stamp(v.at) << ": " << v.message;
      failed++;
    }
    out << "\n";
  }
  for (const auto& e : session.expectations()) {
    const char* word = e.state == VerdictState::kPass ? "pass" : e.state == VerdictState::kFail ? "FAIL" : "undecided";
    out << "  " << word << "  expectation: " << e.name << (e.detail.empty() ? "" : ": " + e.detail) << "\n";
  }
  out << (failed ? "\nSome checkers found violations.\n" : "\nNo checker found a violation.\n");
}

}  // namespace gregor::gui

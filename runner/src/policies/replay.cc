// The trace replay (see replay.h): lines read strictly (json.h), every call checked.
#include "replay.h"

#include <memory>
#include <stdexcept>

#include "decision.h"
#include "trace.h"

namespace policies {
namespace {

struct Line {
  int64_t number = 0;
  std::string cut;  // non-empty: the last line was cut (why it does not parse)
};

std::runtime_error at(const Line& line, const std::string& what) {
  return std::runtime_error("line " + std::to_string(line.number) + ": " + what);
}

// the line's object; a last line (no newline) that does not parse is noted as cut
json::Value parse_line(const std::string& text, bool last, Line& line) {
  json::Value obj;
  try {
    obj = json::parse(text);
  } catch (const std::exception& e) {
    if (!last) throw at(line, e.what());
    line.cut = e.what();
    return obj;
  }
  if (obj.type != json::Value::Type::object) throw at(line, "not a JSON object");
  return obj;
}

// one call; false when its decision differs (printed)
bool replay_call(const json::Value& obj, const Setup& setup, Policy& policy,
                 const std::string& path, std::ostream& out) {
  if (obj["call"].as_string() == "observe") {
    policy.observe(trace::completion_of(obj, setup));
    return true;
  }
  trace::ScheduleCall call;
  trace::schedule_of(obj, setup, call);
  std::string prefix = path + ": differs at call " + std::to_string(call.index) +
                       " (schedule at now_ns=" + std::to_string(call.view.now_ns) + "): ";
  Decision got;
  try {
    got = policy.schedule(call.view);
  } catch (const QueueUnread& e) {
    out << prefix << e.what() << "\n";
    return false;
  }
  if (!(got == call.expected)) {
    out << prefix << "expected " << trace::to_json(call.expected, setup) << ", got "
        << trace::to_json(got, setup) << "\n";
    return false;
  }
  return true;
}

}  // namespace

int replay(std::istream& in, const std::string& path, std::ostream& out) {
  std::string text;
  Line line{1, ""};
  if (!std::getline(in, text)) throw std::runtime_error("empty trace");
  json::Value header = parse_line(text, false, line);
  const json::Value* kind = header.find("trace");
  if (kind == nullptr || kind->type != json::Value::Type::string ||
      kind->as_string() != "decisions")
    throw std::runtime_error("not a decision trace (no header line)");
  std::unique_ptr<Policy> policy;
  Setup setup;
  try {
    setup = setup_from_header(header);
    policy = make_policy(setup);
  } catch (const std::exception& e) {
    throw at(line, e.what());
  }
  int64_t decisions = 0;
  while (std::getline(in, text)) {
    ++line.number;
    if (text.empty()) continue;
    json::Value obj = parse_line(text, in.eof(), line);
    if (!line.cut.empty()) break;
    try {
      if (!replay_call(obj, setup, *policy, path, out)) return 1;
    } catch (const std::exception& e) {
      throw at(line, e.what());
    }
    if (obj["call"].as_string() == "schedule") ++decisions;
  }
  out << path << ": " << decisions << " decisions replay clean";
  if (!line.cut.empty())
    out << " before a cut last line (line " << line.number << ": " << line.cut << ")";
  out << "\n";
  return 0;
}

}  // namespace policies

// Streaming reader of Kineto traces: bytes from a KinetoByteSource (kineto.cpp: a stream, or a file through zlib) → a
// std::streambuf that tracks the byte offset and line → nlohmann::json's SAX parser → a handler that keeps the events
// the analysis needs. Only distributedInfo and deviceProperties (small
// by construction) are built as JSON values; traceEvents never is.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/importers/kineto.hpp"

namespace meshscope {
namespace {

using json = nlohmann::json;

constexpr size_t kChunkBytes = size_t{1} << 18;

// ---- Input: a streambuf that knows where the parser is -----------------------------------------------------------

class TrackingBuffer final : public std::streambuf {
 public:
  TrackingBuffer(KinetoByteSource& source, const KinetoProgressCallback& progress)
      : source_(source), progress_(progress), buffer_(kChunkBytes) {}

  // Bytes of the document handed to the parser so far.
  [[nodiscard]] int64_t position() const { return consumed_before_ + static_cast<int64_t>(gptr() - eback()); }
  // "line L, column C" of the current position (1-based).
  [[nodiscard]] std::pair<int64_t, int64_t> line_column() const {
    int64_t line = lines_before_ + 1;
    int64_t column = column_before_ + 1;
    for (const char* p = eback(); p != gptr(); ++p) {
      if (*p == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    // The parser has read the character it complains about: point at it, not past it.
    return {line, std::max<int64_t>(1, column - 1)};
  }
  // "origin:LINE:COLUMN (byte N)": where an error is, for Error::location.
  [[nodiscard]] std::string location(const std::string& origin) const {
    const auto [line, column] = line_column();
    return origin + ":" + std::to_string(line) + ":" + std::to_string(column) + " (byte " + std::to_string(position()) +
           (source_.compressed() ? " of the uncompressed JSON)" : ")");
  }
  [[nodiscard]] bool cancelled() const { return cancelled_; }
  [[nodiscard]] const std::optional<Error>& read_error() const { return read_error_; }
  void set_events(int64_t events) { events_ = events; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    account_consumed();
    if (done_) return traits_type::eof();
    auto n = source_.read(buffer_.data(), static_cast<int64_t>(buffer_.size()));
    if (!n || *n <= 0) {
      if (!n) read_error_ = n.error();
      done_ = true;
      return traits_type::eof();
    }
    setg(buffer_.data(), buffer_.data(), buffer_.data() + *n);
    if (progress_ && !progress_(KinetoProgress{source_.input_bytes_read(), source_.input_bytes_total(), events_})) {
      cancelled_ = true;
      done_ = true;
      setg(buffer_.data(), buffer_.data(), buffer_.data());
      return traits_type::eof();
    }
    return traits_type::to_int_type(*gptr());
  }

 private:
  void account_consumed() {
    for (const char* p = eback(); p != egptr(); ++p) {
      if (*p == '\n') {
        ++lines_before_;
        column_before_ = 0;
      } else {
        ++column_before_;
      }
    }
    consumed_before_ += static_cast<int64_t>(egptr() - eback());
    setg(buffer_.data(), buffer_.data(), buffer_.data());
  }

  KinetoByteSource& source_;
  const KinetoProgressCallback& progress_;
  std::vector<char> buffer_;
  int64_t consumed_before_ = 0;
  int64_t lines_before_ = 0;
  int64_t column_before_ = 0;
  int64_t events_ = 0;
  bool done_ = false;
  bool cancelled_ = false;
  std::optional<Error> read_error_;
};

// ---- Small JSON subtrees (distributedInfo, deviceProperties) -----------------------------------------------------

class SubtreeBuilder {
 public:
  void start(json container) {
    if (stack_.empty()) {
      root_ = std::move(container);
      stack_.push_back(&root_);
      return;
    }
    stack_.push_back(insert(std::move(container)));
  }
  void value(json v) { insert(std::move(v)); }
  void key(std::string k) { key_ = std::move(k); }
  // True when the subtree is complete.
  bool end() {
    stack_.pop_back();
    return stack_.empty();
  }
  [[nodiscard]] bool active() const { return !stack_.empty(); }
  json take() { return std::move(root_); }

 private:
  json* insert(json v) {
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }

  json root_;
  std::vector<json*> stack_;
  std::string key_;
};

// ---- Keys ----------------------------------------------------------------------------------------------------------

enum class TopKey {
  other,
  trace_events,
  distributed_info,
  device_properties,
  display_time_unit,
  schema_version,
  base_time_ns
};
enum class EventKey { other, ph, cat, name, ts, dur, pid, tid, args };
enum class ArgKey {
  other,
  stream,
  correlation,
  device,
  collective_name,
  in_nelems,
  out_nelems,
  dtype,
  group_size,
  pg_name,
  pg_desc,
  pg_ranks,
  memory_device_type,
  memory_device_id,
  total_allocated
};

TopKey top_key(std::string_view k) {
  if (k == "traceEvents") return TopKey::trace_events;
  if (k == "distributedInfo") return TopKey::distributed_info;
  if (k == "deviceProperties") return TopKey::device_properties;
  if (k == "displayTimeUnit") return TopKey::display_time_unit;
  if (k == "schemaVersion") return TopKey::schema_version;
  if (k == "baseTimeNanoseconds") return TopKey::base_time_ns;
  return TopKey::other;
}

EventKey event_key(std::string_view k) {
  switch (k.size()) {
    case 2:
      if (k == "ph") return EventKey::ph;
      if (k == "ts") return EventKey::ts;
      break;
    case 3:
      if (k == "cat") return EventKey::cat;
      if (k == "dur") return EventKey::dur;
      if (k == "pid") return EventKey::pid;
      if (k == "tid") return EventKey::tid;
      break;
    case 4:
      if (k == "name") return EventKey::name;
      if (k == "args") return EventKey::args;
      break;
    default:
      break;
  }
  return EventKey::other;
}

ArgKey arg_key(std::string_view k) {
  static const std::unordered_map<std::string_view, ArgKey> kKeys = {{"stream", ArgKey::stream},
                                                                     {"correlation", ArgKey::correlation},
                                                                     {"device", ArgKey::device},
                                                                     {"Collective name", ArgKey::collective_name},
                                                                     {"In msg nelems", ArgKey::in_nelems},
                                                                     {"Out msg nelems", ArgKey::out_nelems},
                                                                     {"dtype", ArgKey::dtype},
                                                                     {"Group size", ArgKey::group_size},
                                                                     {"Process Group Name", ArgKey::pg_name},
                                                                     {"Process Group Description", ArgKey::pg_desc},
                                                                     {"Process Group Ranks", ArgKey::pg_ranks},
                                                                     {"Device Type", ArgKey::memory_device_type},
                                                                     {"Device Id", ArgKey::memory_device_id},
                                                                     {"Total Allocated", ArgKey::total_allocated}};
  const auto it = kKeys.find(k);
  return it == kKeys.end() ? ArgKey::other : it->second;
}

// ---- The SAX handler ----------------------------------------------------------------------------------------------

struct Scalar {
  enum class Kind { null_value, boolean, number, string } kind = Kind::null_value;
  double number = 0;
  std::optional<int64_t> integer;  // set for JSON integers that fit int64
  std::string* text = nullptr;
  bool boolean = false;
  [[nodiscard]] std::string_view type_name() const {
    switch (kind) {
      case Kind::null_value:
        return "null";
      case Kind::boolean:
        return "a boolean";
      case Kind::number:
        return "a number";
      case Kind::string:
        return "a string";
    }
    return "a value";
  }
};

struct PendingEvent {
  std::string ph, cat, name, pid, tid;
  bool has_ph = false, has_cat = false, has_name = false, has_ts = false, has_dur = false;
  double ts = 0, dur = 0;
  std::optional<int64_t> stream, correlation, device, memory_device_type, memory_device_id;
  std::optional<double> total_allocated;
  KinetoCollectiveArgs collective;
  void reset() {
    ph.clear();
    cat.clear();
    name.clear();
    pid.clear();
    tid.clear();
    has_ph = has_cat = has_name = has_ts = has_dur = false;
    ts = dur = 0;
    stream.reset();
    correlation.reset();
    device.reset();
    memory_device_type.reset();
    memory_device_id.reset();
    total_allocated.reset();
    if (!collective.empty()) collective = KinetoCollectiveArgs{};
  }
};

class TraceHandler {
 public:
  TraceHandler(KinetoTrace& trace, TrackingBuffer& buffer) : trace_(trace), buffer_(buffer) {}

  // nlohmann::json SAX interface.
  bool null() { return scalar(Scalar{}); }
  bool boolean(bool v) { return scalar(Scalar{Scalar::Kind::boolean, 0, std::nullopt, nullptr, v}); }
  bool number_integer(json::number_integer_t v) {
    return scalar(Scalar{Scalar::Kind::number, static_cast<double>(v), v, nullptr, false});
  }
  bool number_unsigned(json::number_unsigned_t v) {
    std::optional<int64_t> integer;
    if (v <= static_cast<json::number_unsigned_t>(INT64_MAX)) integer = static_cast<int64_t>(v);
    return scalar(Scalar{Scalar::Kind::number, static_cast<double>(v), integer, nullptr, false});
  }
  bool number_float(json::number_float_t v, const std::string&) {
    return scalar(Scalar{Scalar::Kind::number, v, std::nullopt, nullptr, false});
  }
  bool string(std::string& v) { return scalar(Scalar{Scalar::Kind::string, 0, std::nullopt, &v, false}); }
  bool binary(json::binary_t&) { return scalar(Scalar{}); }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    if (skip_ > 0) return true;
    if (builder_.active()) {
      builder_.key(k);
    } else if (in_args_) {
      arg_key_ = arg_key(k);
    } else if (in_event_) {
      event_key_ = event_key(k);
    } else {
      top_key_ = top_key(k);
      if (top_key_ == TopKey::trace_events) saw_trace_events_ = true;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." → "syntax error ..."
    if (const size_t column = what.find("column "); column != std::string::npos) {
      if (const size_t colon = what.find(": ", column); colon != std::string::npos) what = what.substr(colon + 2);
    }
    return fail(ErrorCode::parse_error, "invalid JSON: " + what);
  }

  [[nodiscard]] const std::optional<Error>& error() const { return error_; }
  [[nodiscard]] bool saw_root_object() const { return root_ == Root::object; }
  [[nodiscard]] bool saw_trace_events() const { return saw_trace_events_; }
  void finish();

 private:
  enum class Root { none, object, array };

  bool fail(ErrorCode code, std::string message) {
    if (!error_) error_ = Error{code, std::move(message), buffer_.location(trace_.origin)};
    return false;
  }
  std::string event_where() const { return "traceEvents[" + std::to_string(trace_.events) + "]"; }

  bool open(bool object);
  bool close();
  bool scalar(const Scalar& v);
  bool event_field(const Scalar& v);
  void arg_field(const Scalar& v);
  bool top_scalar(const Scalar& v);
  bool finish_event();
  bool finish_subtree();
  uint32_t intern(std::unordered_map<std::string, uint32_t>& index, std::vector<std::string>& table,
                  const std::string& s);

  KinetoTrace& trace_;
  TrackingBuffer& buffer_;
  std::optional<Error> error_;

  Root root_ = Root::none;
  bool in_events_ = false;
  bool in_event_ = false;
  bool in_args_ = false;
  int64_t skip_ = 0;  // depth of a subtree being skipped
  TopKey top_key_ = TopKey::other;
  TopKey subtree_key_ = TopKey::other;
  int64_t subtree_offset_ = 0;
  EventKey event_key_ = EventKey::other;
  ArgKey arg_key_ = ArgKey::other;
  bool saw_trace_events_ = false;
  SubtreeBuilder builder_;
  PendingEvent event_;

  std::unordered_map<std::string, uint32_t> name_index_;
  std::unordered_map<std::string, uint32_t> thread_index_;
  std::unordered_map<int64_t, KinetoLaunch> launches_;
  struct CategoryCount {
    int64_t count = 0;
    bool known = true;
  };
  int64_t& category_count(const std::string& cat) {
    // Traces have a handful of categories, mostly in runs: remember the last one.
    if (last_category_ == nullptr || cat != last_category_->first) {
      auto [it, inserted] = categories_.try_emplace(cat);
      if (inserted) it->second.known = is_known_kineto_category(cat);
      last_category_ = &*it;
    }
    return last_category_->second.count;
  }
  std::unordered_map<std::string, CategoryCount> categories_;
  std::pair<const std::string, CategoryCount>* last_category_ = nullptr;
  int64_t non_object_events_ = 0;
  int64_t negative_durations_ = 0;
  int64_t events_without_phase_ = 0;
};

bool TraceHandler::open(bool object) {
  if (skip_ > 0) {
    ++skip_;
    return true;
  }
  if (builder_.active()) {
    builder_.start(object ? json::object() : json::array());
    return true;
  }
  if (root_ == Root::none) {
    // The JSON Object Format of the Trace Event Format, or its JSON Array Format (a bare list of events).
    root_ = object ? Root::object : Root::array;
    if (!object) in_events_ = true;
    return true;
  }
  if (in_args_) {  // nested values inside args (grid, Input Dims, ...) are not needed
    skip_ = 1;
    return true;
  }
  if (in_event_) {
    if (object && event_key_ == EventKey::args) {
      in_args_ = true;
      arg_key_ = ArgKey::other;
    } else {
      skip_ = 1;
    }
    return true;
  }
  if (in_events_) {
    if (!object) {
      ++non_object_events_;
      ++trace_.events;
      skip_ = 1;
      return true;
    }
    in_event_ = true;
    event_key_ = EventKey::other;
    event_.reset();
    return true;
  }
  // A value of the root object.
  switch (top_key_) {
    case TopKey::trace_events:
      if (object) return fail(ErrorCode::wrong_type, "traceEvents is an object; it must be an array of events");
      in_events_ = true;
      return true;
    case TopKey::distributed_info:
    case TopKey::device_properties:
      subtree_key_ = top_key_;
      subtree_offset_ = buffer_.position();
      builder_.start(object ? json::object() : json::array());
      return true;
    default:
      skip_ = 1;
      return true;
  }
}

bool TraceHandler::close() {
  if (skip_ > 0) {
    --skip_;
    return true;
  }
  if (builder_.active()) {
    if (builder_.end()) return finish_subtree();
    return true;
  }
  if (in_args_) {
    in_args_ = false;
    return true;
  }
  if (in_event_) {
    in_event_ = false;
    return finish_event();
  }
  if (in_events_) {
    in_events_ = false;
    return true;
  }
  return true;  // the root
}

bool TraceHandler::scalar(const Scalar& v) {
  if (skip_ > 0) return true;
  if (builder_.active()) {
    switch (v.kind) {
      case Scalar::Kind::null_value:
        builder_.value(nullptr);
        break;
      case Scalar::Kind::boolean:
        builder_.value(v.boolean);
        break;
      case Scalar::Kind::number:
        if (v.integer) {
          builder_.value(*v.integer);
        } else {
          builder_.value(v.number);
        }
        break;
      case Scalar::Kind::string:
        builder_.value(*v.text);
        break;
    }
    return true;
  }
  if (in_args_) {
    arg_field(v);
    return true;
  }
  if (in_event_) return event_field(v);
  if (in_events_) {
    ++non_object_events_;
    ++trace_.events;
    return true;
  }
  if (root_ == Root::none)
    return fail(ErrorCode::wrong_type, std::string("the document is ") + std::string(v.type_name()) +
                                           "; a Kineto trace is a JSON object with a traceEvents array");
  return top_scalar(v);
}

bool TraceHandler::top_scalar(const Scalar& v) {
  switch (top_key_) {
    case TopKey::trace_events:
      return fail(ErrorCode::wrong_type,
                  "traceEvents is " + std::string(v.type_name()) + "; it must be an array of events");
    case TopKey::distributed_info:
      return fail(ErrorCode::wrong_type, "distributedInfo is " + std::string(v.type_name()) + "; expected an object");
    case TopKey::device_properties:
      return fail(ErrorCode::wrong_type, "deviceProperties is " + std::string(v.type_name()) + "; expected an array");
    case TopKey::display_time_unit:
      if (v.kind == Scalar::Kind::string) trace_.display_time_unit = *v.text;
      return true;
    case TopKey::schema_version:
      if (v.integer) trace_.schema_version = *v.integer;
      return true;
    case TopKey::base_time_ns:
      if (v.integer) trace_.base_time_ns = *v.integer;
      return true;
    case TopKey::other:
      return true;
  }
  return true;
}

bool TraceHandler::event_field(const Scalar& v) {
  const auto need_string = [&](std::string& out, bool& has, const char* field) {
    if (v.kind != Scalar::Kind::string)
      return fail(ErrorCode::wrong_type,
                  event_where() + "." + field + " is " + std::string(v.type_name()) + ", expected a string");
    out.assign(*v.text);
    has = true;
    return true;
  };
  const auto need_number = [&](double& out, bool& has, const char* field) {
    if (v.kind != Scalar::Kind::number)
      return fail(ErrorCode::wrong_type, event_where() + "." + field + " is " + std::string(v.type_name()) +
                                             ", expected a number of microseconds");
    out = v.number;
    has = true;
    return true;
  };
  const auto id_text = [&](std::string& out) {
    if (v.kind == Scalar::Kind::string) {
      out.assign(*v.text);
    } else if (v.kind == Scalar::Kind::number) {
      out = v.integer ? std::to_string(*v.integer) : std::to_string(v.number);
    }
  };
  switch (event_key_) {
    case EventKey::ph:
      return need_string(event_.ph, event_.has_ph, "ph");
    case EventKey::cat:
      return need_string(event_.cat, event_.has_cat, "cat");
    case EventKey::name:
      return need_string(event_.name, event_.has_name, "name");
    case EventKey::ts:
      return need_number(event_.ts, event_.has_ts, "ts");
    case EventKey::dur:
      return need_number(event_.dur, event_.has_dur, "dur");
    case EventKey::pid:
      id_text(event_.pid);
      return true;
    case EventKey::tid:
      id_text(event_.tid);
      return true;
    case EventKey::args:  // args that is not an object: nothing to read
    case EventKey::other:
      return true;
  }
  return true;
}

// Args are read leniently: a value of an unexpected type is as good as absent (ROCm writes "stream": "0x0" on
// runtime events, for example).
void TraceHandler::arg_field(const Scalar& v) {
  const bool is_string = v.kind == Scalar::Kind::string;
  switch (arg_key_) {
    case ArgKey::stream:
      if (v.integer) event_.stream = v.integer;
      break;
    case ArgKey::correlation:
      if (v.integer) event_.correlation = v.integer;
      break;
    case ArgKey::device:
      if (v.integer) event_.device = v.integer;
      break;
    case ArgKey::collective_name:
      if (is_string) event_.collective.collective_name = *v.text;
      break;
    case ArgKey::in_nelems:
      if (v.integer) event_.collective.in_nelems = *v.integer;
      break;
    case ArgKey::out_nelems:
      if (v.integer) event_.collective.out_nelems = *v.integer;
      break;
    case ArgKey::dtype:
      if (is_string) event_.collective.dtype = *v.text;
      break;
    case ArgKey::group_size:
      if (v.integer) event_.collective.group_size = *v.integer;
      break;
    case ArgKey::pg_name:
      if (is_string) event_.collective.process_group_name = *v.text;
      break;
    case ArgKey::pg_desc:
      if (is_string) event_.collective.process_group_description = *v.text;
      break;
    case ArgKey::pg_ranks:
      if (is_string) event_.collective.process_group_ranks = *v.text;
      break;
    case ArgKey::memory_device_type:
      if (v.integer) event_.memory_device_type = v.integer;
      break;
    case ArgKey::memory_device_id:
      if (v.integer) event_.memory_device_id = v.integer;
      break;
    case ArgKey::total_allocated:
      if (v.kind == Scalar::Kind::number) event_.total_allocated = v.number;
      break;
    case ArgKey::other:
      break;
  }
}

uint32_t TraceHandler::intern(std::unordered_map<std::string, uint32_t>& index, std::vector<std::string>& table,
                              const std::string& s) {
  const auto [it, inserted] = index.try_emplace(s, static_cast<uint32_t>(table.size()));
  if (inserted) table.push_back(s);
  return it->second;
}

bool TraceHandler::finish_event() {
  PendingEvent& e = event_;
  ++trace_.events;
  buffer_.set_events(trace_.events);
  ++category_count(e.cat);
  if (!e.has_ph) {
    ++events_without_phase_;
    return true;
  }
  if (e.ph == "X") {  // a complete event: ts and dur are required (Trace Event Format)
    const auto where = [&] { return "traceEvents[" + std::to_string(trace_.events - 1) + "]"; };
    if (!e.has_ts) return fail(ErrorCode::missing_field, where() + " (\"" + e.name + "\") has no \"ts\"");
    if (!e.has_dur) return fail(ErrorCode::missing_field, where() + " (\"" + e.name + "\") has no \"dur\"");
    if (!std::isfinite(e.ts) || !std::isfinite(e.dur))
      return fail(ErrorCode::invalid_argument, where() + " (\"" + e.name + "\") has a non-finite ts or dur");
    if (const auto activity = kineto_device_activity(e.cat)) {
      if (e.dur < 0) {
        ++negative_durations_;
        return true;
      }
      KinetoDeviceEvent d;
      d.name = intern(name_index_, trace_.names, e.name);
      d.activity = *activity;
      d.ts_us = e.ts;
      d.dur_us = e.dur;
      d.correlation = e.correlation.value_or(-1);
      d.stream = e.stream.value_or(-1);
      d.device = e.device.value_or(-1);
      if (!e.collective.empty()) {
        d.collective = static_cast<int32_t>(trace_.collective_args.size());
        trace_.collective_args.push_back(e.collective);
      }
      trace_.device_events.push_back(d);
      return true;
    }
    if (const auto number = kineto_profiler_step_number(e.name))
      trace_.steps.push_back(KinetoStepSpan{e.name, *number, e.ts, e.dur, e.cat == "gpu_user_annotation"});
    if (e.cat == "gpu_user_annotation") return true;
    const bool launch = e.correlation.has_value();
    const bool comm = is_kineto_cpu_comm_span(e.name);
    if (launch || comm) {
      const uint32_t thread = intern(thread_index_, trace_.threads, e.pid + "/" + e.tid);
      if (launch) {
        const auto [it, inserted] = launches_.try_emplace(*e.correlation, KinetoLaunch{*e.correlation, e.ts, thread});
        if (!inserted && e.ts < it->second.ts_us) it->second = KinetoLaunch{*e.correlation, e.ts, thread};
      }
      if (comm) trace_.cpu_comm_spans.push_back(KinetoCpuCommSpan{e.name, thread, e.ts, e.dur, e.collective});
    }
    return true;
  }
  if ((e.ph == "i" || e.ph == "I") && e.name == "[memory]") {
    ++trace_.memory_events;
    if (e.total_allocated) {
      // "Device Type" is a c10::DeviceType: 0 CPU, 1 CUDA (ROCm builds report CUDA too).
      const int64_t device = e.memory_device_type.value_or(0) == 0 ? -1 : e.memory_device_id.value_or(-1);
      double& peak = trace_.peak_allocated_bytes[device];
      peak = std::max(peak, *e.total_allocated);
    }
  }
  return true;
}

bool TraceHandler::finish_subtree() {
  const json subtree = builder_.take();
  const std::string where = trace_.origin + " (byte " + std::to_string(subtree_offset_) +
                            "): " + (subtree_key_ == TopKey::distributed_info ? "distributedInfo" : "deviceProperties");
  if (subtree_key_ == TopKey::distributed_info) {
    auto info = kineto_distributed_info_from_json(subtree, where);
    if (!info) {
      error_ = info.error();
      return false;
    }
    trace_.distributed = std::move(*info);
    trace_.has_distributed_info = true;
  } else {
    auto devices = kineto_devices_from_json(subtree, where);
    if (!devices) {
      error_ = devices.error();
      return false;
    }
    trace_.devices = std::move(*devices);
  }
  return true;
}

void TraceHandler::finish() {
  trace_.launches.reserve(launches_.size());
  for (const auto& [correlation, launch] : launches_) trace_.launches.push_back(launch);
  std::sort(trace_.launches.begin(), trace_.launches.end(),
            [](const KinetoLaunch& a, const KinetoLaunch& b) { return a.correlation < b.correlation; });
  std::vector<std::string> cats;
  for (const auto& [cat, c] : categories_) {
    trace_.events_by_category[cat] = c.count;
    if (c.known) continue;
    trace_.unknown_category_events += c.count;
    cats.push_back("\"" + cat + "\" (" + std::to_string(c.count) + ")");
  }
  if (!cats.empty()) {
    std::sort(cats.begin(), cats.end());
    std::string list;
    for (const auto& c : cats) list += (list.empty() ? "" : ", ") + c;
    trace_.warnings.push_back({"events of unknown categories counted as other: " + list, -1});
  }
  if (non_object_events_ > 0)
    trace_.warnings.push_back({std::to_string(non_object_events_) + " traceEvents entries are not objects", -1});
  if (events_without_phase_ > 0)
    trace_.warnings.push_back({std::to_string(events_without_phase_) + " events have no \"ph\" and were ignored", -1});
  if (negative_durations_ > 0)
    trace_.warnings.push_back(
        {std::to_string(negative_durations_) + " GPU events with a negative duration were ignored", -1});
}

}  // namespace

Result<KinetoTrace> parse_kineto_trace(KinetoByteSource& source, const std::string& origin,
                                       const KinetoProgressCallback& progress) {
  KinetoTrace trace;
  trace.origin = origin;
  TrackingBuffer buffer(source, progress);
  TraceHandler handler(trace, buffer);
  std::istream in(&buffer);
  bool ok = false;
  try {
    ok = json::sax_parse(in, &handler, json::input_format_t::json, true, false);
  } catch (const json::exception& e) {
    return make_error(ErrorCode::parse_error, std::string("invalid JSON: ") + e.what(), buffer.location(origin));
  }
  if (buffer.cancelled()) return make_error(ErrorCode::io_error, kKinetoCancelled, origin);
  if (const auto& read_error = buffer.read_error()) {
    return make_error(read_error->code, read_error->message, buffer.location(origin));
  }
  trace.json_bytes = buffer.position();
  if (trace.json_bytes == 0)
    return make_error(ErrorCode::parse_error,
                      source.compressed() ? "the gzip file decompresses to nothing; expected a Kineto trace (JSON)"
                                          : "the file is empty; expected a Kineto trace (JSON)",
                      origin);
  if (handler.error()) return tl::unexpected(*handler.error());
  if (!ok) return make_error(ErrorCode::parse_error, "invalid JSON", buffer.location(origin));
  if (handler.saw_root_object() && !handler.saw_trace_events())
    return make_error(ErrorCode::missing_field, "no \"traceEvents\": this JSON object is not a Chrome/Kineto trace",
                      origin);
  handler.finish();
  return trace;
}

}  // namespace meshscope

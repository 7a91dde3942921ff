// Streaming reader of Kineto traces: bytes from a KinetoByteSource (kineto.cpp: a stream, or a file through zlib) →
// the importer's JSON cursor (kineto_json_cursor.hpp: a buffer of about one chunk, checked and scanned in place) → a
// reader that knows the shape of a trace and keeps the events the analysis needs. Each element of traceEvents and
// each member of the root object is one unit of the cursor, read whole or read again after the next chunk arrives.
// Only distributedInfo and deviceProperties (small by construction) are built as JSON values; traceEvents never is.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/importers/kineto.hpp"
#include "core/importers/kineto_json_cursor.hpp"
#include "core/importers/kineto_json_subtree.hpp"
#include "core/importers/kineto_keys.hpp"

namespace meshscope {
namespace {

using json = nlohmann::json;
using kineto_json::Number;
using kineto_json::Scalar;
using kineto_keys::arg_key;
using kineto_keys::ArgKey;
using kineto_keys::event_key;
using kineto_keys::EventKey;
using kineto_keys::is;
using kineto_keys::top_key;
using kineto_keys::TopKey;

constexpr std::ptrdiff_t kMaxMetadataBytes = std::ptrdiff_t{16} << 20;

// ---- One event, as read ----------------------------------------------------------------------------------------

// "pid" / "tid" as written: a string, or a number (spelt as std::to_string spells it when a thread key is needed).
struct EventId {
  enum class Kind { none, text, number } kind = Kind::none;
  std::string_view text;
  Number number;
};

void append_id(std::string& out, const EventId& id) {
  switch (id.kind) {
    case EventId::Kind::text:
      out += id.text;
      break;
    case EventId::Kind::number:
      out += id.number.integer ? std::to_string(*id.number.integer) : std::to_string(id.number.value);
      break;
    case EventId::Kind::none:
      break;
  }
}

// The fields of the event being read. Strings view the cursor's buffer (or the storage beside them when they hold
// escapes), which is valid until the event is finished.
struct PendingEvent {
  std::string_view ph, cat, name;
  std::string ph_storage, cat_storage, name_storage, pid_storage, tid_storage;
  EventId pid, tid;
  bool has_ph = false, has_cat = false, has_name = false, has_ts = false, has_dur = false;
  bool repeated_key = false;  // ph, cat, name, ts or dur given twice: the last one counts
  double ts = 0, dur = 0;
  std::optional<int64_t> stream, correlation, device, memory_device_type, memory_device_id;
  std::optional<double> total_allocated;
  KinetoCollectiveArgs collective;
  bool collective_touched = false;
  void reset() {
    ph = cat = name = {};
    pid = tid = EventId{};
    has_ph = has_cat = has_name = has_ts = has_dur = repeated_key = false;
    ts = dur = 0;
    stream.reset();
    correlation.reset();
    device.reset();
    memory_device_type.reset();
    memory_device_id.reset();
    total_allocated.reset();
    if (collective_touched) {
      collective = KinetoCollectiveArgs{};
      collective_touched = false;
    }
  }
};

// Hash maps keyed by std::string that are searched with string_views (C++20 heterogeneous lookup).
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// ---- The reader -----------------------------------------------------------------------------------------------------

class TraceReader : private kineto_json::Cursor {
 public:
  TraceReader(KinetoByteSource& source, KinetoTrace& trace, const KinetoProgressCallback& progress)
      : Cursor(source, trace.origin), source_(source), trace_(trace), progress_(progress) {}

  // Reads the whole document, or up to the first error, read error or cancellation.
  void run();
  // Completes the trace after a successful run.
  void finish();

  using Cursor::bytes_read;
  using Cursor::failure;
  using Cursor::location;
  [[nodiscard]] bool cancelled() const { return cancelled_; }
  [[nodiscard]] const std::optional<Error>& read_error() const { return read_error_; }
  [[nodiscard]] bool saw_root_object() const { return root_ == Root::object; }
  [[nodiscard]] bool saw_trace_events() const { return saw_trace_events_; }
  // Bytes of the document read when it ended: the whole input, or up to a NUL byte after the root value.
  [[nodiscard]] int64_t document_bytes() const { return state_ == State::done ? document_bytes_ : bytes_read(); }

 private:
  enum class Root { none, object, array };
  enum class State { start, first_member, next_member, first_event, next_event, after_root, done };

  bool fill_buffer();
  bool step();
  bool start();
  bool members();
  bool top_value(TopKey key);
  bool subtree(TopKey key);
  bool events();
  bool event();
  bool event_value(EventKey key);
  bool string_field(std::string_view& out, std::string& storage, bool& has, const char* field);
  bool number_field(double& out, bool& has, const char* field);
  bool id_field(EventId& out, std::string& storage);
  bool args();
  bool arg_value(ArgKey key);
  bool after_root();
  bool finish_event();
  bool wrong_type(const std::string& what, const Scalar& v, const std::string& expected) {
    return fail(ErrorCode::wrong_type, what + " is " + std::string(v.type_name()) + expected, offset(p()));
  }
  [[nodiscard]] std::string event_where() const { return "traceEvents[" + std::to_string(trace_.events) + "]"; }
  static uint32_t intern(StringMap<uint32_t>& index, std::vector<std::string>& table, std::string_view s);

  KinetoByteSource& source_;
  KinetoTrace& trace_;
  const KinetoProgressCallback& progress_;
  bool cancelled_ = false;
  std::optional<Error> read_error_;

  State state_ = State::start;
  Root root_ = Root::none;
  bool saw_trace_events_ = false;
  int64_t document_bytes_ = 0;
  PendingEvent event_;
  std::string key_storage_;
  std::string scratch_;
  std::string thread_key_;

  StringMap<uint32_t> name_index_;
  StringMap<uint32_t> thread_index_;
  std::vector<KinetoLaunch> launches_;  // every CPU event with a correlation, in file order
  struct CategoryCount {
    int64_t count = 0;
    bool known = true;
  };
  int64_t& category_count(std::string_view cat) {
    // Traces have a handful of categories, mostly in runs: remember the last one.
    if (last_category_ == nullptr || cat != last_category_->first) {
      auto it = categories_.find(cat);
      if (it == categories_.end())
        it = categories_.emplace(std::string(cat), CategoryCount{0, is_known_kineto_category(cat)}).first;
      last_category_ = &*it;
    }
    return last_category_->second.count;
  }
  StringMap<CategoryCount> categories_;
  std::pair<const std::string, CategoryCount>* last_category_ = nullptr;
  int64_t non_object_events_ = 0;
  int64_t negative_durations_ = 0;
  int64_t events_without_phase_ = 0;
  int64_t events_with_repeated_keys_ = 0;
};

void TraceReader::run() {
  if (!fill_buffer()) return;
  while (state_ != State::done) {
    if (step()) continue;
    if (!need_more()) return;  // failed
    if (at_eof()) {            // cannot happen: at the end of the input running out of data is a syntax error
      fail(ErrorCode::parse_error, "invalid JSON: unexpected end of input", bytes_read());
      return;
    }
    // A unit is held whole in the buffer: bound it, so that one endless event or member cannot take all memory.
    if (unit_bytes() >= kKinetoMaxUnitBytes) {
      const bool in_events = state_ == State::first_event || state_ == State::next_event;
      fail(ErrorCode::invalid_argument,
           (in_events ? event_where() : std::string("a member of the root object")) + " is larger than " +
               std::to_string(kKinetoMaxUnitBytes >> 20) +
               " MiB; no event or metadata member of a Kineto trace is anywhere near that (the file is damaged or "
               "not a profiler trace)",
           unit_offset() + 1);
      return;
    }
    if (!fill_buffer()) return;
  }
}

bool TraceReader::fill_buffer() {
  auto n = fill(kKinetoMaxUnitBytes);
  if (!n) {
    read_error_ = n.error();
    return false;
  }
  if (*n > 0 && progress_ &&
      !progress_(KinetoProgress{source_.input_bytes_read(), source_.input_bytes_total(), trace_.events})) {
    cancelled_ = true;
    return false;
  }
  return true;
}

bool TraceReader::step() {
  switch (state_) {
    case State::start:
      return start();
    case State::first_member:
    case State::next_member:
      return members();
    case State::first_event:
    case State::next_event:
      return events();
    case State::after_root:
      return after_root();
    case State::done:
      return true;
  }
  return true;
}

bool TraceReader::start() {
  begin_unit();
  if (!skip_byte_order_mark()) return false;
  skip_whitespace();
  if (peek() == '{') {
    // The JSON Object Format of the Trace Event Format, or its JSON Array Format (a bare list of events).
    advance();
    root_ = Root::object;
    state_ = State::first_member;
    return true;
  }
  if (peek() == '[') {
    advance();
    root_ = Root::array;
    state_ = State::first_event;
    return true;
  }
  Scalar v;
  if (!scalar(v, scratch_)) return false;
  return wrong_type("the document", v, "; a Kineto trace is a JSON object with a traceEvents array");
}

// Members of the root object, one unit each; traceEvents hands over to events() at its '['.
bool TraceReader::members() {
  for (;;) {
    begin_unit();
    skip_whitespace();
    if (peek() == '}') {
      advance();
      state_ = State::after_root;
      return true;
    }
    if (state_ == State::next_member) {
      if (peek() != ',') return unexpected(p(), "',' or '}'");
      advance();
      skip_whitespace();
    }
    if (peek() != '"') return unexpected(p(), "a string (an object key)");
    std::string_view key_text;
    if (!string(key_text, key_storage_)) return false;
    if (!consume(':', "':'")) return false;
    skip_whitespace();
    const TopKey key = top_key(key_text);
    if (key == TopKey::trace_events) {
      saw_trace_events_ = true;
      if (peek() == '[') {
        advance();
        state_ = State::first_event;
        return true;
      }
      if (peek() == '{')
        return fail(ErrorCode::wrong_type, "traceEvents is an object; it must be an array of events", offset(p()) + 1);
      Scalar v;
      if (!scalar(v, scratch_)) return false;
      return wrong_type("traceEvents", v, "; it must be an array of events");
    }
    if (!top_value(key)) return false;
    state_ = State::next_member;
  }
}

bool TraceReader::top_value(TopKey key) {
  const char c = peek();
  const bool container = c == '{' || c == '[';
  switch (key) {
    case TopKey::distributed_info:
    case TopKey::device_properties: {
      if (container) return subtree(key);
      Scalar v;
      if (!scalar(v, scratch_)) return false;
      return key == TopKey::distributed_info ? wrong_type("distributedInfo", v, "; expected an object")
                                             : wrong_type("deviceProperties", v, "; expected an array");
    }
    case TopKey::display_time_unit:
      if (c == '"') {
        std::string_view text;
        if (!string(text, scratch_)) return false;
        trace_.display_time_unit = text;
        return true;
      }
      return skip_value();
    case TopKey::schema_version:
    case TopKey::base_time_ns:
      if (c == '-' || (c >= '0' && c <= '9')) {
        Number n;
        if (!number(n)) return false;
        if (n.integer && key == TopKey::schema_version) trace_.schema_version = *n.integer;
        if (n.integer && key == TopKey::base_time_ns) trace_.base_time_ns = *n.integer;
        return true;
      }
      return skip_value();
    case TopKey::trace_events:
    case TopKey::other:
      return skip_value();
  }
  return skip_value();
}

bool TraceReader::subtree(TopKey key) {
  const char* const begin = p();
  const int64_t opened = offset(begin) + 1;  // the location names the byte after the '{' or '['
  if (!skip_value()) return false;
  // Built as a JSON value, which takes several times its text: bounded tighter than other members.
  if (p() - begin > kMaxMetadataBytes)
    return fail(ErrorCode::invalid_argument,
                std::string(key == TopKey::distributed_info ? "distributedInfo" : "deviceProperties") +
                    " is larger than " + std::to_string(kMaxMetadataBytes >> 20) +
                    " MiB; a profiler writes a few kilobytes (ranks of each process group, one entry per GPU)",
                opened);
  json value;
  try {
    value = kineto_json::build_subtree(begin, p());
  } catch (const json::exception& e) {  // not expected: the cursor has checked these bytes
    return fail(ErrorCode::parse_error, std::string("invalid JSON: ") + e.what(), opened);
  }
  const std::string where = trace_.origin + " (byte " + std::to_string(opened) +
                            "): " + (key == TopKey::distributed_info ? "distributedInfo" : "deviceProperties");
  if (key == TopKey::distributed_info) {
    auto info = kineto_distributed_info_from_json(value, where);
    if (!info) return fail(info.error());
    trace_.distributed = std::move(*info);
    trace_.has_distributed_info = true;
  } else {
    auto devices = kineto_devices_from_json(value, where);
    if (!devices) return fail(devices.error());
    trace_.devices = std::move(*devices);
  }
  return true;
}

// Elements of traceEvents, one unit each (with the ',' before it).
bool TraceReader::events() {
  for (;;) {
    begin_unit();
    skip_whitespace();
    if (peek() == ']') {
      advance();
      state_ = root_ == Root::array ? State::after_root : State::next_member;
      return true;
    }
    if (state_ == State::next_event) {
      if (peek() != ',') return unexpected(p(), "',' or ']'");
      advance();
      skip_whitespace();
    }
    if (peek() == '{') {
      if (!event()) return false;
    } else {
      if (!skip_value()) return false;
      ++non_object_events_;
      ++trace_.events;
    }
    state_ = State::next_event;
  }
}

bool TraceReader::event() {
  event_.reset();
  advance();  // '{'
  skip_whitespace();
  if (peek() == '}') {
    advance();
    return finish_event();
  }
  for (;;) {
    if (peek() != '"') return unexpected(p(), "a string (an object key)");
    std::string_view key;
    if (!string(key, key_storage_)) return false;
    if (!consume(':', "':'")) return false;
    skip_whitespace();
    if (!event_value(event_key(key))) return false;
    skip_whitespace();
    if (peek() == ',') {
      advance();
      skip_whitespace();
      continue;
    }
    if (peek() == '}') {
      advance();
      return finish_event();
    }
    return unexpected(p(), "',' or '}'");
  }
}

bool TraceReader::event_value(EventKey key) {
  const char c = peek();
  if (c == '{' || c == '[') {  // args is read when it is an object; other containers are not needed
    if (key == EventKey::args && c == '{') return args();
    return skip_value();
  }
  PendingEvent& e = event_;
  switch (key) {
    case EventKey::ph:
      return string_field(e.ph, e.ph_storage, e.has_ph, "ph");
    case EventKey::cat:
      return string_field(e.cat, e.cat_storage, e.has_cat, "cat");
    case EventKey::name:
      return string_field(e.name, e.name_storage, e.has_name, "name");
    case EventKey::ts:
      return number_field(e.ts, e.has_ts, "ts");
    case EventKey::dur:
      return number_field(e.dur, e.has_dur, "dur");
    case EventKey::pid:
      return id_field(e.pid, e.pid_storage);
    case EventKey::tid:
      return id_field(e.tid, e.tid_storage);
    case EventKey::args:  // args that is not an object: nothing to read
    case EventKey::other:
      return skip_value();
  }
  return skip_value();
}

bool TraceReader::string_field(std::string_view& out, std::string& storage, bool& has, const char* field) {
  if (peek() == '"') {
    if (!string(out, storage)) return false;
    if (has) event_.repeated_key = true;
    has = true;
    return true;
  }
  Scalar v;
  if (!scalar(v, scratch_)) return false;
  return wrong_type(event_where() + "." + field, v, ", expected a string");
}

bool TraceReader::number_field(double& out, bool& has, const char* field) {
  const char c = peek();
  if (c == '-' || (c >= '0' && c <= '9')) {
    Number n;
    if (!number(n)) return false;
    out = n.value;
    if (has) event_.repeated_key = true;
    has = true;
    return true;
  }
  Scalar v;
  if (!scalar(v, scratch_)) return false;
  return wrong_type(event_where() + "." + field, v, ", expected a number of microseconds");
}

bool TraceReader::id_field(EventId& out, std::string& storage) {
  Scalar v;
  if (!scalar(v, storage)) return false;
  if (v.kind == Scalar::Kind::string) {
    out.kind = EventId::Kind::text;
    out.text = v.text;
  } else if (v.kind == Scalar::Kind::number) {
    out.kind = EventId::Kind::number;
    out.number = v.number;
  }
  return true;
}

bool TraceReader::args() {
  advance();  // '{'
  skip_whitespace();
  if (peek() == '}') {
    advance();
    return true;
  }
  for (;;) {
    if (peek() != '"') return unexpected(p(), "a string (an object key)");
    std::string_view key;
    if (!string(key, key_storage_)) return false;
    if (!consume(':', "':'")) return false;
    skip_whitespace();
    if (!arg_value(arg_key(key))) return false;
    skip_whitespace();
    if (peek() == ',') {
      advance();
      skip_whitespace();
      continue;
    }
    if (peek() == '}') {
      advance();
      return true;
    }
    return unexpected(p(), "',' or '}'");
  }
}

// Args are read leniently: a value of an unexpected type is as good as absent (ROCm writes "stream": "0x0" on
// runtime events, for example).
bool TraceReader::arg_value(ArgKey key) {
  const char c = peek();
  if (key == ArgKey::other || c == '{' || c == '[') return skip_value();
  Scalar v;
  if (!scalar(v, scratch_)) return false;
  PendingEvent& e = event_;
  const bool is_string = v.kind == Scalar::Kind::string;
  const std::optional<int64_t>& integer = v.number.integer;
  const bool is_integer = v.kind == Scalar::Kind::number && integer.has_value();
  KinetoCollectiveArgs& collective = e.collective;
  switch (key) {
    case ArgKey::stream:
      if (is_integer) e.stream = integer;
      break;
    case ArgKey::correlation:
      if (is_integer) e.correlation = integer;
      break;
    case ArgKey::device:
      if (is_integer) e.device = integer;
      break;
    case ArgKey::memory_device_type:
      if (is_integer) e.memory_device_type = integer;
      break;
    case ArgKey::memory_device_id:
      if (is_integer) e.memory_device_id = integer;
      break;
    case ArgKey::total_allocated:
      if (v.kind == Scalar::Kind::number) e.total_allocated = v.number.value;
      break;
    case ArgKey::collective_name:
      if (is_string) collective.collective_name = v.text;
      break;
    case ArgKey::in_nelems:
      if (is_integer) collective.in_nelems = *integer;
      break;
    case ArgKey::out_nelems:
      if (is_integer) collective.out_nelems = *integer;
      break;
    case ArgKey::dtype:
      if (is_string) collective.dtype = v.text;
      break;
    case ArgKey::group_size:
      if (is_integer) collective.group_size = *integer;
      break;
    case ArgKey::pg_name:
      if (is_string) collective.process_group_name = v.text;
      break;
    case ArgKey::pg_desc:
      if (is_string) collective.process_group_description = v.text;
      break;
    case ArgKey::pg_ranks:
      if (is_string) collective.process_group_ranks = v.text;
      break;
    case ArgKey::other:
      break;
  }
  if (key != ArgKey::stream && key != ArgKey::correlation && key != ArgKey::device &&
      key != ArgKey::memory_device_type && key != ArgKey::memory_device_id && key != ArgKey::total_allocated)
    e.collective_touched = true;
  return true;
}

bool TraceReader::after_root() {
  begin_unit();
  skip_whitespace();
  if (at_end_of_data()) {
    if (!at_eof()) return out_of_data(p());  // more whitespace, or something that does not belong, may follow
    document_bytes_ = bytes_read();
    state_ = State::done;
    return true;
  }
  if (peek() == '\0') {  // nlohmann::json reads a NUL byte as the end of the input: NUL padding after a trace is fine
    document_bytes_ = offset(p()) + 1;
    state_ = State::done;
    return true;
  }
  return unexpected(p(), "the end of the document");
}

uint32_t TraceReader::intern(StringMap<uint32_t>& index, std::vector<std::string>& table, std::string_view s) {
  if (const auto it = index.find(s); it != index.end()) return it->second;
  const auto id = static_cast<uint32_t>(table.size());
  table.emplace_back(s);
  index.emplace(table.back(), id);
  return id;
}

bool TraceReader::finish_event() {
  PendingEvent& e = event_;
  ++trace_.events;
  ++category_count(e.cat);
  if (e.repeated_key) ++events_with_repeated_keys_;
  if (!e.has_ph) {
    ++events_without_phase_;
    return true;
  }
  if (is(e.ph, "X")) {  // a complete event: ts and dur are required (Trace Event Format)
    const auto where = [&] {
      return "traceEvents[" + std::to_string(trace_.events - 1) + "] (\"" + std::string(e.name);
    };
    if (!e.has_ts) return fail(ErrorCode::missing_field, where() + "\") has no \"ts\"", offset(p()));
    if (!e.has_dur) return fail(ErrorCode::missing_field, where() + "\") has no \"dur\"", offset(p()));
    if (!std::isfinite(e.ts) || !std::isfinite(e.dur))
      return fail(ErrorCode::invalid_argument, where() + "\") has a non-finite ts or dur", offset(p()));
    // Microseconds from the profiler's clock: beyond ±285 years is not a time, and would overflow the analysis's
    // integer nanoseconds.
    if (std::fabs(e.ts) > kKinetoMaxTimeUs || std::fabs(e.dur) > kKinetoMaxTimeUs ||
        std::fabs(e.ts + e.dur) > kKinetoMaxTimeUs) {
      char values[96];
      std::snprintf(values, sizeof values, "ts = %.15g, dur = %.15g", e.ts, e.dur);
      return fail(ErrorCode::invalid_argument,
                  where() + "\") has " + values + " µs, beyond ±9e15 µs (285 years): not a profiler time", offset(p()));
    }
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
        if (trace_.collective_args.size() >= static_cast<size_t>(INT32_MAX))
          return fail(ErrorCode::invalid_argument, "more than 2^31 GPU events with collective args", offset(p()));
        d.collective = static_cast<int32_t>(trace_.collective_args.size());
        trace_.collective_args.push_back(e.collective);
      }
      trace_.device_events.push_back(d);
      return true;
    }
    if (const auto number = kineto_profiler_step_number(e.name))
      trace_.steps.push_back(
          KinetoStepSpan{std::string(e.name), *number, e.ts, e.dur, is(e.cat, "gpu_user_annotation")});
    if (is(e.cat, "gpu_user_annotation")) return true;
    const bool launch = e.correlation.has_value();
    const bool comm = is_kineto_cpu_comm_span(e.name);
    if (launch || comm) {
      thread_key_.clear();
      append_id(thread_key_, e.pid);
      thread_key_ += '/';
      append_id(thread_key_, e.tid);
      const uint32_t thread = intern(thread_index_, trace_.threads, thread_key_);
      if (launch) launches_.push_back(KinetoLaunch{*e.correlation, e.ts, thread, e.dur});
      if (comm)
        trace_.cpu_comm_spans.push_back(KinetoCpuCommSpan{std::string(e.name), thread, e.ts, e.dur, e.collective});
    }
    return true;
  }
  if ((is(e.ph, "i") || is(e.ph, "I")) && is(e.name, "[memory]")) {
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

void TraceReader::finish() {
  // One launch per correlation id: the earliest, and of equal ones the first in the file (a stable sort keeps file
  // order among equals).
  std::stable_sort(launches_.begin(), launches_.end(), [](const KinetoLaunch& a, const KinetoLaunch& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.ts_us < b.ts_us;
  });
  trace_.launches.clear();
  for (const KinetoLaunch& launch : launches_)
    if (trace_.launches.empty() || trace_.launches.back().correlation != launch.correlation)
      trace_.launches.push_back(launch);
  launches_ = {};
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
  if (events_with_repeated_keys_ > 0)
    trace_.warnings.push_back({std::to_string(events_with_repeated_keys_) +
                                   " events repeat one of the keys ph, cat, name, ts, dur; the last value was used "
                                   "(as nlohmann::json and Python's json do)",
                               -1});
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
  TraceReader reader(source, trace, progress);
  reader.run();
  if (reader.cancelled()) return make_error(ErrorCode::io_error, kKinetoCancelled, origin);
  if (const auto& read_error = reader.read_error())
    return make_error(read_error->code, read_error->message, reader.location(reader.bytes_read()));
  trace.json_bytes = reader.document_bytes();
  if (trace.json_bytes == 0)
    return make_error(ErrorCode::parse_error,
                      source.compressed() ? "the gzip file decompresses to nothing; expected a Kineto trace (JSON)"
                                          : "the file is empty; expected a Kineto trace (JSON)",
                      origin);
  if (const auto& failure = reader.failure()) return tl::unexpected(*failure);
  if (reader.saw_root_object() && !reader.saw_trace_events())
    return make_error(ErrorCode::missing_field, "no \"traceEvents\": this JSON object is not a Chrome/Kineto trace",
                      origin);
  reader.finish();
  return trace;
}

}  // namespace meshscope

// The keys of a Kineto trace that the streaming reader (kineto_parse.cpp) acts on: the root object's members, an
// event's fields, and the args of kernels, collectives and memory events. Every key of every event passes through
// these, so they compare lengths first and are inline.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace meshscope::kineto_keys {

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

// k == literal, with the length known to the compiler: a load or two instead of a call to memcmp.
template <size_t N>
bool is(std::string_view k, const char (&literal)[N]) {
  return k.size() == N - 1 && std::memcmp(k.data(), literal, N - 1) == 0;
}

inline TopKey top_key(std::string_view k) {
  if (k == "traceEvents") return TopKey::trace_events;
  if (k == "distributedInfo") return TopKey::distributed_info;
  if (k == "deviceProperties") return TopKey::device_properties;
  if (k == "displayTimeUnit") return TopKey::display_time_unit;
  if (k == "schemaVersion") return TopKey::schema_version;
  if (k == "baseTimeNanoseconds") return TopKey::base_time_ns;
  return TopKey::other;
}

inline EventKey event_key(std::string_view k) {
  switch (k.size()) {
    case 2:
      if (is(k, "ph")) return EventKey::ph;
      if (is(k, "ts")) return EventKey::ts;
      break;
    case 3:
      if (is(k, "cat")) return EventKey::cat;
      if (is(k, "dur")) return EventKey::dur;
      if (is(k, "pid")) return EventKey::pid;
      if (is(k, "tid")) return EventKey::tid;
      break;
    case 4:
      if (is(k, "name")) return EventKey::name;
      if (is(k, "args")) return EventKey::args;
      break;
    default:
      break;
  }
  return EventKey::other;
}

// Every event has args, most of them keys read by nobody ("External id", "Input Dims", ...): a switch on the length
// rejects those with at most a few comparisons.
inline ArgKey arg_key(std::string_view k) {
  switch (k.size()) {
    case 5:
      if (is(k, "dtype")) return ArgKey::dtype;
      break;
    case 6:
      if (is(k, "stream")) return ArgKey::stream;
      if (is(k, "device")) return ArgKey::device;
      break;
    case 9:
      if (is(k, "Device Id")) return ArgKey::memory_device_id;
      break;
    case 10:
      if (is(k, "Group size")) return ArgKey::group_size;
      break;
    case 11:
      if (is(k, "correlation")) return ArgKey::correlation;
      if (is(k, "Device Type")) return ArgKey::memory_device_type;
      break;
    case 13:
      if (is(k, "In msg nelems")) return ArgKey::in_nelems;
      break;
    case 14:
      if (is(k, "Out msg nelems")) return ArgKey::out_nelems;
      break;
    case 15:
      if (is(k, "Collective name")) return ArgKey::collective_name;
      if (is(k, "Total Allocated")) return ArgKey::total_allocated;
      break;
    case 18:
      if (is(k, "Process Group Name")) return ArgKey::pg_name;
      break;
    case 19:
      if (is(k, "Process Group Ranks")) return ArgKey::pg_ranks;
      break;
    case 25:
      if (is(k, "Process Group Description")) return ArgKey::pg_desc;
      break;
    default:
      break;
  }
  return ArgKey::other;
}

}  // namespace meshscope::kineto_keys

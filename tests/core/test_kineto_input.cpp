// PyTorch profiler (Kineto) trace import: broken inputs (truncated and corrupt gzip, invalid JSON,
// wrong types, non-traces) and the streaming reader (pieces of any size, large members, escapes),
// on variants derived from the real traces in ../shared/data/kineto_traces.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/importers/kineto.hpp"
#include "kineto_test_support.hpp"

using namespace meshscope;
using namespace meshscope::test::kineto;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

const std::string kSmall = "hta_mi250_minitoy_train_ROCm6.2.json.gz";

int64_t line_of(const std::string& text, size_t offset) {
  return 1 + static_cast<int64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

Error load_error(const std::string& name, const std::string& bytes) {
  const TempFile file(name, bytes);
  auto trace = load_kineto_trace(file.path);
  if (trace) FAIL("expected an error for " + name);
  CHECK_THAT(trace.error().location, Contains(file.path));
  return trace.error();
}

}  // namespace

TEST_CASE("kineto: a truncated gzip file is an error at the byte where the data stops", "[kineto]") {
  const std::string gz = read_bytes(trace_path(kSmall));
  const double fraction = GENERATE(0.1, 0.5, 0.99);
  const std::string cut = gz.substr(0, static_cast<size_t>(static_cast<double>(gz.size()) * fraction));
  const Error e = load_error("truncated.json.gz", cut);
  CHECK(e.code == ErrorCode::io_error);
  CHECK_THAT(e.message, Contains("truncated"));
  CHECK_THAT(e.location, Contains("of the uncompressed JSON"));
}

TEST_CASE("kineto: corrupt gzip data is an error, never a crash", "[kineto]") {
  std::string gz = read_bytes(trace_path(kSmall));
  std::mt19937 rng(42);
  for (size_t i = gz.size() / 3; i < gz.size() / 3 + 64; ++i) gz[i] = static_cast<char>(rng());
  const Error e = load_error("corrupt.json.gz", gz);
  CHECK((e.code == ErrorCode::io_error || e.code == ErrorCode::parse_error));
}

TEST_CASE("kineto: invalid JSON is an error at its line and byte", "[kineto]") {
  const std::string json = gunzip(trace_path(kSmall));
  SECTION("a stray character") {
    std::string broken = json;
    const size_t at = broken.find("\"cat\": \"kernel\"");
    broken.insert(at, "@");
    const Error e = load_error("stray.json", broken);
    CHECK(e.code == ErrorCode::parse_error);
    CHECK_THAT(e.message, Contains("invalid JSON"));
    CHECK_THAT(e.location, Contains(":" + std::to_string(line_of(broken, at)) + ":"));
    CHECK_THAT(e.location, Contains("(byte " + std::to_string(at + 1) + ")"));
  }
  SECTION("the document stops half way") {
    const std::string half = json.substr(0, json.size() / 2);
    const Error e = load_error("half.json", half);
    CHECK(e.code == ErrorCode::parse_error);
    CHECK_THAT(e.message, Contains("invalid JSON"));
    CHECK_THAT(e.location, Contains("(byte " + std::to_string(half.size()) + ")"));
  }
  SECTION("the same, compressed") {
    const Error e = load_error("half.json.gz", gzip(json.substr(0, json.size() / 2)));
    CHECK(e.code == ErrorCode::parse_error);
    CHECK_THAT(e.location, Contains("of the uncompressed JSON"));
  }
  SECTION("trailing garbage after the document") {
    const Error e = load_error("trailing.json", json + "\n}{");
    CHECK(e.code == ErrorCode::parse_error);
  }
}

TEST_CASE("kineto: a field of the wrong type is an error naming the event", "[kineto]") {
  std::string json = gunzip(trace_path(kSmall));
  const size_t at = json.find("\"dur\": ");
  json.replace(at, 7, "\"dur\": \"soon\", \"old_dur\": ");
  const Error e = load_error("wrong_type.json", json);
  CHECK(e.code == ErrorCode::wrong_type);
  CHECK_THAT(e.message, Contains("traceEvents[") && Contains(".dur is a string"));
  CHECK_THAT(e.location, Contains(":" + std::to_string(line_of(json, at)) + ":"));
}

TEST_CASE("kineto: a complete event without dur is an error", "[kineto]") {
  std::string json = gunzip(trace_path(kSmall));
  const size_t at = json.find("\"dur\": ");
  const size_t comma = json.find(',', at);
  json.erase(at, comma + 1 - at);
  const Error e = load_error("missing_dur.json", json);
  CHECK(e.code == ErrorCode::missing_field);
  CHECK_THAT(e.message, Contains("has no \"dur\""));
}

TEST_CASE("kineto: a distributedInfo field of the wrong type is an error naming the field", "[kineto]") {
  std::string json = gunzip(trace_path("hta_cpu_only_rank-34_ws300_gloo.pt.trace.json.gz"));
  const size_t at = json.find("\"rank\": 34");
  REQUIRE(at != std::string::npos);
  json.replace(at, 10, "\"rank\": \"34\"");
  const Error e = load_error("rank_string.json", json);
  CHECK(e.code == ErrorCode::wrong_type);
  CHECK_THAT(e.location, Contains("distributedInfo.rank"));
}

TEST_CASE("kineto: documents that are not traces are errors", "[kineto]") {
  struct Case {
    const char* text;
    ErrorCode code;
    const char* message;
  };
  const Case c = GENERATE(
      Case{"", ErrorCode::parse_error, "empty"}, Case{"42", ErrorCode::wrong_type, "the document is a number"},
      Case{R"({"schemaVersion": 1})", ErrorCode::missing_field, "traceEvents"},
      Case{R"({"traceEvents": 5})", ErrorCode::wrong_type, "traceEvents is a number"},
      Case{R"({"traceEvents": {"a": 1}})", ErrorCode::wrong_type, "traceEvents is an object"},
      Case{R"({"distributedInfo": [1], "traceEvents": []})", ErrorCode::wrong_type,
           "distributedInfo must be an object"},
      Case{R"({"traceEvents": [{"ph": "X", "name": "k", "dur": 1}]})", ErrorCode::missing_field, "has no \"ts\""},
      Case{R"({"traceEvents": [{"ph": "X", "name": 7, "ts": 1, "dur": 1}]})", ErrorCode::wrong_type,
           ".name is a number"});
  INFO(c.text);
  auto trace = parse_text(c.text, "doc.json");
  REQUIRE_FALSE(trace);
  CHECK(trace.error().code == c.code);
  CHECK_THAT(trace.error().message, Contains(c.message));
  CHECK_THAT(trace.error().location, Contains("doc.json"));
}

TEST_CASE("kineto: empty files and binary garbage are errors", "[kineto]") {
  CHECK_THAT(load_error("empty.json", "").message, Contains("empty"));
  CHECK_THAT(load_error("empty.json.gz", gzip("")).message, Contains("decompresses to nothing"));
  std::mt19937 rng(7);
  std::string garbage(4096, '\0');
  for (char& ch : garbage) ch = static_cast<char>(rng());
  CHECK(load_error("garbage.bin", garbage).code == ErrorCode::parse_error);
  CHECK(load_error("garbage.json.gz", gzip(garbage)).code == ErrorCode::parse_error);
  garbage[0] = '\x1f';  // a gzip header that goes nowhere
  garbage[1] = '\x8b';
  const Error e = load_error("garbage_header.gz", garbage);
  CHECK((e.code == ErrorCode::io_error || e.code == ErrorCode::parse_error));
  CHECK(load_kineto_trace("/nonexistent/trace.json.gz").error().code == ErrorCode::io_error);
  CHECK(load_kineto_trace(std::filesystem::temp_directory_path().string()).error().code == ErrorCode::io_error);
}

TEST_CASE("kineto: unknown events are counted as other and never fatal", "[kineto]") {
  const std::string text = R"({"traceEvents": [
    {"ph": "X", "cat": "my_custom_cat", "name": "foo", "ts": 1, "dur": 2},
    {"ph": "C", "name": "counter", "ts": 3, "args": {"value": [1, {"nested": true}]}},
    {"cat": "kernel", "name": "no phase"},
    17,
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": -1, "args": {"stream": "0x0", "correlation": "x"}},
    {"ph": "X", "cat": "kernel", "name": "ok", "ts": 5, "dur": 1, "args": {"grid": [1, 1, 1], "stream": 7}}
  ], "somethingElse": {"deep": [[[]]]}})";
  auto trace = parse_text(text);
  REQUIRE(trace);
  INFO(warnings_of(trace->warnings));
  CHECK(trace->events == 6);
  CHECK(trace->unknown_category_events == 1);
  CHECK(trace->events_by_category.at("my_custom_cat") == 1);
  CHECK(trace->device_events.size() == 1);  // the negative duration is dropped
  CHECK(trace->device_events[0].stream == 7);
  CHECK(trace->warnings.size() == 4);
  CHECK_THAT(warnings_of(trace->warnings), Contains("my_custom_cat") && Contains("not objects") &&
                                               Contains("no \"ph\"") && Contains("negative duration"));
}

TEST_CASE("kineto: a bare array of events is a trace", "[kineto]") {
  auto trace = parse_text(R"([{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2}])");
  REQUIRE(trace);
  CHECK(trace->device_events.size() == 1);
}

TEST_CASE("kineto: a stream and a file give the same trace", "[kineto]") {
  const std::string json = gunzip(trace_path(kSmall));
  auto from_stream = parse_text(json, "stream");
  REQUIRE(from_stream);
  const KinetoTrace& from_file = shared_trace(kSmall);
  CHECK(from_stream->events == from_file.events);
  CHECK(from_stream->device_events.size() == from_file.device_events.size());
  CHECK(from_stream->json_bytes == static_cast<int64_t>(json.size()));
  CHECK(from_file.json_bytes == static_cast<int64_t>(json.size()));
}

TEST_CASE("kineto: the progress callback sees the input and can cancel", "[kineto]") {
  const std::string path = trace_path("hta_nccl_data_rank0_ws2_A100.json.gz");
  int64_t calls = 0;
  KinetoProgress last;
  auto cancelled = load_kineto_trace(path, [&](const KinetoProgress& p) {
    ++calls;
    last = p;
    return calls < 3;
  });
  REQUIRE_FALSE(cancelled);
  CHECK(cancelled.error().message == kKinetoCancelled);
  CHECK(calls == 3);
  CHECK(last.input_bytes_total == static_cast<int64_t>(std::filesystem::file_size(path)));
  CHECK(last.input_bytes_read > 0);
  CHECK(last.input_bytes_read <= last.input_bytes_total);
  CHECK(last.events > 0);
}

// ---- The streaming reader ------------------------------------------------------------------------------------------
// The reader parses each event (and each top-level member) whole from a buffer of about 256 KiB and parses it again
// when it runs into the end of the buffer before the end of the input. These tests feed the same documents in pieces
// of every size and put errors past the first buffer.

namespace {

// A document handed out in pieces of 1 to max_piece bytes (a fixed pseudo-random sequence).
class PiecewiseSource final : public KinetoByteSource {
 public:
  PiecewiseSource(std::string bytes, uint32_t max_piece) : bytes_(std::move(bytes)), max_piece_(max_piece) {}
  Result<int64_t> read(char* data, int64_t size) override {
    const auto left = static_cast<int64_t>(bytes_.size() - position_);
    const int64_t n = std::min({size, left, static_cast<int64_t>(1 + rng_() % max_piece_)});
    std::copy_n(bytes_.data() + position_, n, data);
    position_ += static_cast<size_t>(n);
    return n;
  }
  [[nodiscard]] int64_t input_bytes_read() const override { return static_cast<int64_t>(position_); }

 private:
  std::string bytes_;
  uint32_t max_piece_;
  size_t position_ = 0;
  std::mt19937 rng_{3};
};

}  // namespace

TEST_CASE("kineto: a trace read in pieces of any size gives the same trace", "[kineto]") {
  const std::string name = GENERATE(std::string(kSmall), std::string("hta_nccl_data_rank0_ws2_A100.json.gz"));
  const uint32_t max_piece = GENERATE(1U, 7U, 4096U, 1U << 20);
  if (max_piece < 4096 && name != kSmall) return;  // a few bytes at a time: the small trace is enough
  INFO(name << " in pieces of up to " << max_piece << " bytes");
  const KinetoTrace& whole = shared_trace(name);
  PiecewiseSource source(gunzip(trace_path(name)), max_piece);
  auto pieces = parse_kineto_trace(source, name);
  REQUIRE(pieces);
  CHECK(pieces->events == whole.events);
  CHECK(pieces->json_bytes == whole.json_bytes);
  CHECK(pieces->names == whole.names);
  CHECK(pieces->threads == whole.threads);
  REQUIRE(pieces->device_events.size() == whole.device_events.size());
  const auto same_event = [](const KinetoDeviceEvent& a, const KinetoDeviceEvent& b) {
    return a.name == b.name && a.ts_us == b.ts_us && a.dur_us == b.dur_us && a.correlation == b.correlation &&
           a.stream == b.stream && a.collective == b.collective;
  };
  CHECK(std::equal(whole.device_events.begin(), whole.device_events.end(), pieces->device_events.begin(), same_event));
  CHECK(pieces->launches.size() == whole.launches.size());
  CHECK(pieces->collective_args.size() == whole.collective_args.size());
  CHECK(pieces->events_by_category == whole.events_by_category);
  CHECK(pieces->distributed.process_groups.size() == whole.distributed.process_groups.size());
  CHECK(pieces->devices.size() == whole.devices.size());
}

TEST_CASE("kineto: an error megabytes into a file is located by its line, column and byte", "[kineto]") {
  // Far past the first buffer: the line count covers the bytes already dropped from it.
  const std::string json = gunzip(trace_path("hta_nccl_data_rank0_ws2_A100.json.gz"));
  std::string broken = json;
  const size_t at = broken.find("\"cat\": \"kernel\"", json.size() / 2);
  REQUIRE(at != std::string::npos);
  broken.insert(at, "@");
  const size_t line_start = broken.rfind('\n', at) + 1;
  const Error e = load_error("stray_far.json", broken);
  CHECK(e.code == ErrorCode::parse_error);
  CHECK_THAT(e.location, Contains(":" + std::to_string(line_of(broken, at)) + ":" +
                                  std::to_string(at - line_start + 1) + " (byte " + std::to_string(at + 1) + ")"));
  PiecewiseSource source(broken, 4096);
  auto pieces = parse_kineto_trace(source, "pieces.json");
  REQUIRE_FALSE(pieces);
  CHECK_THAT(pieces.error().location, Contains(":" + std::to_string(line_of(broken, at)) + ":"));
}

TEST_CASE("kineto: an event or a member larger than the buffer is read whole", "[kineto]") {
  const std::string long_name(3 << 20, 'k');  // a 3 MiB kernel name, and a 5 MB member nobody reads
  std::string unknown = "[0";
  while (unknown.size() < 5'000'000) unknown += ", {\"a\": [1.5, \"x\", null, true]}";
  unknown += "]";
  const std::string text = R"({"big": )" + unknown + R"(, "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": ")" +
                           long_name + R"(", "ts": 1, "dur": 2},
    {"ph": "X", "cat": "kernel", "name": "small", "ts": 3, "dur": 4}]})";
  auto trace = parse_text(text);
  REQUIRE(trace);
  CHECK(trace->json_bytes == static_cast<int64_t>(text.size()));
  REQUIRE(trace->device_events.size() == 2);
  CHECK(trace->names[trace->device_events[0].name] == long_name);
  CHECK(trace->names[trace->device_events[1].name] == "small");
}

TEST_CASE("kineto: escapes in names and keys are decoded", "[kineto]") {
  // RFC 8259 section 7: \u escapes, with a surrogate pair for characters beyond the BMP; keys are compared decoded.
  auto trace = parse_text(
      R"({"traceEvents": [{"ph": "X", "c\u0061t": "kernel", "name": "gemm\u00e9\ud83d\ude00\t\"\\\/", "ts": 1, "dur": 2}]})");
  REQUIRE(trace);
  REQUIRE(trace->device_events.size() == 1);
  CHECK(trace->names[0] == "gemm\xc3\xa9\xf0\x9f\x98\x80\t\"\\/");
}

TEST_CASE("kineto: a byte order mark before the trace and NUL padding after it are accepted", "[kineto]") {
  // As nlohmann::json, which read traces before: it skips a UTF-8 BOM and reads a NUL byte as the end of the input.
  const std::string doc = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2}]})";
  auto with_bom = parse_text("\xEF\xBB\xBF" + doc);
  REQUIRE(with_bom);
  CHECK(with_bom->device_events.size() == 1);
  auto padded = parse_text(doc + "\n" + std::string(100, '\0'));
  REQUIRE(padded);
  CHECK(padded->json_bytes == static_cast<int64_t>(doc.size()) + 2);  // up to the first NUL
  CHECK_FALSE(parse_text("\xEF\xBB" + doc));
}

TEST_CASE("kineto: malformed strings and numbers are invalid JSON", "[kineto]") {
  // RFC 8259 sections 6-8 and RFC 3629 (UTF-8), checked as strictly as nlohmann::json checks them, in values the
  // importer reads and in values it skips (args).
  const std::string bad =
      GENERATE(as<std::string>{}, "\"\xC3\x28\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xE0\x80\xAF\"",
               "\"\xFF\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\x\"", "\"\\u12G4\"", "\"a\x01\"",
               "[01]", "1.", "-", "1e", "1e400", "-1e400", "[1,]", "{\"a\" 1}", "tru", "nul", "[1 2]");
  INFO(bad);
  for (const std::string& doc :
       {R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"x": )" + bad +
            "}}]}",
        R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": )" + bad + R"(, "ts": 1, "dur": 2}]})"}) {
    auto trace = parse_text(doc);
    REQUIRE_FALSE(trace);
    CHECK(trace.error().code == ErrorCode::parse_error);
    CHECK_THAT(trace.error().message, Contains("invalid JSON"));
  }
}

TEST_CASE("kineto: a process-group description on one event does not carry over to the next", "[kineto]") {
  // Regression: the description alone does not make the args a collective's, and it used to stay in the reader's
  // state and turn up on the next event that had collective args.
  auto trace = parse_text(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "x", "ts": 1, "dur": 1, "args": {"Process Group Description": "stale"}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel", "ts": 2, "dur": 1, "args": {"dtype": "Float"}}]})");
  REQUIRE(trace);
  REQUIRE(trace->collective_args.size() == 1);
  CHECK(trace->collective_args[0].dtype == "Float");
  CHECK(trace->collective_args[0].process_group_description.empty());
}

// ---- Hostile input -------------------------------------------------------------------------------------------------
// Variants of the real traces built here: encodings, nesting, duplicate keys, non-finite and huge numbers, members
// and events too large to hold. Each gives a clear error (or the documented reading), never a crash, and the reader
// never holds more than its bounded buffer.

namespace {

// The ASCII bytes of `text` as UTF-16 or UTF-32 code units, with or without a byte order mark.
std::string widen(const std::string& text, int unit, bool big_endian, bool mark) {
  std::string out;
  const auto put = [&](uint32_t cp) {
    for (int i = 0; i < unit; ++i) {
      const int shift = 8 * (big_endian ? unit - 1 - i : i);
      out += static_cast<char>((cp >> shift) & 0xFF);
    }
  };
  if (mark) put(0xFEFF);
  for (const char c : text) put(static_cast<unsigned char>(c));
  return out;
}

std::string nested(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

TEST_CASE("kineto: a UTF-8 byte order mark before a real trace is read", "[kineto]") {
  const std::string json = gunzip(trace_path(kSmall));
  auto trace = parse_text("\xEF\xBB\xBF" + json);
  REQUIRE(trace);
  CHECK(trace->events == shared_trace(kSmall).events);
  CHECK(trace->device_events.size() == shared_trace(kSmall).device_events.size());
}

TEST_CASE("kineto: a UTF-16 or UTF-32 trace is refused with the encoding named", "[kineto]") {
  const std::string json = gunzip(trace_path(kSmall)).substr(0, 4096);  // the refusal comes at the first bytes
  struct Case {
    int unit;
    bool big_endian;
    bool mark;
    const char* name;
  };
  const Case c =
      GENERATE(Case{2, false, true, "UTF-16LE"}, Case{2, true, true, "UTF-16BE"}, Case{2, false, false, "UTF-16LE"},
               Case{2, true, false, "UTF-16BE"}, Case{4, false, true, "UTF-32LE"}, Case{4, true, true, "UTF-32BE"},
               Case{4, false, false, "UTF-32LE"}, Case{4, true, false, "UTF-32BE"});
  INFO(c.name << (c.mark ? " with a byte order mark" : ""));
  const Error e = load_error("wide.json", widen(json, c.unit, c.big_endian, c.mark));
  CHECK(e.code == ErrorCode::parse_error);
  CHECK_THAT(e.message, Contains(c.name) && Contains("UTF-8") && Contains("iconv"));
  CHECK_THAT(e.location, Contains("(byte 1)"));
  // Compressed, the same.
  CHECK_THAT(load_error("wide.json.gz", gzip(widen(json, c.unit, c.big_endian, c.mark))).message, Contains(c.name));
}

TEST_CASE("kineto: nesting 100k deep is an error, not a stack overflow", "[kineto]") {
  std::string json = gunzip(trace_path(kSmall));
  SECTION("in the args of an event") {
    const size_t at = json.find("\"args\": {");
    REQUIRE(at != std::string::npos);
    json.insert(at + 9, "\"deep\": " + nested(100000) + ", ");
  }
  SECTION("in a top-level member nobody reads") {
    json.insert(json.find('{') + 1, "\"deep\": " + nested(100000) + ", ");
  }
  SECTION("in distributedInfo") {
    json = gunzip(trace_path("hta_cpu_only_rank-34_ws300_gloo.pt.trace.json.gz"));
    const size_t at = json.find("\"distributedInfo\": {");
    REQUIRE(at != std::string::npos);
    json.insert(at + 20, "\"deep\": " + nested(100000) + ", ");
  }
  const Error e = load_error("deep.json", json);
  CHECK(e.code == ErrorCode::parse_error);
  CHECK_THAT(e.message, Contains("nested deeper than 1000 levels"));
  CHECK_THAT(e.location, Contains("(byte "));
  // 900 levels are fine.
  std::string ok = gunzip(trace_path(kSmall));
  ok.insert(ok.find('{') + 1, "\"deep\": " + nested(900) + ", ");
  CHECK(parse_text(ok));
}

TEST_CASE("kineto: a repeated key in an event takes the last value, with a warning", "[kineto]") {
  // As nlohmann::json (and Python's json) read duplicate keys.
  std::string json = gunzip(trace_path(kSmall));
  const size_t kernel = json.find("\"cat\": \"kernel\"");
  REQUIRE(kernel != std::string::npos);
  const size_t dur = json.find("\"dur\": ", kernel);
  json.insert(dur, "\"dur\": 123456789, ");
  auto trace = parse_text(json);
  REQUIRE(trace);
  const KinetoTrace& original = shared_trace(kSmall);
  REQUIRE(trace->device_events.size() == original.device_events.size());
  for (size_t i = 0; i < original.device_events.size(); ++i)
    CHECK(trace->device_events[i].dur_us == original.device_events[i].dur_us);
  CHECK_THAT(warnings_of(trace->warnings), Contains("1 events repeat one of the keys") && Contains("last value"));
}

TEST_CASE("kineto: NaN, Infinity and out-of-range times are errors naming the event", "[kineto]") {
  const std::string json = gunzip(trace_path(kSmall));
  const size_t kernel = json.find("\"cat\": \"kernel\"");
  const size_t dur = json.find("\"dur\": ", kernel) + 7;
  const size_t end = json.find_first_of(",}", dur);
  const auto with_dur = [&](const std::string& value) {
    std::string s = json;
    s.replace(dur, end - dur, value);
    return s;
  };
  SECTION("not JSON: NaN and Infinity as Python writes them") {
    const std::string value = GENERATE(as<std::string>{}, "NaN", "Infinity", "-Infinity");
    INFO(value);
    const Error e = load_error("nan.json", with_dur(value));
    CHECK(e.code == ErrorCode::parse_error);
    CHECK_THAT(e.message, Contains("NaN and Infinity are not JSON numbers"));
    CHECK_THAT(e.location, Contains(":" + std::to_string(line_of(json, dur)) + ":"));
  }
  SECTION("beyond double's range") {
    CHECK_THAT(load_error("huge.json", with_dur("1e400")).message, Contains("number overflow"));
  }
  SECTION("a double, but not a time") {
    const std::string value = GENERATE(as<std::string>{}, "1e300", "-1e300", "9.1e15");
    INFO(value);
    const Error e = load_error("far.json", with_dur(value));
    CHECK(e.code == ErrorCode::invalid_argument);
    CHECK_THAT(e.message, Contains("traceEvents[") && Contains("beyond ±9e15 µs"));
  }
  SECTION("integers beyond int64 in args are as good as absent") {
    std::string s = json;
    const size_t correlation = s.find("\"correlation\": ", kernel);
    s.insert(correlation, "\"stream\": 99999999999999999999999, ");
    auto trace = parse_text(s);
    REQUIRE(trace);
    CHECK(trace->device_events.size() == shared_trace(kSmall).device_events.size());
  }
}

TEST_CASE("kineto: sizes declared in distributedInfo allocate nothing", "[kineto]") {
  // A billion ranks declared (world_size, pg_size) and a 10^18-element message: numbers, not allocations.
  std::string json = gunzip(trace_path("hta_cpu_only_rank-34_ws300_gloo.pt.trace.json.gz"));
  const size_t world = json.find("\"world_size\": 300");
  REQUIRE(world != std::string::npos);
  json.replace(world, 17, "\"world_size\": 1000000000");
  size_t pg = 0;
  int replaced = 0;
  while ((pg = json.find("\"pg_size\": ", pg)) != std::string::npos) {
    const size_t value = pg + 11;
    json.replace(value, json.find_first_of(",}", value) - value, "1000000000");
    pg = value;
    ++replaced;
  }
  REQUIRE(replaced > 0);
  auto trace = parse_text(json);
  REQUIRE(trace);
  CHECK(trace->distributed.world_size == 1000000000);
  const KinetoRankAnalysis a = analyze_kineto_trace(*trace);
  CHECK(a.world_size == 1000000000);
  for (const auto& g : a.process_groups) CHECK(g.size == 1000000000);
}

TEST_CASE("kineto: an event or a metadata member too large to hold is an error, not an allocation", "[kineto]") {
  SECTION("a 70 MB event") {
    std::string json = gunzip(trace_path(kSmall));
    const size_t name = json.find("\"name\": \"", json.find("\"cat\": \"kernel\"")) + 9;
    json.insert(name, std::string(70'000'000, 'k'));
    const Error e = load_error("huge_event.json", json);
    CHECK(e.code == ErrorCode::invalid_argument);
    CHECK_THAT(e.message, Contains("traceEvents[") && Contains("larger than 64 MiB"));
  }
  SECTION("a 20 MB deviceProperties") {
    std::string json = gunzip(trace_path(kSmall));
    std::string devices = "[{\"id\": 0, \"name\": \"x\"}";
    while (devices.size() < 20'000'000) devices += ", 0";
    devices += "]";
    const size_t at = json.find("\"deviceProperties\": ");
    REQUIRE(at != std::string::npos);
    json.insert(at, "\"deviceProperties\": " + devices + ", ");
    const Error e = load_error("huge_devices.json", json);
    CHECK(e.code == ErrorCode::invalid_argument);
    CHECK_THAT(e.message, Contains("deviceProperties is larger than 16 MiB"));
  }
}

#pragma once
// The JSON reader under the Kineto importer (kineto_parse.cpp): streaming, validating, and fast on the shape of a
// trace. Internal to the importer; nothing else includes it.
//
// Streaming by units. The document is read in chunks into one buffer. The importer parses it in units (one element
// of traceEvents, one member of the root object) that must lie wholly in the buffer: a unit that runs into the end
// of the buffer before the end of the input stops with need_more(); the importer then calls fill(), which keeps the
// bytes from the start of the unit (begin_unit()), reads more, and the unit is parsed again from its start. Units are
// a few hundred bytes against chunks of 256 KiB, so little is read twice and memory stays at about one chunk (a
// single larger unit grows the buffer to its size). A unit has no side effect until it has been read whole, so
// reading one again is harmless.
//
// Validating. The grammar is RFC 8259's, checked as strictly as nlohmann::json (the importer's previous parser) checks
// it: UTF-8 in strings (RFC 3629, Table 3-7 of Unicode), escapes and surrogate pairs, number syntax, no trailing
// commas, nothing but whitespace after the document; a UTF-8 byte order mark before it is skipped. Numbers keep
// nlohmann's meaning: an integer in int64's range is exact, anything else is the nearest double, and one beyond
// double's range is an error ("number overflow").
//
// Fast. Strings are returned as views into the buffer unless they hold escapes; whitespace and string bodies are
// scanned 16 bytes at a time (SSE2, part of x86-64; a byte loop elsewhere). The buffer ends with a NUL sentinel and
// kPadding readable bytes, so the scans test for the end only where they stop.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/base/result.hpp"
#include "core/importers/kineto.hpp"

namespace meshscope::kineto_json {

// A JSON number as nlohmann::json would hand it over: integer set for integers in int64's range (number_integer, and
// number_unsigned up to INT64_MAX); value the integer as a double, or the nearest double to the text.
struct Number {
  double value = 0;
  std::optional<int64_t> integer;
};

struct Scalar {
  enum class Kind { null_value, boolean, number, string } kind = Kind::null_value;
  Number number;
  std::string_view text;  // valid until the next fill()
  bool boolean = false;
  [[nodiscard]] std::string_view type_name() const;  // "null", "a boolean", "a number", "a string"
};

class Cursor {
 public:
  Cursor(KinetoByteSource& source, std::string origin);
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  ~Cursor() = default;

  // ---- The buffer ----------------------------------------------------------------------------------------------
  // Keeps the bytes from the start of the current unit (begin_unit()) on and appends at least as many from the
  // source (a chunk or more); p() moves back to the unit's start. Returns the bytes read (0: the input has ended,
  // at_eof() from then on) or the source's error.
  // A unit grows the buffer up to max_unit_bytes (then at most a chunk more): the caller fails a unit that needs more.
  Result<int64_t> fill(int64_t max_unit_bytes = INT64_MAX);
  [[nodiscard]] bool at_eof() const { return at_eof_; }
  [[nodiscard]] int64_t bytes_read() const { return discarded_ + (end_ - buffer_); }
  // "origin:LINE:COLUMN (byte N)", N bytes of the document read: line and column of the N-th byte, as nlohmann::json
  // reported them. N must not be before the buffer (positions of failures always lie in it).
  [[nodiscard]] std::string location(int64_t byte) const;

  // ---- How the last step stopped ---------------------------------------------------------------------------------
  [[nodiscard]] bool need_more() const { return need_more_; }
  [[nodiscard]] const std::optional<Error>& failure() const { return failure_; }

 protected:
  // Where the current unit starts; fill() keeps the bytes from here.
  void begin_unit() {
    unit_ = p_;
    need_more_ = false;
  }
  [[nodiscard]] const char* p() const { return p_; }
  [[nodiscard]] bool at_end_of_data() const { return p_ >= end_; }
  [[nodiscard]] int64_t offset(const char* at) const { return discarded_ + (at - buffer_); }
  // Bytes of the current unit in the buffer, and where it starts in the document.
  [[nodiscard]] int64_t unit_bytes() const { return end_ - unit_; }
  [[nodiscard]] int64_t unit_offset() const { return offset(unit_); }

  // ---- Failing -------------------------------------------------------------------------------------------------
  // An input error found by the importer, located after the `byte`-th byte. Always returns false.
  bool fail(ErrorCode code, std::string message, int64_t byte);
  // An error located by the importer. Always returns false.
  bool fail(Error error);
  // Invalid JSON at `at` (the offending byte, or end of the data): "invalid JSON: <what>". Always returns false.
  bool syntax_error(const char* at, const std::string& what);
  // The data stops at `at`: need_more(), or at the end of the input a syntax error. Always returns false.
  bool out_of_data(const char* at);
  // `at` holds something other than `expected` ("':'", "a value", ...): out_of_data() at the end of the data.
  bool unexpected(const char* at, std::string_view expected);

  // ---- Reading: each returns false on need_more() or failure(), and leaves p() after what it read ---------------
  // A UTF-8 byte order mark at p(), skipped as nlohmann::json skips it. A document in UTF-16 or UTF-32 (a byte order
  // mark FF FE / FE FF / 00 00 FE FF, or the zero bytes of one in its first four bytes, RFC 4627 section 3) is refused
  // with an error that says so: JSON exchanged between systems is UTF-8 (RFC 8259 section 8.1).
  bool skip_byte_order_mark();
  void skip_whitespace() { p_ = skip_whitespace(p_); }
  [[nodiscard]] char peek() const { return *p_; }
  void advance() { ++p_; }
  // Expects `c` (after whitespace).
  bool consume(char c, std::string_view expected) {
    skip_whitespace();
    if (*p_ != c) return unexpected(p_, expected);
    ++p_;
    return true;
  }
  // A string at p() ('"'). `out` views the buffer, or `storage` when the string holds escapes.
  bool string(std::string_view& out, std::string& storage) {
    const char* const begin = p_ + 1;
    const char* const q = scan_string_body(begin);
    if (*q == '"') {
      out = std::string_view(begin, static_cast<size_t>(q - begin));
      p_ = q + 1;
      return true;
    }
    return string_slow(begin, q, &out, &storage);
  }
  bool skip_string() {
    const char* const begin = p_ + 1;
    const char* const q = scan_string_body(begin);
    if (*q == '"') {
      p_ = q + 1;
      return true;
    }
    return string_slow(begin, q, nullptr, nullptr);
  }
  // A number at p() ('-' or a digit).
  bool number(Number& out) { return number_at<true>(&out); }
  // Any scalar at p(); a container is a syntax error here.
  bool scalar(Scalar& out, std::string& storage);
  // Any value at p(), checked and dropped.
  bool skip_value() {
    const char c = *p_;
    if (c == '"') return skip_string();
    if (c == '-' || is_digit(c)) return number_at<false>(nullptr);
    if (c == '{' || c == '[') return skip_container();
    return literal(nullptr);
  }

 private:
  static constexpr size_t kChunkBytes = size_t{1} << 18;
  static constexpr size_t kPadding = 64;  // readable bytes after the sentinel, for 16-byte loads

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  // The first byte at or after q that is not JSON whitespace (the sentinel stops it). Inline for the common cases of
  // a trace (no whitespace, or one space after ':' and ','), out of line for runs such as indentation.
  static const char* skip_whitespace(const char* q) {
    if (static_cast<unsigned char>(*q) > ' ') return q;
    if (*q == ' ' && static_cast<unsigned char>(q[1]) > ' ') return q + 1;
    return skip_whitespace_run(q);
  }
  static const char* skip_whitespace_run(const char* q);
  // The first byte at or after q that ends a plain run of a string: '"', '\\', a control character (the sentinel
  // included) or a byte >= 0x80.
  static const char* scan_string_body(const char* q) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(' ');
    for (;;) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
      // Signed compare: bytes >= 0x80 are negative, so "< ' '" also catches them.
      const __m128i stop =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), _mm_cmplt_epi8(v, space));
      const auto mask = static_cast<unsigned>(_mm_movemask_epi8(stop));
      if (mask != 0) return q + __builtin_ctz(mask);
      q += 16;
    }
#else
    for (;; ++q) {
      const auto c = static_cast<unsigned char>(*q);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return q;
    }
#endif
  }

  template <bool kConvert>
  bool number_at(Number* out);
  // Integers of 19 digits or more, and numbers with a fraction or an exponent. Fails on a number beyond double's
  // range, as nlohmann::json does ("number overflow").
  bool number_slow(const char* begin, const char* end, bool integer, Number& out);
  bool string_slow(const char* begin, const char* q, std::string_view* out, std::string* storage);
  bool literal(Scalar* out);
  // NaN, Infinity, -Infinity (Python's json.dump writes them unless allow_nan=False): not JSON.
  bool non_finite(const char* at);
  bool skip_container();
  void count_lines(const char* begin, const char* end);

  KinetoByteSource& source_;
  std::string origin_;
  std::vector<char> storage_;  // the buffer: data, the NUL sentinel, padding
  char* buffer_ = nullptr;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  const char* unit_ = nullptr;
  bool at_eof_ = false;
  bool need_more_ = false;
  std::optional<Error> failure_;
  int64_t discarded_ = 0;      // bytes of the document dropped from the front of the buffer
  int64_t lines_before_ = 0;   // newlines among them
  int64_t column_before_ = 0;  // bytes after the last of them
  std::vector<char> nesting_;  // skip_container's stack of '{' and '['
};

// Numbers: '-'? ('0' | [1-9][0-9]*) ('.' [0-9]+)? ([eE] [+-]? [0-9]+)?  (RFC 8259, section 6). Integers of up to 19
// digits are converted here; the rest in number_slow.
template <bool kConvert>
bool Cursor::number_at(Number* out) {
  const char* const begin = p_;
  const char* q = p_;
  const bool negative = *q == '-';
  q += negative ? 1 : 0;
  const char* const digits = q;
  uint64_t magnitude = 0;
  if (*q == '0') {
    ++q;
  } else if (*q >= '1' && *q <= '9') {
    do {
      magnitude = magnitude * 10 + static_cast<uint64_t>(*q - '0');  // wraps past 19 digits: number_slow then
      ++q;
    } while (is_digit(*q));
  } else if (*q == 'I') {
    return non_finite(q);
  } else {
    return q == end_ ? out_of_data(q) : syntax_error(q, "invalid number; expected a digit");
  }
  const auto integer_digits = q - digits;
  bool integer = true;
  if (*q == '.') {
    integer = false;
    ++q;
    if (!is_digit(*q))
      return q == end_ ? out_of_data(q) : syntax_error(q, "invalid number; expected a digit after '.'");
    while (is_digit(*q)) ++q;
  }
  bool exponent = false;
  if (*q == 'e' || *q == 'E') {
    integer = false;
    exponent = true;
    ++q;
    if (*q == '+' || *q == '-') ++q;
    if (!is_digit(*q)) return q == end_ ? out_of_data(q) : syntax_error(q, "invalid number; expected an exponent");
    while (is_digit(*q)) ++q;
  }
  if (q == end_ && !at_eof_) return out_of_data(q);  // the number may go on in the next chunk
  p_ = q;
  if (integer && integer_digits <= 18) {  // < 10^18: exact in int64
    if constexpr (kConvert) {
      const auto value = static_cast<int64_t>(magnitude);
      out->integer = negative ? -value : value;
      out->value = static_cast<double>(*out->integer);
    }
    return true;
  }
  if constexpr (kConvert) {
    return number_slow(begin, q, integer, *out);
  } else {
    // nlohmann::json rejects numbers beyond double's range, skipped or not; only an exponent or more than 300 digits
    // can get there.
    if (!exponent && integer_digits <= 300) return true;
    Number ignored;
    return number_slow(begin, q, integer, ignored);
  }
}

}  // namespace meshscope::kineto_json

// The cold paths of the Kineto importer's JSON reader (kineto_json_cursor.hpp): the buffer, failures, escapes and
// UTF-8 in strings, numbers beyond 18 digits, literals and skipped containers.
#include "core/importers/kineto_json_cursor.hpp"

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace meshscope::kineto_json {
namespace {

// Newlines in [q, end).
int64_t count_newlines(const char* q, const char* end) {
  int64_t lines = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  while (end - q >= 16) {
    // Byte counters (each compare adds 0 or 1) summed every 255 rounds, before they can overflow.
    __m128i counts = _mm_setzero_si128();
    const int64_t rounds = std::min<int64_t>(255, (end - q) / 16);
    for (int64_t i = 0; i < rounds; ++i, q += 16)
      counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)), newline));
    const __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128());
    lines += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
  }
#endif
  for (; q != end; ++q) lines += *q == '\n' ? 1 : 0;
  return lines;
}

std::string describe(char c) {
  if (c > ' ' && c < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789ABCDEF";
  const auto u = static_cast<unsigned char>(c);
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xF];
}

int hex4(const char* h) {
  int value = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = h[i];
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The well-formed UTF-8 sequences (Unicode Table 3-7, which RFC 3629 follows): the range of the second byte for each
// lead byte; further bytes are 0x80..0xBF. Returns the length, or 0 if `lead` cannot start a sequence.
int utf8_sequence(unsigned char lead, unsigned char& second_min, unsigned char& second_max) {
  second_min = 0x80;
  second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead == 0xE0) {
    second_min = 0xA0;
    return 3;
  }
  if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) return 3;
  if (lead == 0xED) {
    second_max = 0x9F;
    return 3;
  }
  if (lead == 0xF0) {
    second_min = 0x90;
    return 4;
  }
  if (lead >= 0xF1 && lead <= 0xF3) return 4;
  if (lead == 0xF4) {
    second_max = 0x8F;
    return 4;
  }
  return 0;
}

}  // namespace

const char* Cursor::skip_whitespace_run(const char* q) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i cr = _mm_set1_epi8('\r');
  for (;;) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, newline)),
                                    _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, cr)));
    const auto other = static_cast<unsigned>(~_mm_movemask_epi8(ws)) & 0xFFFFU;
    if (other != 0) return q + __builtin_ctz(other);
    q += 16;
  }
#else
  while (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r') ++q;
  return q;
#endif
}

std::string_view Scalar::type_name() const {
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

Cursor::Cursor(KinetoByteSource& source, std::string origin)
    : source_(source), origin_(std::move(origin)), storage_(kChunkBytes + kChunkBytes / 4 + 1 + kPadding, '\0') {
  buffer_ = storage_.data();
  p_ = end_ = unit_ = buffer_;
}

Result<int64_t> Cursor::fill(int64_t max_unit_bytes) {
  need_more_ = false;
  // Drop the bytes before the unit, keep the unit's.
  count_lines(buffer_, unit_);
  discarded_ += unit_ - buffer_;
  const auto kept = static_cast<size_t>(end_ - unit_);
  std::memmove(buffer_, unit_, kept);
  // Read at least as much as is kept, so that a unit larger than a chunk is parsed again only O(log size) times.
  const auto room = static_cast<size_t>(std::max<int64_t>(0, max_unit_bytes - static_cast<int64_t>(kept)));
  const size_t want = std::max(kChunkBytes, std::min(kept, room));
  if (storage_.size() < kept + want + 1 + kPadding) {
    storage_.resize(kept + want + 1 + kPadding, '\0');
    buffer_ = storage_.data();
  }
  p_ = unit_ = buffer_;
  end_ = buffer_ + kept;
  // A source may hand out less than asked: read until there are at least as many new bytes as kept ones, so that
  // the bytes parsed again stay in proportion to the bytes read, whatever the size of the pieces.
  const auto space = static_cast<int64_t>(storage_.size() - kPadding - 1 - kept);
  int64_t got = 0;
  for (;;) {
    auto n = source_.read(buffer_ + kept + got, space - got);
    if (!n) {
      buffer_[kept + static_cast<size_t>(got)] = '\0';
      end_ = buffer_ + kept + got;
      return n;
    }
    if (*n <= 0) {
      at_eof_ = true;
      break;
    }
    got += *n;
    if (got >= static_cast<int64_t>(kept) || got >= space) break;
  }
  end_ = buffer_ + kept + got;
  buffer_[kept + static_cast<size_t>(got)] = '\0';  // the sentinel
  return got;
}

void Cursor::count_lines(const char* begin, const char* end) {
  if (begin == end) return;
  const int64_t lines = count_newlines(begin, end);
  if (lines == 0) {
    column_before_ += end - begin;
    return;
  }
  lines_before_ += lines;
  const auto* last = static_cast<const char*>(memrchr(begin, '\n', static_cast<size_t>(end - begin)));
  column_before_ = end - (last + 1);
}

std::string Cursor::location(int64_t byte) const {
  const int64_t in_buffer = std::clamp<int64_t>(byte - discarded_, 0, end_ - buffer_);
  const char* const at = buffer_ + in_buffer;
  const int64_t lines = count_newlines(buffer_, at);
  int64_t column = column_before_ + in_buffer + 1;
  if (lines > 0) {
    const auto* last = static_cast<const char*>(memrchr(buffer_, '\n', static_cast<size_t>(in_buffer)));
    column = (at - (last + 1)) + 1;
  }
  // As nlohmann::json did: the byte it complains about has been read; point at it, not past it.
  column = std::max<int64_t>(1, column - 1);
  return origin_ + ":" + std::to_string(lines_before_ + lines + 1) + ":" + std::to_string(column) + " (byte " +
         std::to_string(byte) + (source_.compressed() ? " of the uncompressed JSON)" : ")");
}

bool Cursor::fail(ErrorCode code, std::string message, int64_t byte) {
  if (!failure_) failure_ = Error{code, std::move(message), location(byte)};
  return false;
}

bool Cursor::fail(Error error) {
  if (!failure_) failure_ = std::move(error);
  return false;
}

bool Cursor::skip_byte_order_mark() {
  static constexpr unsigned char kMark[] = {0xEF, 0xBB, 0xBF};
  // The encoding from the first four bytes (RFC 4627 section 3: JSON text starts with two ASCII characters).
  if (end_ - p_ < 4 && !at_eof_) return out_of_data(end_);
  const auto byte = [&](int i) { return p_ + i < end_ ? static_cast<unsigned char>(p_[i]) : 0x100U; };
  const char* encoding = nullptr;
  if (byte(0) == 0xFF && byte(1) == 0xFE && byte(2) == 0 && byte(3) == 0) {
    encoding = "UTF-32LE (byte order mark FF FE 00 00)";
  } else if (byte(0) == 0 && byte(1) == 0 && byte(2) == 0xFE && byte(3) == 0xFF) {
    encoding = "UTF-32BE (byte order mark 00 00 FE FF)";
  } else if (byte(0) == 0xFF && byte(1) == 0xFE) {
    encoding = "UTF-16LE (byte order mark FF FE)";
  } else if (byte(0) == 0xFE && byte(1) == 0xFF) {
    encoding = "UTF-16BE (byte order mark FE FF)";
  } else if (byte(0) == 0 && byte(1) == 0 && byte(2) == 0 && byte(3) != 0 && byte(3) < 0x80) {
    encoding = "UTF-32BE (zero bytes before the first character)";
  } else if (byte(0) != 0 && byte(0) < 0x80 && byte(1) == 0 && byte(2) == 0 && byte(3) == 0) {
    encoding = "UTF-32LE (zero bytes after the first character)";
  } else if (byte(0) == 0 && byte(1) != 0 && byte(1) < 0x80) {
    encoding = "UTF-16BE (a zero byte before the first character)";
  } else if (byte(0) != 0 && byte(0) < 0x80 && byte(1) == 0) {
    encoding = "UTF-16LE (a zero byte after the first character)";
  }
  if (encoding != nullptr)
    return fail(ErrorCode::parse_error,
                std::string("the document is ") + encoding +
                    "; a Kineto trace is UTF-8 JSON (RFC 8259 section 8.1): convert it first, e.g. with iconv -f "
                    "UTF-16 -t UTF-8",
                offset(p_) + 1);
  if (static_cast<unsigned char>(*p_) != kMark[0]) return true;
  for (int i = 1; i < 3; ++i) {
    if (p_ + i >= end_) return out_of_data(end_);
    if (static_cast<unsigned char>(p_[i]) != kMark[i])
      return syntax_error(p_ + i, "invalid byte order mark; a document may start with EF BB BF only");
  }
  p_ += 3;
  return true;
}

bool Cursor::syntax_error(const char* at, const std::string& what) {
  return fail(ErrorCode::parse_error, "invalid JSON: " + what, at < end_ ? offset(at) + 1 : offset(end_));
}

bool Cursor::out_of_data(const char* at) {
  if (at_eof_) return syntax_error(at, "unexpected end of input");
  need_more_ = true;
  return false;
}

bool Cursor::unexpected(const char* at, std::string_view expected) {
  if (at >= end_) return out_of_data(at);
  return syntax_error(at, "unexpected " + describe(*at) + "; expected " + std::string(expected));
}

bool Cursor::number_slow(const char* begin, const char* end, bool integer, Number& out) {
  // As nlohmann::json's lexer: strtoll / strtoull for integers, strtod when they overflow or for other numbers.
  if (integer) {
    int64_t value = 0;
    if (std::from_chars(begin, end, value).ec == std::errc()) {
      out.integer = value;
      out.value = static_cast<double>(value);
      return true;
    }
    uint64_t unsigned_value = 0;
    if (*begin != '-' && std::from_chars(begin, end, unsigned_value).ec == std::errc()) {
      out.integer.reset();  // above INT64_MAX
      out.value = static_cast<double>(unsigned_value);
      return true;
    }
  }
  out.integer.reset();
  const auto [ptr, ec] = std::from_chars(begin, end, out.value);
  if (ec == std::errc() && ptr == end) return true;
  // Out of double's range: strtod's answer (±HUGE_VAL, or the nearest subnormal / zero), with the locale's decimal
  // point as nlohmann::json writes it into the token.
  std::string token(begin, end);
  const char point = *std::localeconv()->decimal_point;
  std::replace(token.begin(), token.end(), '.', point);
  out.value = std::strtod(token.c_str(), nullptr);
  if (!std::isfinite(out.value)) return syntax_error(end, "number overflow parsing '" + std::string(begin, end) + "'");
  return true;
}

bool Cursor::string_slow(const char* begin, const char* q, std::string_view* out, std::string* storage) {
  const char* copied = begin;  // with storage: the input up to here is in *storage
  bool decoded = false;
  for (;;) {
    const auto c = static_cast<unsigned char>(*q);
    if (c == '"') break;
    if (c == '\\') {
      if (storage != nullptr) {
        if (!decoded) storage->clear();
        decoded = true;
        storage->append(copied, q);
      }
      if (end_ - q < 2) return out_of_data(end_);
      char simple = 0;
      int length = 2;
      switch (q[1]) {
        case '"':
        case '\\':
        case '/':
          simple = q[1];
          break;
        case 'b':
          simple = '\b';
          break;
        case 'f':
          simple = '\f';
          break;
        case 'n':
          simple = '\n';
          break;
        case 'r':
          simple = '\r';
          break;
        case 't':
          simple = '\t';
          break;
        case 'u': {
          if (end_ - q < 6) return out_of_data(end_);
          const int unit = hex4(q + 2);
          if (unit < 0) return syntax_error(q + 2, "'\\u' must be followed by 4 hex digits");
          auto code_point = static_cast<uint32_t>(unit);
          length = 6;
          if (unit >= 0xDC00 && unit <= 0xDFFF)
            return syntax_error(q + 5, "a low surrogate \\uDC00..\\uDFFF must follow a high one \\uD800..\\uDBFF");
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (end_ - q < 12) return out_of_data(end_);
            const int low = q[6] == '\\' && q[7] == 'u' ? hex4(q + 8) : -1;
            if (low < 0xDC00 || low > 0xDFFF)
              return syntax_error(q + 6,
                                  "a high surrogate \\uD800..\\uDBFF must be followed by a low one \\uDC00..\\uDFFF");
            code_point =
                0x10000 + ((static_cast<uint32_t>(unit) - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00);
            length = 12;
          }
          if (storage != nullptr) append_utf8(*storage, code_point);
          break;
        }
        default:
          return syntax_error(q + 1, "invalid escape " + describe(q[1]) + " in a string");
      }
      if (simple != 0 && storage != nullptr) *storage += simple;
      q += length;
      copied = q;
    } else if (c >= 0x80) {
      unsigned char second_min = 0;
      unsigned char second_max = 0;
      const int length = utf8_sequence(c, second_min, second_max);
      if (length == 0) return syntax_error(q, "invalid UTF-8 " + describe(*q) + " in a string");
      for (int i = 1; i < length; ++i) {
        const auto b = static_cast<unsigned char>(q[i]);
        const bool ok = i == 1 ? (b >= second_min && b <= second_max) : (b >= 0x80 && b <= 0xBF);
        if (ok) continue;
        if (q + i >= end_) return out_of_data(end_);
        return syntax_error(q + i, "invalid UTF-8 " + describe(q[i]) + " in a string");
      }
      q += length;
    } else {  // a control character, or the end of the data
      if (q >= end_) return out_of_data(end_);
      return syntax_error(q, "control character " + describe(*q) + " in a string; it must be escaped");
    }
    q = scan_string_body(q);
  }
  if (out != nullptr) {
    if (decoded) {
      storage->append(copied, q);
      *out = *storage;
    } else {
      *out = std::string_view(begin, static_cast<size_t>(q - begin));
    }
  }
  p_ = q + 1;
  return true;
}

bool Cursor::literal(Scalar* out) {
  std::string_view word;
  switch (*p_) {
    case 't':
      word = "true";
      break;
    case 'f':
      word = "false";
      break;
    case 'n':
      word = "null";
      break;
    case 'N':
    case 'I':
      return non_finite(p_);
    default:
      return unexpected(p_, "a value");
  }
  const auto available = static_cast<size_t>(end_ - p_);
  for (size_t i = 0; i < word.size(); ++i) {
    if (i >= available) return out_of_data(end_);
    if (p_[i] != word[i]) return syntax_error(p_ + i, "invalid literal; expected true, false or null");
  }
  p_ += word.size();
  if (out != nullptr) {
    out->kind = word == "null" ? Scalar::Kind::null_value : Scalar::Kind::boolean;
    out->boolean = word == "true";
  }
  return true;
}

bool Cursor::non_finite(const char* at) {
  return syntax_error(at,
                      "NaN and Infinity are not JSON numbers (RFC 8259 section 6; Python's json.dump writes them "
                      "unless allow_nan=False); write null or a finite number");
}

bool Cursor::scalar(Scalar& out, std::string& storage) {
  const char c = *p_;
  if (c == '"') {
    out.kind = Scalar::Kind::string;
    return string(out.text, storage);
  }
  if (c == '-' || is_digit(c)) {
    out.kind = Scalar::Kind::number;
    return number(out.number);
  }
  return literal(&out);
}

// Containers to skip (args values such as "Input Dims", unknown members): checked, iteratively, so that deep nesting
// cannot exhaust the stack.
bool Cursor::skip_container() {
  nesting_.clear();
  const auto key = [this] {
    p_ = skip_whitespace(p_);
    if (*p_ != '"') return unexpected(p_, "a string (an object key)");
    if (!skip_string()) return false;
    p_ = skip_whitespace(p_);
    if (*p_ != ':') return unexpected(p_, "':'");
    p_ = skip_whitespace(p_ + 1);
    return true;
  };
  for (;;) {
    // p_ is at a value.
    const char c = *p_;
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      p_ = skip_whitespace(p_ + 1);
      if (*p_ == close) {
        ++p_;
      } else {
        if (nesting_.size() >= static_cast<size_t>(kKinetoMaxNesting))
          return fail(ErrorCode::parse_error,
                      "arrays and objects nested deeper than " + std::to_string(kKinetoMaxNesting) +
                          " levels; a Kineto trace nests a few",
                      offset(p_));
        nesting_.push_back(c);
        if (c == '{' && !key()) return false;
        continue;
      }
    } else if (c == '"') {
      if (!skip_string()) return false;
    } else if (c == '-' || is_digit(c)) {
      if (!number_at<false>(nullptr)) return false;
    } else if (!literal(nullptr)) {
      return false;
    }
    // After a value: close what ends here, up to the next value.
    for (;;) {
      if (nesting_.empty()) return true;
      p_ = skip_whitespace(p_);
      const bool object = nesting_.back() == '{';
      if (*p_ == ',') {
        p_ = skip_whitespace(p_ + 1);
        if (object && !key()) return false;
        break;
      }
      if (*p_ != (object ? '}' : ']')) return unexpected(p_, object ? "',' or '}'" : "',' or ']'");
      ++p_;
      nesting_.pop_back();
    }
  }
}

}  // namespace meshscope::kineto_json

#include "core/importers/training_log_lines.hpp"

#include <charconv>
#include <cmath>

namespace meshscope::training_log_detail {
namespace {

// Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool digits_at(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t k = 0; k < n; ++k)
    if (!is_digit(s[at + k])) return false;
  return true;
}

}  // namespace

std::string strip_ansi(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\x1b') {
      if (i + 1 < in.size() && in[i + 1] == '[') {
        size_t j = i + 2;
        while (j < in.size() && static_cast<unsigned char>(in[j]) >= 0x20 && static_cast<unsigned char>(in[j]) < 0x40)
          ++j;
        i = j < in.size() ? j : in.size();  // skip the final byte too
      } else {
        ++i;
      }
      continue;
    }
    if (c == '[') {
      size_t j = i + 1;
      while (j < in.size() && (is_digit(in[j]) || in[j] == ';')) ++j;
      if (j > i + 1 && j < in.size() && in[j] == 'm') {
        i = j;
        continue;
      }
    }
    out.push_back(c);
  }
  return out;
}

int64_t int_at(std::string_view s, size_t at, size_t n) {
  int64_t v = 0;
  for (size_t k = 0; k < n; ++k) v = v * 10 + (s[at + k] - '0');
  return v;
}

std::optional<std::pair<double, size_t>> timestamp_at(std::string_view s) {
  if (!digits_at(s, 0, 4) || s.size() < 19 || s[4] != '-' || !digits_at(s, 5, 2) || s[7] != '-' ||
      !digits_at(s, 8, 2) || (s[10] != 'T' && s[10] != ' ') || !digits_at(s, 11, 2) || s[13] != ':' ||
      !digits_at(s, 14, 2) || s[16] != ':' || !digits_at(s, 17, 2))
    return std::nullopt;
  const int64_t days = days_from_civil(int_at(s, 0, 4), int_at(s, 5, 2), int_at(s, 8, 2));
  double seconds = static_cast<double>(days) * 86400.0 + static_cast<double>(int_at(s, 11, 2) * 3600) +
                   static_cast<double>(int_at(s, 14, 2) * 60) + static_cast<double>(int_at(s, 17, 2));
  size_t n = 19;
  if (n < s.size() && (s[n] == '.' || s[n] == ',')) {
    double scale = 0.1;
    ++n;
    while (n < s.size() && is_digit(s[n])) {
      seconds += scale * (s[n] - '0');
      scale /= 10;
      ++n;
    }
  }
  if (n < s.size() && s[n] == 'Z') ++n;
  return std::pair{seconds, n};
}

CleanLine clean_line(std::string_view raw) {
  CleanLine out;
  out.text = strip_ansi(raw);
  std::string_view s = out.text;
  for (int round = 0; round < 6; ++round) {
    const std::string_view before = s;
    if (const auto ts = timestamp_at(s); ts && (ts->second == s.size() || s[ts->second] == ' ')) {
      if (!out.timestamp) out.timestamp = ts->first;
      s.remove_prefix(ts->second);
      while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
    } else if (!s.empty() && s[0] == '[' && timestamp_at(s.substr(1))) {
      // "[2025-11-14 10:13:12] " (Megatron ROCm); DeepSpeed's "[2021-05-25 22:29:53,233] [INFO]" stays readable too.
      const size_t close = s.find(']');
      if (close == std::string_view::npos) break;
      s.remove_prefix(close + 1);
      while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
    } else if (s.size() > 6 && s.substr(0, 5) == "[rank" && is_digit(s[5])) {
      size_t j = 5;
      int64_t rank = 0;
      while (j < s.size() && is_digit(s[j]) && j < 14) rank = rank * 10 + (s[j++] - '0');
      if (j + 1 >= s.size() || s[j] != ']' || s[j + 1] != ':') break;
      if (!out.rank) out.rank = rank;
      s.remove_prefix(j + 2);
    } else {
      // srun --label "12: " or pdsh "host-01: ": one token without spaces, with a digit, then ": ".
      const size_t colon = s.find(": ");
      if (colon == std::string_view::npos || colon == 0 || colon > 64) break;
      const std::string_view token = s.substr(0, colon);
      bool all_digits = true, has_digit = false, plain = true;
      for (const char c : token) {
        all_digits = all_digits && is_digit(c);
        has_digit = has_digit || is_digit(c);
        plain = plain &&
                (is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '.' || c == '_');
      }
      if (!plain || !has_digit || token.size() > 48) break;
      if (all_digits && token.size() <= 6 && !out.rank) out.rank = int_at(token, 0, token.size());
      s.remove_prefix(colon + 2);
    }
    if (s.size() == before.size()) break;
  }
  out.text = std::string(s);
  return out;
}

std::optional<double> number_at(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  std::string digits;
  for (; i < s.size() && digits.size() < 64; ++i) {
    const char c = s[i];
    if (c == ',' && i + 1 < s.size() && is_digit(s[i + 1]) && !digits.empty() && is_digit(digits.back())) continue;
    if (is_digit(c) || c == '.' || c == '-' || c == '+' || ((c == 'e' || c == 'E') && !digits.empty())) {
      digits.push_back(c);
      continue;
    }
    break;
  }
  if (digits.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end == digits.data() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace meshscope::training_log_detail

#include "core/importers/nccl_tests.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "core/base/text.hpp"
#include "core/model/model_io.hpp"

namespace meshscope {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// nccl-tests prints times in microseconds and bandwidths in GB/s = 1e9 bytes/s (src/util.cu,
// writeBenchmarkLineBody: "time (us)", "algbw (GB/s)").
double seconds_from_microseconds(double microseconds) {
  return microseconds * 1e-6;
}
double bytes_per_s_from_gb_per_s(double gb_per_s) {
  return gb_per_s * 1e9;
}
double gb_per_s_from_bytes_per_s(double bytes_per_s) {
  return bytes_per_s / 1e9;
}

// Unrecognised lines are reported one by one up to this many, then counted in one summary warning,
// so that a binary file or a long NCCL_DEBUG log does not bury the useful warnings.
constexpr int64_t kMaxLineWarnings = 20;

// Rank counts tried when inferring the count from busbw / algbw.
constexpr int64_t kMaxInferredRanks = 65536;

// Bounds that keep garbage from overflowing the integer arithmetic, far above any real job: counts
// of wrong elements, rank ids, and nThread / nGpus per process.
constexpr double kMaxCount = 1e18;
constexpr int64_t kMaxRankId = int64_t{1} << 30;
constexpr int64_t kMaxPerProcess = int64_t{1} << 16;

using text::is_digit;
using text::is_space;
using text::lowercase;
using text::parse_integer;
using text::parse_number;
using text::split_ws;
using text::trim;

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_digit(c); });
}

// A short printable excerpt of a line for messages (binary bytes become '?').
std::string excerpt(std::string_view s) {
  constexpr size_t kMaxChars = 60;
  std::string out;
  for (const char c : s.substr(0, kMaxChars)) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte >= 0x7F) ? '?' : c;
  }
  if (s.size() > kMaxChars) out += "...";
  return out;
}

bool has_control_bytes(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && !is_space(c)) || byte == 0x7F;
  });
}

// "2024-05-01T10:00:00.123Z " or "2024-05-01 10:00:00,123 " at the start of a line (container and
// launcher timestamps); returns the length to strip, 0 if there is none.
size_t iso_timestamp_prefix(std::string_view s) {
  constexpr std::string_view kPattern = "dddd-dd-dd?dd:dd:dd";
  if (s.size() <= kPattern.size()) return 0;
  for (size_t i = 0; i < kPattern.size(); ++i) {
    const char p = kPattern[i];
    if (p == 'd' && !is_digit(s[i])) return 0;
    if (p == '?' && s[i] != 'T' && s[i] != ' ') return 0;
    if (p != 'd' && p != '?' && s[i] != p) return 0;
  }
  size_t i = kPattern.size();
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    ++i;
    while (i < s.size() && (is_digit(s[i]) || s[i] == ':')) ++i;
  }
  if (i >= s.size() || !is_space(s[i])) return 0;
  return i + 1;
}

// A launcher's label before the program's own output: srun --label "0: " (padded for wide task
// ids), Open MPI --tag-output "[1,0]<stdout>:", pdsh "host: ". Returns the length to strip and the
// label; pdsh-style labels only count when what follows looks like nccl-tests output.
std::pair<size_t, std::string_view> launcher_label(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  const size_t digits_start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i > digits_start && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') {
    return {i + 2, s.substr(digits_start, i - digits_start)};
  }
  if (!s.empty() && s.front() == '[') {
    const size_t close = s.find("]<");
    if (close != std::string_view::npos) {
      const std::string_view inside = s.substr(1, close - 1);
      const bool ids =
          !inside.empty() && std::all_of(inside.begin(), inside.end(), [](char c) { return is_digit(c) || c == ','; });
      for (const std::string_view stream : {std::string_view("]<stdout>:"), std::string_view("]<stderr>:")}) {
        if (ids && s.substr(close).starts_with(stream)) return {close + stream.size(), inside};
      }
    }
  }
  i = 0;
  if (!s.empty() && (is_alpha(s.front()) || is_digit(s.front()))) {
    while (i < s.size() && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '.' || s[i] == '_' || s[i] == '-')) ++i;
    if (i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') {
      const std::string_view rest = trim(s.substr(i + 2));
      if (!rest.empty() && (rest.front() == '#' || is_digit(rest.front()))) return {i + 2, s.substr(0, i)};
    }
  }
  return {0, {}};
}

struct StrippedLine {
  std::string_view text;
  std::string label;  // the launcher label(s), "" when none
};

StrippedLine strip_prefixes(std::string_view line) {
  StrippedLine out{line, {}};
  for (int round = 0; round < 4; ++round) {
    if (const size_t n = iso_timestamp_prefix(out.text); n > 0) {
      out.text.remove_prefix(n);
      continue;
    }
    const auto [n, label] = launcher_label(out.text);
    if (n == 0) break;
    if (!out.label.empty()) out.label += '/';
    out.label += label;
    out.text.remove_prefix(n);
  }
  return out;
}

// The columns of the result table, read from its header line
// ("#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...").
struct TableLayout {
  bool known = false;
  bool has_redop = false;
  bool has_root = false;
  size_t groups = 2;           // out-of-place, in-place
  size_t group_width = 4;      // time algbw busbw #wrong, + i_min i_max i_p99 i_cv% with per-iteration timing
  bool wrong_is_count = true;  // "#wrong" counts elements; the old "error" column is a maximum deviation
  bool cpu_time = false;
};

std::optional<TableLayout> layout_from_header(const std::vector<std::string_view>& names) {
  TableLayout layout;
  layout.known = true;
  layout.groups = 0;
  bool in_keys = true;
  size_t first_time = names.size();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string name = lowercase(names[i]);
    if (name == "time" || name == "cputime") {
      if (first_time == names.size()) first_time = i;
      in_keys = false;
      ++layout.groups;
      layout.cpu_time = layout.cpu_time || name == "cputime";
    } else if (in_keys && (name == "redop" || name == "op")) {
      layout.has_redop = true;
    } else if (in_keys && name == "root") {
      layout.has_root = true;
    } else if (name == "i_min") {
      layout.group_width = 8;
    }
  }
  if (layout.groups == 0) return std::nullopt;
  if (first_time + 3 < names.size()) layout.wrong_is_count = lowercase(names[first_time + 3]) == "#wrong";
  return layout;
}

bool looks_like_date(std::string_view s) {
  return s.size() == 10 && s[4] == '-' && s[7] == '-' && all_digits(s.substr(0, 4));
}
bool looks_like_clock(std::string_view s) {
  return s.size() == 8 && s[2] == ':' && s[5] == ':';
}

// The result of one (time, algbw, busbw, wrong) group.
struct Measurement {
  double time_s = kNaN;
  double algbw_bytes_per_s = kNaN;
  double busbw_bytes_per_s = kNaN;
  std::optional<int64_t> wrong;
};

tl::expected<Measurement, std::string> parse_measurement(const std::vector<std::string_view>& tokens, size_t at,
                                                         const TableLayout& layout) {
  const auto time_us = parse_number(tokens[at]);
  if (!time_us || *time_us < 0) return tl::unexpected("the time \"" + excerpt(tokens[at]) + "\" is not a number");
  const auto algbw = parse_number(tokens[at + 1]);
  if (!algbw || *algbw < 0) return tl::unexpected("the algbw \"" + excerpt(tokens[at + 1]) + "\" is not a number");
  const auto busbw = parse_number(tokens[at + 2]);
  if (!busbw || *busbw < 0) return tl::unexpected("the busbw \"" + excerpt(tokens[at + 2]) + "\" is not a number");
  Measurement m;
  m.time_s = seconds_from_microseconds(*time_us);
  m.algbw_bytes_per_s = bytes_per_s_from_gb_per_s(*algbw);
  m.busbw_bytes_per_s = bytes_per_s_from_gb_per_s(*busbw);
  const std::string_view wrong = tokens[at + 3];
  if (wrong == "N/A") return m;
  const auto value = parse_number(wrong);
  if (!value || *value < 0) {
    return tl::unexpected("the #wrong/error value \"" + excerpt(wrong) + "\" is neither a number nor N/A");
  }
  // Without a header, a whole number is a #wrong count and anything else ("0e+00") an old max deviation.
  const bool is_count = layout.known ? layout.wrong_is_count : all_digits(wrong);
  if (is_count) {
    if (*value > kMaxCount) return tl::unexpected("the #wrong count \"" + excerpt(wrong) + "\" is out of range");
    m.wrong = static_cast<int64_t>(std::llround(*value));
  }
  return m;
}

tl::expected<NcclTestsRow, std::string> parse_row(std::vector<std::string_view> tokens, const TableLayout& layout) {
  if (tokens.size() >= 2 && looks_like_date(tokens[tokens.size() - 2]) && looks_like_clock(tokens.back())) {
    tokens.resize(tokens.size() - 2);  // the timestamp column of -t / report_timestamps
  }
  NcclTestsRow row;
  const auto size = parse_integer(tokens[0]);
  if (!size || *size < 0) return tl::unexpected("the size \"" + excerpt(tokens[0]) + "\" is not a whole number");
  const auto count = parse_integer(tokens[1]);
  if (!count || *count < 0) return tl::unexpected("the count \"" + excerpt(tokens[1]) + "\" is not a whole number");
  if (tokens.size() < 3) return tl::unexpected(std::string("the row ends after the element count"));
  if (parse_number(tokens[2])) {
    return tl::unexpected("expected a data type name after the count, found \"" + excerpt(tokens[2]) + "\"");
  }
  row.bytes = static_cast<double>(*size);
  row.count = *count;
  row.type = std::string(tokens[2]);

  const size_t width = layout.group_width;
  size_t groups = layout.groups;
  const auto rest = static_cast<int64_t>(tokens.size() - 3);
  const auto extras_with = [&](size_t g) { return rest - static_cast<int64_t>(g * width); };
  int64_t extras = extras_with(groups);
  if (!layout.known && (extras < 0 || extras > 2) && extras_with(1) >= 0 && extras_with(1) <= 2) {
    groups = 1;  // the oldest nccl-tests print only out-of-place results for some tests
    extras = extras_with(1);
  }
  const int64_t max_extras = layout.known ? int64_t{layout.has_redop} + int64_t{layout.has_root} : 2;
  if (extras < 0 || extras > max_extras) {
    return tl::unexpected("expected " + std::to_string(groups * width) + " to " +
                          std::to_string(static_cast<int64_t>(groups * width) + max_extras) +
                          " values after the data type, found " + std::to_string(rest));
  }
  // redop is a name ("sum"), root a whole number; old all-to-all logs leave redop blank.
  const auto take_redop = [&](std::string_view token) -> tl::expected<void, std::string> {
    if (parse_number(token)) return tl::unexpected("expected a reduction name, found \"" + excerpt(token) + "\"");
    row.redop = std::string(token);
    return {};
  };
  const auto take_root = [&](std::string_view token) -> tl::expected<void, std::string> {
    const auto root = parse_integer(token);
    if (!root) return tl::unexpected("the root \"" + excerpt(token) + "\" is not a whole number");
    row.root = *root;
    return {};
  };
  tl::expected<void, std::string> taken;
  if (extras == 2) {
    taken = take_redop(tokens[3]);
    if (taken) taken = take_root(tokens[4]);
  } else if (extras == 1) {
    const bool numeric = parse_integer(tokens[3]).has_value();
    if (layout.known && layout.has_root != layout.has_redop) {
      taken = layout.has_root ? take_root(tokens[3]) : take_redop(tokens[3]);
    } else {
      taken = numeric ? take_root(tokens[3]) : take_redop(tokens[3]);
    }
  }
  if (!taken) return tl::unexpected(taken.error());

  const size_t first = 3 + static_cast<size_t>(extras);
  auto out_of_place = parse_measurement(tokens, first, layout);
  if (!out_of_place) return tl::unexpected(out_of_place.error());
  row.out_of_place_time_s = out_of_place->time_s;
  row.out_of_place_algbw_bytes_per_s = out_of_place->algbw_bytes_per_s;
  row.out_of_place_busbw_bytes_per_s = out_of_place->busbw_bytes_per_s;
  row.out_of_place_wrong = out_of_place->wrong;
  row.in_place_time_s = kNaN;
  row.in_place_algbw_bytes_per_s = kNaN;
  row.in_place_busbw_bytes_per_s = kNaN;
  if (groups >= 2) {
    auto in_place = parse_measurement(tokens, first + width, layout);
    if (!in_place) return tl::unexpected(in_place.error());
    row.in_place_time_s = in_place->time_s;
    row.in_place_algbw_bytes_per_s = in_place->algbw_bytes_per_s;
    row.in_place_busbw_bytes_per_s = in_place->busbw_bytes_per_s;
    row.in_place_wrong = in_place->wrong;
  }
  return row;
}

// "Rank  0 Group  0 Pid 1234 on host device  0 [0000:07:00] NVIDIA H100 80GB HBM3" (Group absent in
// the old format), the text after '#'.
std::optional<NcclTestsRank> parse_rank_line(std::string_view body) {
  const size_t open = body.find('[');
  const size_t close = open == std::string_view::npos ? open : body.find(']', open);
  if (close == std::string_view::npos) return std::nullopt;
  const auto tokens = split_ws(body.substr(0, open));
  NcclTestsRank rank;
  size_t i = 0;
  const auto number_after = [&](std::string_view key) -> std::optional<int64_t> {
    if (i + 1 >= tokens.size() || tokens[i] != key) return std::nullopt;
    const auto value = parse_integer(tokens[i + 1]);
    if (value) i += 2;
    return value;
  };
  const auto r = number_after("Rank");
  if (!r || *r < 0 || *r > kMaxRankId) return std::nullopt;
  rank.rank = *r;
  if (i < tokens.size() && tokens[i] == "Group") {
    const auto g = number_after("Group");
    if (!g) return std::nullopt;
    rank.group = *g;
  }
  const auto pid = number_after("Pid");
  if (!pid) return std::nullopt;
  rank.pid = *pid;
  if (i + 1 >= tokens.size() || tokens[i] != "on") return std::nullopt;
  rank.host = std::string(tokens[i + 1]);
  i += 2;
  const auto device = number_after("device");
  if (!device || i != tokens.size()) return std::nullopt;
  rank.device = *device;
  rank.bus_id = std::string(trim(body.substr(open + 1, close - open - 1)));
  rank.device_name = std::string(trim(body.substr(close + 1)));
  return rank;
}

// The number after the first ':' ("Avg bus bandwidth    : 58.2651 OK").
std::optional<double> number_after_colon(std::string_view body) {
  const size_t colon = body.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto tokens = split_ws(body.substr(colon + 1));
  if (tokens.empty()) return std::nullopt;
  return parse_number(tokens[0]);
}

// The program names "xxx_perf" mentioned in a line (an echoed command line, a job script).
std::vector<std::string> perf_programs_in(std::string_view line) {
  std::vector<std::string> names;
  size_t at = line.find("_perf");
  while (at != std::string_view::npos) {
    size_t start = at;
    while (start > 0 && (is_alpha(line[start - 1]) || is_digit(line[start - 1]) || line[start - 1] == '_')) --start;
    const size_t end = at + 5;
    const bool word_end = end >= line.size() || !(is_alpha(line[end]) || is_digit(line[end]) || line[end] == '_');
    if (start < at && word_end) names.emplace_back(line.substr(start, end - start));
    at = line.find("_perf", end);
  }
  return names;
}

// Half a unit in the last printed digit of a GB/s value: "%6.2f" in older nccl-tests; the newer
// getFloatStr() drops decimals as the value grows (src/util.cu).
double print_half_ulp_gb_per_s(double value) {
  if (value < 1000) return 0.005;
  if (value < 10000) return 0.05;
  if (value < 100000) return 0.5;
  return 0.05 * value;  // exponent format
}

struct BandwidthPair {
  double algbw_gb_per_s;
  double busbw_gb_per_s;
  int64_t line;
};

std::vector<BandwidthPair> bandwidth_pairs(const std::vector<NcclTestsRow>& rows, double min_algbw_gb_per_s) {
  std::vector<BandwidthPair> pairs;
  for (const auto& row : rows) {
    for (const auto& [alg, bus] : {std::pair{row.out_of_place_algbw_bytes_per_s, row.out_of_place_busbw_bytes_per_s},
                                   std::pair{row.in_place_algbw_bytes_per_s, row.in_place_busbw_bytes_per_s}}) {
      if (!std::isfinite(alg) || !std::isfinite(bus)) continue;
      const double alg_gb = gb_per_s_from_bytes_per_s(alg);
      if (alg_gb >= min_algbw_gb_per_s) pairs.push_back({alg_gb, gb_per_s_from_bytes_per_s(bus), row.line});
    }
  }
  return pairs;
}

// Whether busbw = algbw × factor holds within the rounding of the printed values.
bool fits_factor(const BandwidthPair& pair, double factor) {
  const double tolerance =
      print_half_ulp_gb_per_s(pair.busbw_gb_per_s) + factor * print_half_ulp_gb_per_s(pair.algbw_gb_per_s) + 1e-9;
  return std::abs(pair.busbw_gb_per_s - pair.algbw_gb_per_s * factor) <= tolerance;
}

bool factor_depends_on_ranks(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter ||
         op == CollectiveOp::all_to_all;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  Result<NcclTestsLog> run(std::optional<CollectiveOp> op_hint) {
    size_t pos = 0;
    int64_t line_no = 0;
    while (pos < text_.size()) {
      const size_t newline = text_.find('\n', pos);
      const bool terminated = newline != std::string_view::npos;
      const size_t end = terminated ? newline : text_.size();
      std::string_view raw = text_.substr(pos, end - pos);
      pos = terminated ? newline + 1 : text_.size();
      ++line_no;
      if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
      MS_TRY(keep_going, handle_line(raw, line_no, terminated));
      if (!keep_going) break;
    }
    return finish(op_hint);
  }

 private:
  void warn(int64_t line, std::string message) { log_.warnings.push_back({line, std::move(message)}); }

  void warn_unrecognised(int64_t line, std::string message) {
    if (++unrecognised_lines_ <= kMaxLineWarnings) warn(line, std::move(message));
  }

  // Whether output under this launcher label belongs to the run being read: the first label that
  // prints nccl-tests output wins; others (each srun task running its own test) are only counted.
  // Unlabelled lines always count.
  bool from_main_task(const std::string& label, int64_t line_no) {
    if (label.empty()) return true;
    if (!main_label_) main_label_ = label;
    if (*main_label_ == label) return true;
    if (other_task_lines_++ == 0) other_task_first_line_ = line_no;
    return false;
  }

  // false: stop reading (a second run or result table begins).
  Result<bool> handle_line(std::string_view raw, int64_t line_no, bool terminated) {
    if (has_control_bytes(raw)) saw_control_bytes_ = true;
    const StrippedLine stripped = strip_prefixes(raw);
    const std::string_view line = trim(stripped.text);
    if (line.empty()) return true;
    if (line.front() == '#') {
      if (!from_main_task(stripped.label, line_no)) return true;
      return handle_comment(trim(line.substr(1)), line_no);
    }
    const auto tokens = split_ws(line);
    const bool row_like = tokens.size() >= 2 && all_digits(tokens[0]) && is_digit(tokens[1].front());
    if (row_like) {
      if (!from_main_task(stripped.label, line_no)) return true;
      auto row = parse_row(tokens, layout_);
      if (!row) {
        if (!terminated) {
          warn(line_no, "the log ends in the middle of this row, which was ignored (" + row.error() + ")");
          return true;
        }
        return make_error(ErrorCode::parse_error, "cannot read the result row: " + row.error(),
                          origin_ + ":" + std::to_string(line_no));
      }
      row->line = line_no;
      if (!terminated) warn(line_no, "the log ends without a newline after this row; it may be cut off");
      const int64_t wrong = row->out_of_place_wrong.value_or(0) + row->in_place_wrong.value_or(0);
      if (wrong > 0) {
        warn(line_no, "the data check found " + std::to_string(wrong) + " wrong elements (" +
                          std::to_string(row->count) + " x " + row->type + ")");
      }
      log_.rows.push_back(std::move(*row));
      return true;
    }
    note_programs(line, line_no);
    if (line.find("NCCL INFO") != std::string_view::npos || line.starts_with("NCCL version")) return true;
    if (line.find("NCCL WARN") != std::string_view::npos) {
      warn_unrecognised(line_no, "NCCL warning: " + excerpt(line));
      return true;
    }
    warn_unrecognised(line_no, "unrecognised line ignored: \"" + excerpt(line) + "\"");
    return true;
  }

  bool handle_comment(std::string_view body, int64_t line_no) {
    if (body.empty()) return true;
    const auto tokens = split_ws(body);
    const std::string first = lowercase(tokens.front());
    if (first == "size" || first == "bytes") {
      const auto layout = layout_from_header(tokens);
      if (!layout) {
        warn_unrecognised(line_no, "unrecognised table header ignored: \"" + excerpt(body) + "\"");
        return true;
      }
      if (!log_.rows.empty()) {
        warn(line_no, "a second result table starts here; only the first one was read");
        return false;
      }
      layout_ = *layout;
      if (layout_.cpu_time) warn(line_no, "the times are CPU times (nccl-tests -C), not GPU times");
      return true;
    }
    const bool starts_a_run = tokens.front() == "Rank" || tokens.front() == "nThread" ||
                              body.starts_with("nccl-tests version") || body.starts_with("Collective test starting:");
    if (starts_a_run && !log_.rows.empty()) {
      // Logs of several runs appended to one file: the second run's device report would be
      // counted with the first's ranks.
      warn(line_no, "a second run starts here; only the first one was read");
      return false;
    }
    if (tokens.front() == "Rank") {
      if (auto rank = parse_rank_line(body)) {
        log_.rank_lines.push_back(std::move(*rank));
      } else {
        warn(line_no, "unreadable Rank line ignored: \"" + excerpt(body) + "\"");
      }
      return true;
    }
    if (tokens.front() == "nThread") {
      for (size_t i = 0; i + 1 < tokens.size(); ++i) {
        const int64_t value = std::clamp<int64_t>(parse_integer(tokens[i + 1]).value_or(0), 0, kMaxPerProcess);
        if (tokens[i] == "nThread") threads_ = value;
        if (tokens[i] == "nGpus") gpus_per_thread_ = value;
      }
      return true;
    }
    if (body.starts_with("Collective test starting:") || body.starts_with("Collective test concluded:")) {
      const std::string_view program = trim(body.substr(body.find(':') + 1));
      if (!program.empty()) logged_program_ = std::string(program);
      return true;
    }
    if (body.starts_with("Avg bus bandwidth")) {
      if (const auto gb_per_s = number_after_colon(body)) {
        log_.avg_busbw_bytes_per_s = bytes_per_s_from_gb_per_s(*gb_per_s);
      } else {
        warn(line_no, "unreadable average bus bandwidth: \"" + excerpt(body) + "\"");
      }
      return true;
    }
    if (body.starts_with("Out of bounds values")) {
      const auto count = number_after_colon(body);
      if (!count) {
        warn(line_no, "unreadable out-of-bounds count: \"" + excerpt(body) + "\"");
      } else if (*count > 0) {
        warn(line_no, "nccl-tests reports " + excerpt(trim(body.substr(body.find(':') + 1))) +
                          " out-of-bounds values: the data check FAILED");
      }
      return true;
    }
    if (body.starts_with("error:")) {
      warn(line_no, "nccl-tests reports an " + excerpt(body));
      return true;
    }
    static constexpr std::string_view kKnownPrefixes[] = {"nccl-tests version",
                                                          "Using devices",
                                                          "Reducing maxBytes",
                                                          "Blocking Enabled",
                                                          "Parallel Init",
                                                          "Per-Iteration",
                                                          "GPU memory usage",
                                                          "Writing JSON output",
                                                          "skipping json",
                                                          "Writing results",
                                                          "(B)",
                                                          "(bytes)"};
    for (const std::string_view prefix : kKnownPrefixes) {
      if (body.starts_with(prefix)) return true;
    }
    if (body.find("out-of-place") != std::string_view::npos) return true;  // the caption above the columns
    note_programs(body, line_no);
    warn_unrecognised(line_no, "unrecognised comment line ignored: \"# " + excerpt(body) + "\"");
    return true;
  }

  void note_programs(std::string_view line, int64_t line_no) {
    for (const auto& program : perf_programs_in(line)) {
      if (mentioned_programs_.insert(program).second && first_program_line_ == 0) first_program_line_ = line_no;
    }
  }

  void resolve_op(std::optional<CollectiveOp> op_hint) {
    std::optional<CollectiveOp> from_log;
    std::string named;
    if (logged_program_) {
      named = *logged_program_;
    } else {
      std::set<std::string> distinct;
      for (const auto& program : mentioned_programs_) distinct.insert(lowercase(program));
      if (distinct.size() == 1) {
        named = *distinct.begin();
      } else if (distinct.size() > 1) {
        std::string list;
        for (const auto& program : distinct) list += (list.empty() ? "" : ", ") + program;
        warn(first_program_line_, "the log names several nccl-tests programs (" + list + "); none was taken");
      }
    }
    if (!named.empty()) {
      from_log = parse_collective_op(named);
      if (!from_log) {
        warn(0, "the log was written by \"" + named + "\", which is not one of the modelled collectives");
        return;  // the hint cannot overrule what the log says ran
      }
    }
    if (from_log) {
      log_.op = from_log;
      if (op_hint && *op_hint != *from_log) {
        warn(0, "the log says " + std::string(collective_op_name(*from_log)) + " ran; the hint " +
                    std::string(collective_op_name(*op_hint)) + " was ignored");
      }
    } else if (op_hint) {
      log_.op = op_hint;
    } else {
      warn(0, "the log does not say which collective ran (no \"Collective test starting\" line)");
    }
  }

  void resolve_ranks() {
    for (const auto& rank : log_.rank_lines) {
      if (std::find(log_.hosts.begin(), log_.hosts.end(), rank.host) == log_.hosts.end()) {
        log_.hosts.push_back(rank.host);
      }
    }
    if (!log_.rank_lines.empty()) {
      int64_t max_rank = 0;
      std::set<std::pair<std::string, int64_t>> processes;
      for (const auto& rank : log_.rank_lines) {
        max_rank = std::max(max_rank, rank.rank);
        processes.insert({rank.host, rank.pid});
      }
      log_.ranks = max_rank + 1;
      if (threads_ > 0 && gpus_per_thread_ > 0) {
        // nccl-tests runs nThread × nGpus ranks in each process (src/common.cu, run()).
        const int64_t from_header = threads_ * gpus_per_thread_ * static_cast<int64_t>(processes.size());
        if (from_header != log_.ranks) {
          warn(0, "the Rank lines give " + std::to_string(log_.ranks) +
                      " ranks but nThread x nGpus x processes gives " + std::to_string(from_header) +
                      "; the larger is used");
          log_.ranks = std::max(log_.ranks, from_header);
        }
      }
      return;
    }
    if (!log_.op || !factor_depends_on_ranks(*log_.op)) return;
    // No device report (a table cut out of a longer log): the rank count is recoverable from
    // busbw = algbw × factor(n) when exactly one n fits every printed pair. Pairs below 1 GB/s are
    // left out: their two decimals cannot tell neighbouring n apart.
    const auto pairs = bandwidth_pairs(log_.rows, 1.0);
    if (pairs.empty()) return;
    std::vector<int64_t> fitting;
    for (int64_t n = 2; n <= kMaxInferredRanks && fitting.size() < 2; ++n) {
      const double factor = bus_bandwidth_factor(*log_.op, n);
      if (std::all_of(pairs.begin(), pairs.end(), [&](const BandwidthPair& p) { return fits_factor(p, factor); })) {
        fitting.push_back(n);
      }
    }
    if (fitting.size() == 1) {
      log_.ranks = fitting.front();
      warn(0, "no Rank lines: " + std::to_string(log_.ranks) + " ranks inferred from busbw / algbw of " +
                  std::to_string(pairs.size()) + " results");
    } else if (fitting.empty()) {
      warn(0, "no Rank lines, and busbw / algbw fits " + std::string(collective_op_name(*log_.op)) +
                  " for no rank count; is the collective right?");
    } else {
      warn(0, "no Rank lines, and busbw / algbw fits several rank counts; the rank count is unknown");
    }
  }

  void check_bus_bandwidth() {
    if (!log_.op || log_.ranks < 1) return;
    const double factor = bus_bandwidth_factor(*log_.op, log_.ranks);
    int64_t mismatches = 0;
    int64_t first_line = 0;
    for (const auto& pair : bandwidth_pairs(log_.rows, 0.0)) {
      if (fits_factor(pair, factor)) continue;
      if (mismatches++ == 0) first_line = pair.line;
    }
    if (mismatches > 0) {
      warn(first_line, "busbw is not algbw x " + std::to_string(factor) + " (" +
                           std::string(collective_op_name(*log_.op)) + ", " + std::to_string(log_.ranks) +
                           " ranks) in " + std::to_string(mismatches) +
                           " results; the collective or the rank count may be wrong");
    }
  }

  Result<NcclTestsLog> finish(std::optional<CollectiveOp> op_hint) {
    if (log_.rows.empty()) {
      std::string message = "no nccl-tests result rows found";
      if (saw_control_bytes_) message += " (the file holds binary data, not a text log)";
      return make_error(ErrorCode::parse_error, message, origin_);
    }
    if (unrecognised_lines_ > kMaxLineWarnings) {
      warn(0, std::to_string(unrecognised_lines_ - kMaxLineWarnings) + " more unrecognised lines were ignored");
    }
    if (other_task_lines_ > 0) {
      warn(other_task_first_line_, std::to_string(other_task_lines_) + " lines from launcher tasks other than \"" +
                                       *main_label_ + "\" were ignored (each task ran its own test?)");
    }
    resolve_op(op_hint);
    resolve_ranks();
    check_bus_bandwidth();
    return std::move(log_);
  }

  std::string_view text_;
  const std::string& origin_;
  NcclTestsLog log_;
  TableLayout layout_;
  int64_t threads_ = 0;
  int64_t gpus_per_thread_ = 0;
  std::optional<std::string> logged_program_;
  std::set<std::string> mentioned_programs_;
  int64_t first_program_line_ = 0;
  std::optional<std::string> main_label_;
  int64_t other_task_lines_ = 0;
  int64_t other_task_first_line_ = 0;
  int64_t unrecognised_lines_ = 0;
  bool saw_control_bytes_ = false;
};

}  // namespace

std::optional<CollectiveOp> collective_op_from_file_name(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  if (slash != std::string_view::npos) path = path.substr(slash + 1);
  std::string name = text::lowercase_alnum(path);
  // Longer names first; a match is blanked out so that "reduce" is not found again inside "allreduce".
  static constexpr std::pair<std::string_view, CollectiveOp> kNeedles[] = {
      {"reducescatter", CollectiveOp::reduce_scatter},
      {"allreduce", CollectiveOp::all_reduce},
      {"allgather", CollectiveOp::all_gather},
      {"alltoall", CollectiveOp::all_to_all},
      {"broadcast", CollectiveOp::broadcast},
      {"sendrecv", CollectiveOp::send_recv},
      {"reduce", CollectiveOp::reduce}};
  std::set<CollectiveOp> found;
  for (const auto& [needle, op] : kNeedles) {
    for (size_t at = name.find(needle); at != std::string::npos; at = name.find(needle, at)) {
      found.insert(op);
      name.replace(at, needle.size(), needle.size(), '|');
    }
  }
  if (found.size() != 1) return std::nullopt;
  return *found.begin();
}

Result<NcclTestsLog> parse_nccl_tests(std::string_view text, const std::string& origin,
                                      std::optional<CollectiveOp> op_hint) {
  return Parser(text, origin).run(op_hint);
}

Result<NcclTestsLog> load_nccl_tests(const std::string& path, std::optional<CollectiveOp> op_hint) {
  MS_TRY(text, read_text_file(path));
  return parse_nccl_tests(text, path, op_hint ? op_hint : collective_op_from_file_name(path));
}

}  // namespace meshscope

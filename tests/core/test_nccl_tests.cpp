// nccl-tests log import, on the real logs in ../shared/data/nccl_tests (see ../shared/data/MANIFEST.md)
// and on variants derived from them here: other launcher prefixes, the newer output format, broken files.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/importers/nccl_tests.hpp"
#include "core/model/model_io.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {
const std::string kDir = "data/nccl_tests/";
const std::string kAllReduce = test::shared_path(kDir + "superbench_8xA100-SXM4-40GB_nccl_allreduce.log");
const std::string kMi300x = test::shared_path(kDir + "rccl_all_reduce_perf_mi300x_8gpu_amd_acceptance_guide.log");

std::string read(const std::string& path) {
  auto text = read_text_file(path);
  REQUIRE(text);
  return *text;
}

// A table cut out of a longer log, as one pastes it: the MI300X all-reduce log's lines 14-46 (the two
// column-header lines and the 31 rows, 8 B..8 GiB), without its header, device report and footer.
std::string table_excerpt() {
  const std::string text = read(kMi300x);
  const size_t begin = text.find("# size count type");
  const size_t end = text.find("# Errors with asterisks");
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  return text.substr(begin, end - begin);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "meshscope_test_nccl_tests";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string warnings_of(const NcclTestsLog& log) {
  std::string out;
  for (const auto& w : log.warnings) out += std::to_string(w.line) + ": " + w.message + "\n";
  return out;
}

// 1-based line of a byte offset.
int64_t line_at(const std::string& text, size_t offset) {
  return 1 + static_cast<int64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// Each line of `text` with `prefix` in front, as a launcher writes it.
std::string prefixed(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) out += prefix + line + "\n";
  return out;
}

// The excerpt as Slurm's srun --label writes it: every line prefixed with the task label "0: ".
std::string srun_excerpt() {
  return prefixed(table_excerpt(), "0: ");
}

// The printed values are rounded to 0.01 GB/s, so busbw = algbw × factor holds to half a unit in
// each: |busbw - algbw·f| <= 0.005 (1 + f) GB/s.
void check_bus_bandwidth(double algbw_bytes_per_s, double busbw_bytes_per_s, double factor) {
  CHECK_THAT(busbw_bytes_per_s, WithinAbs(algbw_bytes_per_s * factor, 0.005e9 * (1.0 + factor) + 1e-3));
}
}  // namespace

TEST_CASE("nccl-tests: each superbench 8xA100 log gives its collective, 8 ranks and the 1 B..8 GiB sweep", "[nccl]") {
  struct Case {
    const char* file;
    CollectiveOp op;
    const char* redop;
    int64_t root;
    int64_t first_line;
    double avg_busbw_gb_per_s;  // the "# Avg bus bandwidth" footer
  };
  // Row counts and lines as in the files: sizes 1 B..8 GiB by factor 2 are 34 rows; the sizes below
  // one element per rank print as 0 bytes.
  const Case c = GENERATE(Case{"allreduce", CollectiveOp::all_reduce, "sum", -1, 17, 68.4048},
                          Case{"allgather", CollectiveOp::all_gather, "", -1, 17, 58.2651},
                          Case{"alltoall", CollectiveOp::all_to_all, "", -1, 16, 58.6481},
                          Case{"broadcast", CollectiveOp::broadcast, "", 0, 17, 64.8653},
                          Case{"reduce", CollectiveOp::reduce, "sum", 0, 17, 65.018},
                          Case{"reducescatter", CollectiveOp::reduce_scatter, "sum", -1, 17, 60.168});
  const std::string path = test::shared_path(kDir + "superbench_8xA100-SXM4-40GB_nccl_" + c.file + ".log");
  INFO(path);
  auto log = load_nccl_tests(path);
  REQUIRE(log);
  INFO(warnings_of(*log));
  CHECK(log->warnings.empty());
  REQUIRE(log->op);
  CHECK(*log->op == c.op);
  CHECK(log->ranks == 8);
  REQUIRE(log->rank_lines.size() == 8);
  CHECK(log->rank_lines[7].rank == 7);
  CHECK(log->rank_lines[7].device == 7);
  CHECK(log->rank_lines[7].group == 0);  // the old format has no Group field
  CHECK(log->rank_lines[7].bus_id == "0x00");
  CHECK(log->rank_lines[7].device_name == "A100-SXM4-40GB");
  CHECK(log->hosts == std::vector<std::string>{"localhost"});
  REQUIRE(log->avg_busbw_bytes_per_s);
  CHECK_THAT(*log->avg_busbw_bytes_per_s, WithinRel(c.avg_busbw_gb_per_s * 1e9, 1e-12));

  REQUIRE(log->rows.size() == 34);
  CHECK(log->rows.front().bytes == 0);
  CHECK(log->rows.front().line == c.first_line);
  CHECK(log->rows.back().bytes == 8589934592.0);
  CHECK(log->rows.back().line == c.first_line + 33);
  const double factor = bus_bandwidth_factor(c.op, 8);
  for (const auto& row : log->rows) {
    INFO("line " << row.line);
    CHECK(row.type == "float");
    CHECK(row.redop == c.redop);
    CHECK(row.root == c.root);
    CHECK_FALSE(row.out_of_place_wrong);  // "N/A": validation was off
    CHECK_FALSE(row.in_place_wrong);
    check_bus_bandwidth(row.out_of_place_algbw_bytes_per_s, row.out_of_place_busbw_bytes_per_s, factor);
    check_bus_bandwidth(row.in_place_algbw_bytes_per_s, row.in_place_busbw_bytes_per_s, factor);
  }
}

TEST_CASE("nccl-tests: times are read as microseconds and bandwidths as GB/s", "[nccl]") {
  auto log = load_nccl_tests(kAllReduce);
  REQUIRE(log);
  // Line 50: "8589934592  2147483648  float  sum  63896  134.44  235.26  N/A  63959  134.30  235.03  N/A"
  const auto& last = log->rows.back();
  CHECK(last.count == 2147483648);
  CHECK_THAT(last.out_of_place_time_s, WithinRel(63896e-6, 1e-12));
  CHECK_THAT(last.out_of_place_algbw_bytes_per_s, WithinRel(134.44e9, 1e-12));
  CHECK_THAT(last.out_of_place_busbw_bytes_per_s, WithinRel(235.26e9, 1e-12));
  CHECK_THAT(last.in_place_time_s, WithinRel(63959e-6, 1e-12));
  CHECK_THAT(last.in_place_algbw_bytes_per_s, WithinRel(134.30e9, 1e-12));
  CHECK_THAT(last.in_place_busbw_bytes_per_s, WithinRel(235.03e9, 1e-12));
}

TEST_CASE("nccl-tests: a table excerpt with srun labels gives its op from the file name and 8 inferred ranks",
          "[nccl]") {
  // The MI300X all-reduce table without its header, under a file name that names the collective.
  const std::string path = write_temp("all_reduce_perf_excerpt.log", srun_excerpt());
  auto log = load_nccl_tests(path);
  REQUIRE(log);
  INFO(warnings_of(*log));
  REQUIRE(log->op);
  CHECK(*log->op == CollectiveOp::all_reduce);
  CHECK(log->rank_lines.empty());
  // No Rank lines; busbw / algbw = 2(n-1)/n fits n = 8 alone within the printed rounding (line 46:
  // 180.88 -> 316.55 GB/s is 1.750, while n = 7 and 9 give 1.714 and 1.778), and the warning says the
  // count is inferred. 8 = the full log's Rank 0..7 lines (lines 5-12), cut from the excerpt.
  CHECK(log->ranks == 8);
  REQUIRE(log->warnings.size() == 1);
  CHECK_THAT(log->warnings[0].message, Contains("inferred"));

  REQUIRE(log->rows.size() == 31);  // lines 16-46: 8 B..8 GiB by factor 2
  CHECK(log->rows.front().bytes == 8);
  CHECK(log->rows.front().line == 3);  // after the two column-header lines
  CHECK(log->rows.back().bytes == 8589934592.0);
  CHECK(log->rows.back().redop == "sum");
  CHECK(log->rows.back().root == -1);
  CHECK(log->rows.back().out_of_place_wrong == 0);
  CHECK(log->rows.back().in_place_wrong == 0);
  double peak_busbw = 0;
  for (const auto& row : log->rows) {
    peak_busbw = std::max({peak_busbw, row.out_of_place_busbw_bytes_per_s, row.in_place_busbw_bytes_per_s});
    check_bus_bandwidth(row.out_of_place_algbw_bytes_per_s, row.out_of_place_busbw_bytes_per_s,
                        bus_bandwidth_factor(CollectiveOp::all_reduce, 8));
  }
  // Line 46: "8589934592 2147483648 float sum -1 47488 180.88 316.55 0 47594 180.48 315.84 0".
  CHECK_THAT(peak_busbw, WithinRel(316.55e9, 1e-12));
}

TEST_CASE("nccl-tests: without an op hint a table-only log has rows but no collective and no rank count", "[nccl]") {
  auto log = parse_nccl_tests(table_excerpt(), "excerpt.log");
  REQUIRE(log);
  CHECK(log->rows.size() == 31);
  CHECK_FALSE(log->op);
  CHECK(log->ranks == 0);
  REQUIRE(log->warnings.size() == 1);
  CHECK_THAT(log->warnings[0].message, Contains("does not say which collective"));
}

TEST_CASE("nccl-tests: Open MPI --tag-output and ISO timestamp prefixes are stripped", "[nccl]") {
  const std::string text = read(kAllReduce);
  auto plain = parse_nccl_tests(text, "plain.log", CollectiveOp::all_reduce);
  REQUIRE(plain);
  const std::string prefix = GENERATE(as<std::string>{}, "[1,0]<stdout>:", "2024-05-01T10:00:00.123456Z ",
                                      "node-07: ", "2024-05-01T10:00:00Z [1,0]<stdout>:");
  INFO(prefix);
  auto tagged = parse_nccl_tests(prefixed(text, prefix), "tagged.log", CollectiveOp::all_reduce);
  REQUIRE(tagged);
  INFO(warnings_of(*tagged));
  CHECK(tagged->warnings.empty());
  CHECK(tagged->ranks == 8);
  REQUIRE(tagged->rows.size() == plain->rows.size());
  for (size_t i = 0; i < plain->rows.size(); ++i) {
    CHECK(tagged->rows[i].bytes == plain->rows[i].bytes);
    CHECK(tagged->rows[i].out_of_place_time_s == plain->rows[i].out_of_place_time_s);
    CHECK(tagged->rows[i].in_place_busbw_bytes_per_s == plain->rows[i].in_place_busbw_bytes_per_s);
  }
}

TEST_CASE("nccl-tests: the newer format's device report, Group field, #wrong and N/A columns are read", "[nccl]") {
  // The MI300X table under a device report written with nccl-tests' own formats (src/util.cu,
  // writeDeviceReport: "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s";
  // writeResultFooter: "# %-20s : %d %s", "# %-20s : %g %s"), with the log's own values: one process
  // (Pid 806883) on SMC-SC-DC19-06 driving 8 MI300X at the bus ids of its lines 5-12.
  std::string text =
      "# nccl-tests version 2.13.9 nccl-headers=21903 nccl-library=21903\n"
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n#\n# Using devices\n";
  const int bus[8] = {0x05, 0x26, 0x46, 0x65, 0x85, 0xa6, 0xc6, 0xe5};
  for (int rank = 0; rank < 8; ++rank) {
    char line[200];
    std::snprintf(line, sizeof line, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", rank, 0,
                  806883, "SMC-SC-DC19-06", rank, 0, bus[rank], 0, "AMD Instinct MI300X");
    text += line;
  }
  std::string table = table_excerpt();
  // The first row's in-place #wrong (line 16: "8 2 float sum -1 34.13 ... 39.55 0.00 0.00 0") becomes
  // "N/A", as sendrecv_perf prints it.
  const size_t first_row = table.find("\n8 2 float") + 1;
  const size_t first_row_end = table.find('\n', first_row);
  REQUIRE(table.substr(first_row_end - 1, 1) == "0");
  table.replace(first_row_end - 1, 1, "N/A");
  text += "#\n" + table;
  text +=
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 102.138 \n#\n"  // line 49
      "# Collective test concluded: all_reduce_perf\n#\n";

  auto log = parse_nccl_tests(text, "h.log", CollectiveOp::broadcast);  // the log's own name wins
  REQUIRE(log);
  INFO(warnings_of(*log));
  REQUIRE(log->op);
  CHECK(*log->op == CollectiveOp::all_reduce);
  REQUIRE(log->warnings.size() == 1);
  CHECK_THAT(log->warnings[0].message, Contains("hint broadcast was ignored"));
  CHECK(log->ranks == 8);
  CHECK(log->hosts == std::vector<std::string>{"SMC-SC-DC19-06"});
  REQUIRE(log->rank_lines.size() == 8);
  CHECK(log->rank_lines[5].host == "SMC-SC-DC19-06");  // line 10: "# Rank 5 Pid 806883 on SMC-SC-DC19-06 device 5
  CHECK(log->rank_lines[5].pid == 806883);             // [0000:a6:00.0] AMD Instinct MI300X"
  CHECK(log->rank_lines[5].device == 5);
  CHECK(log->rank_lines[5].group == 0);
  CHECK(log->rank_lines[5].bus_id == "0000:a6:00");
  CHECK(log->rank_lines[5].device_name == "AMD Instinct MI300X");
  REQUIRE(log->avg_busbw_bytes_per_s);
  CHECK_THAT(*log->avg_busbw_bytes_per_s, WithinRel(102.138e9, 1e-12));
  REQUIRE(log->rows.size() == 31);
  CHECK(log->rows[0].out_of_place_wrong == 0);
  CHECK_FALSE(log->rows[0].in_place_wrong);
  CHECK(log->rows[1].in_place_wrong == 0);
}

TEST_CASE("nccl-tests: a trailing timestamp column and the old error column are read", "[nccl]") {
  std::string text = read(kAllReduce);
  SECTION("timestamps after each row (nccl-tests -t)") {
    std::string stamped;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      const bool row = !line.empty() && line[0] == ' ';
      stamped += line + (row ? "  2024-05-01 10:00:00" : "") + "\n";
    }
    auto log = parse_nccl_tests(stamped, "t.log", CollectiveOp::all_reduce);
    REQUIRE(log);
    REQUIRE(log->rows.size() == 34);
    CHECK_THAT(log->rows.back().in_place_busbw_bytes_per_s, WithinRel(235.03e9, 1e-12));
  }
  SECTION("a max deviation (\"0e+00\", old -c 1) is not a count of wrong elements") {
    for (size_t at = text.find("N/A"); at != std::string::npos; at = text.find("N/A", at)) text.replace(at, 3, "2e-07");
    auto log = parse_nccl_tests(text, "e.log", CollectiveOp::all_reduce);
    REQUIRE(log);
    CHECK(log->warnings.empty());
    REQUIRE(log->rows.size() == 34);
    CHECK_FALSE(log->rows[5].out_of_place_wrong);
  }
}

TEST_CASE("nccl-tests: wrong elements and a failed data check are warnings naming the line", "[nccl]") {
  std::string text = srun_excerpt();
  // Line 46 of the MI300X log, labelled: "0: 8589934592 ... 316.55 0 47594 180.48 315.84 0": 3 wrong
  // in-place elements.
  const size_t row = text.find("0: 8589934592 ");
  REQUIRE(row != std::string::npos);
  const size_t row_end = text.find('\n', row);
  text.replace(row_end - 1, 1, "3");
  text += "0: # Out of bounds values : 1 FAILED\n";
  auto log = parse_nccl_tests(text, "w.log", CollectiveOp::all_reduce);
  REQUIRE(log);
  INFO(warnings_of(*log));
  CHECK(log->rows.back().in_place_wrong == 3);
  const auto has = [&](int64_t line, const std::string& words) {
    return std::any_of(log->warnings.begin(), log->warnings.end(), [&](const NcclTestsWarning& w) {
      return w.line == line && w.message.find(words) != std::string::npos;
    });
  };
  CHECK(has(line_at(text, row), "3 wrong elements"));
  CHECK(has(34, "FAILED"));  // after the 2 column-header lines and the 31 rows
}

TEST_CASE("nccl-tests: a log cut off in the middle of a row keeps the rows before it and says where", "[nccl]") {
  const std::string text = read(kAllReduce);
  const size_t row = text.find("     1048576        262144");
  REQUIRE(row != std::string::npos);
  const std::string cut = text.substr(0, row + 45);  // "... 1048576  262144  float  sum  74.7"
  auto log = parse_nccl_tests(cut, "cut.log", CollectiveOp::all_reduce);
  REQUIRE(log);
  CHECK(log->rows.size() == 20);  // 0 B..512 KiB
  CHECK(log->rows.back().bytes == 524288);
  REQUIRE(log->warnings.size() == 1);
  CHECK(log->warnings[0].line == line_at(text, row));
  CHECK_THAT(log->warnings[0].message, Contains("ends in the middle of this row"));
}

TEST_CASE("nccl-tests: a corrupted number in a row is an error naming the file and line", "[nccl]") {
  std::string text = read(kAllReduce);
  const size_t at = text.find("74.78");  // the 1 MiB out-of-place time
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find("74.78", at + 1) == std::string::npos);
  text.replace(at, 5, "74,78");  // a decimal comma
  auto log = parse_nccl_tests(text, "superbench_allreduce.log", CollectiveOp::all_reduce);
  REQUIRE_FALSE(log);
  CHECK(log.error().code == ErrorCode::parse_error);
  CHECK(log.error().location == "superbench_allreduce.log:" + std::to_string(line_at(text, at)));
  CHECK_THAT(log.error().message, Contains("74,78"));
}

TEST_CASE("nccl-tests: a row with missing columns is an error", "[nccl]") {
  std::string text = read(kAllReduce);
  const std::string in_place = "1162.5  115.46  202.05    N/A";  // 128 MiB in-place columns
  const size_t at = text.find(in_place);
  REQUIRE(at != std::string::npos);
  text.erase(at, in_place.size());
  auto log = parse_nccl_tests(text, "short.log");
  REQUIRE_FALSE(log);
  CHECK(log.error().code == ErrorCode::parse_error);
  CHECK(log.error().location == "short.log:" + std::to_string(line_at(text, at)));
}

TEST_CASE("nccl-tests: a log without result rows is an error", "[nccl]") {
  const std::string text = read(kAllReduce);
  const std::string header_only = text.substr(0, text.find("hostname:3442"));
  const std::string input = GENERATE_REF(as<std::string>{}, header_only, "", "\n\n\n", "# nThread 1 nGpus 8\n");
  auto log = parse_nccl_tests(input, "empty.log");
  REQUIRE_FALSE(log);
  CHECK(log.error().code == ErrorCode::parse_error);
  CHECK(log.error().location == "empty.log");
  CHECK_THAT(log.error().message, Contains("no nccl-tests result rows"));
}

TEST_CASE("nccl-tests: binary garbage is an error, not a crash", "[nccl]") {
  std::mt19937 random(20240501);
  std::string garbage(1 << 16, '\0');
  for (char& c : garbage) c = static_cast<char>(random() & 0xFF);
  auto log = parse_nccl_tests(garbage, "garbage.bin");
  REQUIRE_FALSE(log);
  CHECK(log.error().code == ErrorCode::parse_error);
  CHECK_THAT(log.error().message, Contains("binary"));

  // Garbage after a good log: whatever comes out, it comes out as a value or an error.
  CHECK_NOTHROW(parse_nccl_tests(read(kAllReduce) + garbage, "tail.log"));
}

TEST_CASE("nccl-tests: lines from a second srun task are ignored with one warning", "[nccl]") {
  // Task 1 of a misconfigured job running its own test, interleaved after task 0's lines.
  const std::string text = srun_excerpt();
  std::string other_task = text.substr(0, text.find("0: 1024 "));  // 2 header lines, 7 rows (8..512 B)
  other_task[0] = '1';
  for (size_t at = other_task.find("\n0: "); at != std::string::npos; at = other_task.find("\n0: ", at)) {
    other_task[at + 1] = '1';
  }
  auto log = parse_nccl_tests(text + other_task, "two.log", CollectiveOp::all_reduce);
  REQUIRE(log);
  INFO(warnings_of(*log));
  CHECK(log->rows.size() == 31);
  CHECK(log->ranks == 8);
  CHECK(std::any_of(log->warnings.begin(), log->warnings.end(), [](const NcclTestsWarning& w) {
    return w.line == 34 && w.message.find("9 lines from launcher tasks other than \"0\"") != std::string::npos;
  }));
}

TEST_CASE("nccl-tests: collective names, file names and bus-bandwidth factors", "[nccl]") {
  SECTION("names") {
    const auto [name, op] = GENERATE(table<std::string, CollectiveOp>({
        {"all-reduce", CollectiveOp::all_reduce},
        {"all_reduce", CollectiveOp::all_reduce},
        {"allreduce", CollectiveOp::all_reduce},
        {"all_reduce_perf", CollectiveOp::all_reduce},
        {"/opt/nccl-tests/build/all_reduce_perf", CollectiveOp::all_reduce},
        {"AllGather", CollectiveOp::all_gather},
        {"reduce_scatter_perf", CollectiveOp::reduce_scatter},
        {"alltoall_perf", CollectiveOp::all_to_all},
        {"all-to-all", CollectiveOp::all_to_all},
        {"broadcast_perf", CollectiveOp::broadcast},
        {"reduce_perf", CollectiveOp::reduce},
        {"sendrecv_perf", CollectiveOp::send_recv},
        {"send-recv", CollectiveOp::send_recv},
    }));
    INFO(name);
    CHECK(parse_collective_op(name) == op);
    CHECK(parse_collective_op(collective_op_name(op)) == op);
  }
  SECTION("unknown names") {
    CHECK_FALSE(parse_collective_op("hypercube_perf"));
    CHECK_FALSE(parse_collective_op(""));
    CHECK_FALSE(parse_collective_op("reduce_scatter_gather"));
  }
  SECTION("file names") {
    CHECK(collective_op_from_file_name("logs/superbench_nccl_reducescatter.log") == CollectiveOp::reduce_scatter);
    CHECK(collective_op_from_file_name("nccl_reduce.log") == CollectiveOp::reduce);
    CHECK(collective_op_from_file_name("run3/all_gather_perf.txt") == CollectiveOp::all_gather);
    CHECK_FALSE(collective_op_from_file_name("allreduce_vs_allgather.log"));
    CHECK_FALSE(collective_op_from_file_name("allreduce/run.log"));  // only the file's own name counts
  }
  SECTION("factors (nccl-tests doc/PERFORMANCE.md)") {
    CHECK_THAT(bus_bandwidth_factor(CollectiveOp::all_reduce, 8), WithinRel(1.75, 1e-15));
    CHECK_THAT(bus_bandwidth_factor(CollectiveOp::all_reduce, 16), WithinRel(1.875, 1e-15));
    CHECK_THAT(bus_bandwidth_factor(CollectiveOp::all_gather, 8), WithinRel(0.875, 1e-15));
    CHECK_THAT(bus_bandwidth_factor(CollectiveOp::reduce_scatter, 4), WithinRel(0.75, 1e-15));
    CHECK_THAT(bus_bandwidth_factor(CollectiveOp::all_to_all, 2), WithinRel(0.5, 1e-15));
    CHECK(bus_bandwidth_factor(CollectiveOp::broadcast, 8) == 1.0);
    CHECK(bus_bandwidth_factor(CollectiveOp::reduce, 8) == 1.0);
    CHECK(bus_bandwidth_factor(CollectiveOp::send_recv, 8) == 1.0);
    CHECK(bus_bandwidth_factor(CollectiveOp::all_reduce, 1) == 0.0);
    CHECK(std::isnan(bus_bandwidth_factor(CollectiveOp::all_reduce, 0)));
  }
}

TEST_CASE("nccl-tests: an alpha-beta fit of the 8xA100 all-reduce gives NVLink bandwidth and microseconds latency",
          "[nccl]") {
  auto log = load_nccl_tests(kAllReduce);
  REQUIRE(log);
  const double large_message_algbw = log->rows.back().out_of_place_algbw_bytes_per_s;  // 134.44 GB/s at 8 GiB

  auto fit = fit_alpha_beta(log->rows);
  REQUIRE(fit);
  CHECK(fit->points == 32);  // the two 0-byte rows are left out
  // Physical bounds, not fitted values: the bandwidth is that of the large messages within 20 %, and
  // the latency a few tens of microseconds (the smallest all-reduce takes ~35 us in this log).
  CHECK(fit->beta_bytes_per_s > 0.8 * large_message_algbw);
  CHECK(fit->beta_bytes_per_s < 1.2 * large_message_algbw);
  CHECK(fit->alpha_s > 5e-6);
  CHECK(fit->alpha_s < 100e-6);
  CHECK(fit->r_squared > 0.5);
  CHECK(fit->r_squared <= 1.0);

  auto large = fit_alpha_beta(log->rows, 64.0 * 1024 * 1024);
  REQUIRE(large);
  CHECK(large->points == 8);  // 64 MiB..8 GiB
  CHECK_THAT(large->beta_bytes_per_s, WithinRel(large_message_algbw, 0.05));
}

TEST_CASE("nccl-tests: an alpha-beta fit needs two sizes and a time that grows", "[nccl]") {
  auto log = load_nccl_tests(kAllReduce);
  REQUIRE(log);
  CHECK_FALSE(fit_alpha_beta({}));
  CHECK_FALSE(fit_alpha_beta({log->rows.back()}));
  CHECK_FALSE(fit_alpha_beta(log->rows, 1e12));
  auto shrinking = log->rows;
  std::reverse(shrinking.begin(), shrinking.end());
  for (size_t i = 0; i < shrinking.size(); ++i) shrinking[i].bytes = log->rows[i].bytes;
  auto fit = fit_alpha_beta(shrinking);
  REQUIRE_FALSE(fit);
  CHECK(fit.error().code == ErrorCode::invalid_argument);
}

TEST_CASE("nccl-tests: unknown comment lines and NCCL warnings are warnings; NCCL INFO lines are not", "[nccl]") {
  std::string text = read(kAllReduce);
  const size_t table = text.find("#                                                     out-of-place");
  REQUIRE(table != std::string::npos);
  text.insert(table, "# Something nccl-tests never printed : 3\nnode1:77:77 [0] NCCL WARN NET/IB : Got async event\n");
  auto log = parse_nccl_tests(text, "odd.log", CollectiveOp::all_reduce);
  REQUIRE(log);
  REQUIRE(log->warnings.size() == 2);
  CHECK(log->warnings[0].line == line_at(text, table));
  CHECK_THAT(log->warnings[0].message, Contains("Something nccl-tests never printed"));
  CHECK(log->warnings[1].line == line_at(text, table) + 1);
  CHECK_THAT(log->warnings[1].message, Contains("NCCL WARN"));
  CHECK(log->rows.size() == 34);
}

TEST_CASE("nccl-tests: a program that is not a modelled collective leaves the op empty, whatever the hint", "[nccl]") {
  const std::string text = "# Collective test starting: hypercube_perf\n" + table_excerpt();
  auto log = parse_nccl_tests(text, "hypercube.log", CollectiveOp::all_gather);
  REQUIRE(log);
  CHECK_FALSE(log->op);
  CHECK(log->ranks == 0);
  REQUIRE_FALSE(log->warnings.empty());
  CHECK_THAT(log->warnings[0].message, Contains("hypercube_perf"));
}

TEST_CASE("nccl-tests: the oldest out-of-place-only table leaves the in-place results NaN", "[nccl]") {
  // The 2016 broadcast_perf header ("# %10s  %12s  %6s  %6s  %7s  %5s  %5s  %7s": bytes N type root time
  // algbw busbw res) over the superbench broadcast rows cut to their out-of-place columns.
  const std::string source = read(test::shared_path(kDir + "superbench_8xA100-SXM4-40GB_nccl_broadcast.log"));
  std::string text = "#      bytes             N    type   root     time  algbw  busbw      res\n";
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != ' ') continue;
    const size_t error_column = line.find("N/A");
    text += line.substr(0, error_column + 3) + "\n";
  }
  auto log = parse_nccl_tests(text, "old.log", CollectiveOp::broadcast);
  REQUIRE(log);
  INFO(warnings_of(*log));
  REQUIRE(log->rows.size() == 34);
  const auto& last = log->rows.back();
  CHECK(last.root == 0);
  CHECK_THAT(last.out_of_place_algbw_bytes_per_s, WithinRel(232.81e9, 1e-12));
  CHECK(std::isnan(last.in_place_time_s));
  CHECK(std::isnan(last.in_place_busbw_bytes_per_s));
  CHECK_FALSE(last.in_place_wrong);
}

TEST_CASE("nccl-tests: of two runs appended to one file only the first is read", "[nccl]") {
  const std::string first = read(kAllReduce);
  const std::string second = read(test::shared_path(kDir + "superbench_8xA100-SXM4-40GB_nccl_allgather.log"));
  auto log = parse_nccl_tests(first + second, "both.log", CollectiveOp::all_reduce);
  REQUIRE(log);
  INFO(warnings_of(*log));
  CHECK(log->rows.size() == 34);
  CHECK(log->ranks == 8);
  CHECK(log->rank_lines.size() == 8);
  REQUIRE(log->warnings.size() == 1);
  CHECK(log->warnings[0].line == line_at(first + second, first.size()));
  CHECK_THAT(log->warnings[0].message, Contains("second run"));
}

#pragma once
// Importer for the text output of NVIDIA's nccl-tests (all_reduce_perf, all_gather_perf, ...): the
// measured size sweep of one collective, as rows of time and bandwidth per message size.
//
// Formats read (NVIDIA/nccl-tests src/common.cu and src/util.cu over the years):
//  - old:  "#   Rank  0 Pid 1234 on host device  0 [0x00] A100-SXM4-40GB", columns
//          "size count type [redop] [root] time algbw busbw error ..." ("error" is a max deviation or N/A);
//  - newer: "#  Rank  0 Group  0 Pid 1234 on host device  0 [0000:07:00] NVIDIA H100 80GB HBM3", columns
//          "size count type redop root time algbw busbw #wrong ..." (#wrong is a count of wrong elements or N/A),
//          optional per-iteration columns (i_min i_max i_p99 i_cv%) and a trailing timestamp;
//  - lines prefixed by a launcher: srun --label ("0: "), Open MPI --tag-output ("[1,0]<stdout>:"),
//    pdsh ("host: ") and ISO timestamps ("2024-05-01T10:00:00.123Z ").
// Times in the log are microseconds and bandwidths GB/s (1e9 bytes/s); they are stored in seconds and
// bytes/s. Odd but readable input gives warnings (data, never printed); unreadable input gives an Error.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/comm/collective_op.hpp"

namespace meshscope {

// One "# Rank ..." line of the device report.
struct NcclTestsRank {
  int64_t rank = 0;
  int64_t group = 0;  // 0 in the old format, which has no Group field
  int64_t pid = 0;
  int64_t device = 0;  // CUDA device index on its host
  std::string host;
  std::string bus_id;       // between the brackets: "0x07" (old) or "0000:07:00" (newer)
  std::string device_name;  // "NVIDIA H100 80GB HBM3"
};

// One row of the result table (one message size and data type).
struct NcclTestsRow {
  double bytes = 0;   // "size" column
  int64_t count = 0;  // elements
  std::string type;   // "float", "bfloat16", ...
  std::string redop;  // "sum", ...; empty when the column is absent or blank
  int64_t root = -1;  // -1 when the column is absent (nccl-tests' own "no root")
  double out_of_place_time_s = 0;
  double out_of_place_algbw_bytes_per_s = 0;
  double out_of_place_busbw_bytes_per_s = 0;
  double in_place_time_s = 0;  // the in-place fields are NaN when the log has no in-place columns
  double in_place_algbw_bytes_per_s = 0;
  double in_place_busbw_bytes_per_s = 0;
  // Wrong elements found by the data check; nullopt for "N/A" (no check) and for the old format's
  // "error" column, which holds a maximum deviation, not a count.
  std::optional<int64_t> out_of_place_wrong;
  std::optional<int64_t> in_place_wrong;
  int64_t line = 0;  // 1-based line in the log
};

struct NcclTestsWarning {
  int64_t line = 0;  // 1-based; 0 for the log as a whole
  std::string message;
};

struct NcclTestsLog {
  std::optional<CollectiveOp> op;  // from the log ("Collective test starting:", a *_perf command), else op_hint
  // From the Rank lines (and nThread × nGpus × processes); else inferred from busbw/algbw when exactly
  // one rank count fits every row (a warning says so); 0 when unknown.
  int64_t ranks = 0;
  std::vector<NcclTestsRank> rank_lines;
  std::vector<std::string> hosts;               // distinct, in order of first appearance
  std::optional<double> avg_busbw_bytes_per_s;  // "# Avg bus bandwidth" footer
  std::vector<NcclTestsRow> rows;
  std::vector<NcclTestsWarning> warnings;
};

// text: the whole log; origin: the file name used in messages; op_hint: the collective when the log
// does not say which tool ran (e.g. from the file name or the user). Errors (parse_error): no result
// row at all, or a result row that cannot be read (Error::location "origin:line").
[[nodiscard]] Result<NcclTestsLog> parse_nccl_tests(std::string_view text, const std::string& origin,
                                                    std::optional<CollectiveOp> op_hint = std::nullopt);

// Reads the file and parses it; without op_hint the collective is taken from the file name
// ("..._allreduce.log", "all_gather_perf.txt", ...) when the log does not say.
[[nodiscard]] Result<NcclTestsLog> load_nccl_tests(const std::string& path,
                                                   std::optional<CollectiveOp> op_hint = std::nullopt);

// The collective named in a file name, if exactly one reading fits ("nccl_reducescatter.log").
[[nodiscard]] std::optional<CollectiveOp> collective_op_from_file_name(std::string_view path);

// Hockney model time = alpha + bytes / beta fitted to the out-of-place times of the rows with
// bytes >= min_bytes (rows of 0 bytes are always left out: they move no data). The fit minimises relative
// residuals ((model - t) / t)²: a sweep covers ten decades of size, and unweighted least squares lets the largest
// message alone decide alpha. r_squared is for that weighted fit. Errors (invalid_argument): fewer than two distinct
// non-empty sizes with a positive time, or times that do not grow with size.
struct AlphaBetaFit {
  double alpha_s = 0;
  double beta_bytes_per_s = 0;
  double r_squared = 0;
  int64_t points = 0;
};
[[nodiscard]] Result<AlphaBetaFit> fit_alpha_beta(const std::vector<NcclTestsRow>& rows, double min_bytes = 0);

}  // namespace meshscope

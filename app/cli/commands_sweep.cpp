// meshscope-cli sweep: many ranked searches from one spec, as JSON lines (docs/sweeps.md), and
// sweep merge, which joins the outputs of shards.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "core/session/sweep.hpp"

namespace meshscope::cli {

namespace {

bool parse_count(const std::string& text, int64_t& value) {
  if (text.empty() || text.size() > 9) return false;
  value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

int sweep_merge(const std::vector<std::string>& inputs, const std::string& out) {
  if (inputs.empty()) return fail("sweep merge needs one or more JSON-lines files");
  if (out.empty()) return fail("sweep merge needs --out ALL.jsonl");
  auto lines = merge_sweep_files(inputs);
  if (!lines) return fail(lines.error());
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  for (const auto& line : *lines) file << line << '\n';
  if (!file) return fail(out + ": cannot write the file");
  std::cerr << "meshscope-cli: merged " << lines->size() << " points from " << inputs.size() << " files into " << out
            << "\n";
  return 0;
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  std::vector<std::string> positional;
  std::string out, shard;
  int64_t threads = 0;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" || arg == "--shard" || arg == "--threads") {
      if (i + 1 >= argc) return fail(arg + " needs a value");
      const std::string value = argv[++i];
      if (arg == "--out") out = value;
      if (arg == "--shard") shard = value;
      if (arg == "--threads" && (!parse_count(value, threads) || threads < 1))
        return fail("--threads must be a whole number of at least 1");
    } else if (arg.starts_with("--")) {
      return fail("unknown option " + arg + " for sweep (see --help)");
    } else {
      positional.push_back(arg);
    }
  }
  if (!positional.empty() && positional.front() == "merge") {
    if (!shard.empty() || threads > 0) return fail("sweep merge takes only files and --out");
    return sweep_merge({positional.begin() + 1, positional.end()}, out);
  }
  if (positional.size() != 1) return fail("sweep needs one SPEC.json (see --help)");
  if (out.empty()) return fail("sweep needs --out POINTS.jsonl");
  int64_t shard_index = 0, shard_count = 1;
  if (!shard.empty()) {
    const size_t slash = shard.find('/');
    if (slash == std::string::npos || !parse_count(shard.substr(0, slash), shard_index) ||
        !parse_count(shard.substr(slash + 1), shard_count) || shard_count < 1 || shard_index >= shard_count)
      return fail("--shard must be I/N with 0 <= I < N, e.g. 0/4");
  }
  std::ifstream file(positional.front(), std::ios::binary);
  if (!file) return fail(positional.front() + ": cannot read the file");
  std::ostringstream text;
  text << file.rdbuf();
  auto spec = parse_sweep_spec_text(text.str());
  if (!spec) return fail(positional.front() + ": " + spec.error().to_string());
  auto plan = plan_sweep(*spec);
  if (!plan) return fail(positional.front() + ": " + plan.error().to_string());
  const std::vector<SweepPoint> points = shard_points(plan->points, shard_index, shard_count);
  SweepRunOptions options;
  options.threads = static_cast<int>(threads);
  options.progress = [&](const SweepProgress& p) {
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, "%.2f s", p.elapsed_s);
    std::cerr << "[" << p.done << "/" << p.total << "] " << sweep_point_label(*plan, *p.point) << " " << elapsed
              << "\n";
  };
  auto summary = run_sweep_to_file(*plan, points, out, options);
  if (!summary) return fail(summary.error());
  if (summary->dropped_partial_line) std::cerr << "meshscope-cli: dropped a truncated last line of " << out << "\n";
  std::cerr << "meshscope-cli: " << summary->ran << " points run, " << summary->skipped << " already in " << out << " ("
            << points.size() << " of " << plan->points.size() << " points in this shard)\n";
  return 0;
}

}  // namespace meshscope::cli

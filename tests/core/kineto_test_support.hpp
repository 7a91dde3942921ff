#pragma once
// Helpers shared by the Kineto import tests (test_kineto*.cpp): the shared traces, gzip round
// trips and temporary files.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/importers/kineto.hpp"
#include "support/csv.hpp"

namespace meshscope::test::kineto {

inline const std::string kDir = "data/kineto_traces/";

inline std::string trace_path(const std::string& name) {
  return test::shared_path(kDir + name);
}

// Each shared trace is parsed once per run of the suite (the larger ones take seconds in a debug build).
inline const KinetoTrace& load_cached(const std::string& path) {
  static std::map<std::string, KinetoTrace> cache;
  auto it = cache.find(path);
  if (it == cache.end()) {
    auto trace = load_kineto_trace(path);
    if (!trace) FAIL(trace.error().to_string());
    it = cache.emplace(path, std::move(*trace)).first;
  }
  return it->second;
}

inline const KinetoTrace& shared_trace(const std::string& name) {
  return load_cached(trace_path(name));
}

// The uncompressed JSON of a shared trace.
inline std::string gunzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  std::string out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  gzclose(file);
  return out;
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A file in the temporary directory, removed at the end of the test.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name, const std::string& bytes)
      : path((std::filesystem::temp_directory_path() / ("meshscope_test_kineto_" + name)).string()) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ~TempFile() { std::remove(path.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

inline std::string gzip(const std::string& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / "meshscope_test_kineto_gzip.tmp").string();
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
  std::string out = read_bytes(path);
  std::remove(path.c_str());
  return out;
}

inline Result<KinetoTrace> parse_text(const std::string& text, const std::string& origin = "inline.json") {
  std::istringstream in(text);
  return parse_kineto_trace(in, origin);
}

inline std::string warnings_of(const std::vector<KinetoWarning>& warnings) {
  std::string out;
  for (const auto& w : warnings) out += w.message + "\n";
  return out;
}

}  // namespace meshscope::test::kineto

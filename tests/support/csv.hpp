#pragma once
// A small RFC-4180 reader for the published-number files in ../shared/fidelity.
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace meshscope::test {

using CsvRow = std::map<std::string, std::string>;

inline std::vector<std::vector<std::string>> parse_csv_records(const std::string& text) {
  std::vector<std::vector<std::string>> records(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      records.back().push_back(field);
      field.clear();
      records.emplace_back();
    } else {
      field += c;
    }
  }
  if (!field.empty() || !records.back().empty()) records.back().push_back(field);
  while (!records.empty() && (records.back().empty() || (records.back().size() == 1 && records.back()[0].empty())))
    records.pop_back();
  return records;
}

// Rows of a CSV file as column → value maps.
inline std::vector<CsvRow> read_csv_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const auto records = parse_csv_records(buffer.str());
  std::vector<CsvRow> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    CsvRow row;
    for (size_t c = 0; c < records[0].size() && c < records[r].size(); ++c) row[records[0][c]] = records[r][c];
    rows.push_back(std::move(row));
  }
  return rows;
}

// Rows of a fidelity CSV (../shared/fidelity) as column → value maps.
inline std::vector<CsvRow> read_fidelity_csv(const std::string& name) {
  return read_csv_file(std::string(MESHSCOPE_SHARED_DIR) + "/fidelity/" + name);
}

inline std::string shared_path(const std::string& relative) {
  return std::string(MESHSCOPE_SHARED_DIR) + "/" + relative;
}

}  // namespace meshscope::test

#pragma once
// A parsed argument list (Megatron-LM's argparse flags) with the flags each use reads marked, so that
// what is left can be listed as ignored or unmodelled.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/importers/launcher_bash.hpp"

namespace meshscope::launcher_detail {

struct ArgFlag {
  std::string name;  // without the dashes: "num-layers"
  std::vector<std::string> values;
  int line = 0;
};

class ArgList {
 public:
  ArgList(const std::vector<ScriptWord>& words, std::string origin);
  // The last occurrence (argparse: the last one wins); marks the flag used.
  [[nodiscard]] const ArgFlag* find(const std::string& name);
  [[nodiscard]] bool has(const std::string& name) { return find(name) != nullptr; }
  [[nodiscard]] Result<std::optional<int64_t>> integer(const std::string& name);
  [[nodiscard]] Result<std::optional<double>> number(const std::string& name);
  [[nodiscard]] Result<std::optional<std::string>> text(const std::string& name);
  [[nodiscard]] std::string where(const ArgFlag& flag) const;  // "file: line 57: --num-layers"
  [[nodiscard]] const std::string& origin() const { return origin_; }
  [[nodiscard]] const std::vector<ArgFlag>& flags() const { return flags_; }
  [[nodiscard]] bool used(const std::string& name) const { return used_.count(name) > 0; }
  void mark(const std::string& name) { used_.insert(name); }

 private:
  std::vector<ArgFlag> flags_;
  std::set<std::string> used_;
  std::string origin_;
};

}  // namespace meshscope::launcher_detail

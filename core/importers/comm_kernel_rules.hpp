#pragma once
// The rule table that classifies GPU kernels of a profiler trace by name: GEMM, attention, communication (with
// the collective where the name tells it), memcpy, memset, or other compute. An ordered list of rules; the first
// that matches wins. The built-in table (docs/import.md, "Classification rules", each rule with the library and the
// source of its names) covers NCCL/RCCL, DeepEP, mori, NVSHMEM, MSCCL++, the custom all-reduce kernels of vLLM and
// TensorRT-LLM, cuBLAS/CUTLASS/hipBLASLt GEMMs and FlashAttention-style kernels; users put their own rules in front
// of it with a JSON file:
//   {"rules": [{"match": "my_a2a_kernel", "category": "communication", "op": "all-to-all"},
//              {"regex": "^fused_.*_gemm", "category": "gemm"}]}
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/result.hpp"
#include "core/comm/collective_op.hpp"

namespace meshscope {

enum class KernelClass { gemm, attention, communication, memcpy, memset, other };

// "gemm", "attention", "communication", "memcpy", "memset", "other".
[[nodiscard]] std::string_view kernel_class_name(KernelClass cls);
// The names above; "compute" is accepted for "other".
[[nodiscard]] std::optional<KernelClass> parse_kernel_class(std::string_view name);

// Holistic Trace Analysis's three kernel types (hta/utils/utils.py, get_kernel_type): communication and
// memory kernels are "non-compute", everything else is "compute".
[[nodiscard]] inline bool is_compute_kernel(KernelClass cls) {
  return cls == KernelClass::gemm || cls == KernelClass::attention || cls == KernelClass::other;
}

struct KernelRule {
  std::string pattern;  // a substring of the kernel name, or an ECMAScript regex searched in it
  bool regex = false;
  bool ignore_case = false;
  KernelClass cls = KernelClass::other;
  std::optional<CollectiveOp> op;  // only for communication rules; nullopt: unknown from the name
  std::string library;             // whose kernels it names: "NCCL/RCCL", "DeepEP", ...; "user" for user rules
  std::string source;              // where the names come from (built-in) or where the rule was read (user rules)
};

struct KernelClassification {
  KernelClass cls = KernelClass::other;
  std::optional<CollectiveOp> op;
  int rule = -1;  // index of the matching rule in the table; -1: no rule matched
};

class KernelRuleTable {
 public:
  // Errors (invalid_argument): a regex that does not compile, an empty pattern, an op on a non-communication rule.
  [[nodiscard]] static Result<KernelRuleTable> create(std::vector<KernelRule> rules);
  // The built-in table (default_kernel_rules()).
  [[nodiscard]] static const KernelRuleTable& defaults();
  // Holistic Trace Analysis's own kernel types (hta/utils/utils.py @ 0c2146a8, get_kernel_type): "ncclKernel" in the
  // name is communication, "Memcpy" / "Memset" memory, everything else compute. For HTA-compatible numbers.
  [[nodiscard]] static const KernelRuleTable& hta();

  [[nodiscard]] KernelClassification classify(std::string_view kernel_name) const;
  [[nodiscard]] const std::vector<KernelRule>& rules() const { return rules_; }
  // This table with `first` in front of it (user rules take precedence over the built-in ones).
  [[nodiscard]] Result<KernelRuleTable> with_rules_first(const std::vector<KernelRule>& first) const;

 private:
  // Literals a match needs (parallel to rules_): for each top-level alternative of the pattern, substrings that any
  // match of it contains. A name that contains none of the alternatives' literals cannot match, so the regex is not
  // run; when every alternative is a plain literal, the literals are the whole test.
  struct Prefilter {
    std::vector<std::vector<std::string>> alternatives;  // empty: no prefilter, always run the regex
    bool exact = false;
  };
  [[nodiscard]] bool matches(size_t rule, std::string_view kernel_name) const;

  std::vector<KernelRule> rules_;
  std::vector<std::optional<std::regex>> compiled_;  // parallel to rules_; set for regex rules
  std::vector<Prefilter> prefilters_;
};

// A rule table with a cache keyed by kernel name: each distinct name is classified once, however many events and
// ranks carry it (templated kernel names are long and regexes over them slow). Not thread-safe; one per import.
class KernelClassifier {
 public:
  explicit KernelClassifier(const KernelRuleTable& table) : table_(&table) {}
  [[nodiscard]] const KernelClassification& classify(std::string_view kernel_name);
  [[nodiscard]] const KernelRuleTable& table() const { return *table_; }
  [[nodiscard]] int64_t distinct_names() const { return static_cast<int64_t>(cache_.size()); }

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  const KernelRuleTable* table_;
  std::unordered_map<std::string, KernelClassification, NameHash, std::equal_to<>> cache_;
};

[[nodiscard]] std::vector<KernelRule> default_kernel_rules();

// {"rules": [{"match" | "regex": "...", "category": "...", "op": "...", "ignore_case": bool, "library": "..."}]};
// "category" is a KernelClass name, "op" a collective name (collective_op.hpp), "library" a label shown with the
// kernels the rule classifies ("user" by default). Errors name the rule ("rules.json: rules[2].op").
[[nodiscard]] Result<std::vector<KernelRule>> parse_kernel_rules_json(std::string_view text, const std::string& origin);
[[nodiscard]] Result<std::vector<KernelRule>> load_kernel_rules(const std::string& path);

}  // namespace meshscope

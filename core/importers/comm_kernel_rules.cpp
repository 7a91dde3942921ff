#include "core/importers/comm_kernel_rules.hpp"

#include <nlohmann/json.hpp>
#include <utility>

#include "core/model_io.hpp"

namespace meshscope {
namespace {

char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool contains_ignore_case(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && ascii_lower(haystack[i + j]) == ascii_lower(needle[j])) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

KernelRule regex_rule(std::string pattern, KernelClass cls, std::optional<CollectiveOp> op = std::nullopt,
                      bool ignore_case = false) {
  return KernelRule{std::move(pattern), true, ignore_case, cls, op};
}

KernelRule substring_rule(std::string pattern, KernelClass cls, std::optional<CollectiveOp> op = std::nullopt,
                          bool ignore_case = false) {
  return KernelRule{std::move(pattern), false, ignore_case, cls, op};
}

}  // namespace

std::string_view kernel_class_name(KernelClass cls) {
  switch (cls) {
    case KernelClass::gemm:
      return "gemm";
    case KernelClass::attention:
      return "attention";
    case KernelClass::communication:
      return "communication";
    case KernelClass::memcpy:
      return "memcpy";
    case KernelClass::memset:
      return "memset";
    case KernelClass::other:
      return "other";
  }
  return "other";
}

std::optional<KernelClass> parse_kernel_class(std::string_view name) {
  for (const KernelClass cls : {KernelClass::gemm, KernelClass::attention, KernelClass::communication,
                                KernelClass::memcpy, KernelClass::memset, KernelClass::other}) {
    if (name == kernel_class_name(cls)) return cls;
  }
  if (name == "compute") return KernelClass::other;
  return std::nullopt;
}

std::vector<KernelRule> default_kernel_rules() {
  using C = KernelClass;
  using Op = CollectiveOp;
  // Order matters: the first match wins. Communication before memory (as HTA's get_kernel_type), attention
  // before GEMM (FlashAttention and FMHA kernels are built from CUTLASS GEMM tiles).
  return {
      // NCCL and RCCL: ncclKernel_<Coll>_<algo>_<proto>_<redop>_<type> (NCCL <= 2.18) and
      // ncclDevKernel_<Coll>_... (NCCL >= 2.19); RCCL keeps the NCCL names, plus ncclDevKernel_Generic.
      regex_rule(R"(nccl(Dev)?Kernel_AllReduce)", C::communication, Op::all_reduce),
      regex_rule(R"(nccl(Dev)?Kernel_AllGather)", C::communication, Op::all_gather),
      regex_rule(R"(nccl(Dev)?Kernel_ReduceScatter)", C::communication, Op::reduce_scatter),
      regex_rule(R"(nccl(Dev)?Kernel_AllToAll)", C::communication, Op::all_to_all),
      regex_rule(R"(nccl(Dev)?Kernel_Broadcast)", C::communication, Op::broadcast),
      regex_rule(R"(nccl(Dev)?Kernel_Reduce)", C::communication, Op::reduce),
      regex_rule(R"(nccl(Dev)?Kernel_(SendRecv|Send|Recv))", C::communication, Op::send_recv),
      regex_rule(R"(nccl(Dev)?Kernel)", C::communication),
      // DeepEP (deepseek-ai/DeepEP csrc/kernels): deep_ep::{intranode,internode,internode_ll}::dispatch / combine
      // move tokens to and from the experts (an all-to-all); notify/barrier kernels exchange metadata.
      regex_rule(R"(deep_ep::\w+::(dispatch|combine)\b)", C::communication, Op::all_to_all),
      substring_rule("deep_ep::", C::communication),
      substring_rule("nvshmem", C::communication, std::nullopt, true),
      // vLLM's custom all-reduce (csrc/custom_all_reduce.cuh: cross_device_reduce_1stage / _2stage).
      substring_rule("cross_device_reduce", C::communication, Op::all_reduce),
      // TensorRT-LLM (oneShotAllReduceKernel, twoShotAllReduceKernel, allreduce_fusion_kernel_*), PyTorch
      // SymmetricMemory (one_shot_all_reduce_kernel, multimem_all_reduce_kernel) and other custom collectives.
      regex_rule(R"(all_?reduce)", C::communication, Op::all_reduce, true),
      regex_rule(R"(all_?gather)", C::communication, Op::all_gather, true),
      regex_rule(R"(reduce_?scatter)", C::communication, Op::reduce_scatter, true),
      regex_rule(R"(all_?to_?all)", C::communication, Op::all_to_all, true),
      regex_rule(R"(symmetric_memory|mscclpp|userbuffers)", C::communication, std::nullopt, true),
      // CUDA/HIP copies and fills that appear as kernels; the gpu_memcpy / gpu_memset events are classified by
      // their category before the table is consulted. HTA: "Memcpy" or "Memset" in the name.
      substring_rule("Memcpy", C::memcpy),
      substring_rule("Memset", C::memset),
      regex_rule(R"(flash|fmha|attention|attn|sdpa|xformers)", C::attention, std::nullopt, true),
      // cuBLAS/cuBLASLt (sm90_xmma_gemm_*, ampere_*gemm*, nvjet_*), CUTLASS, rocBLAS/hipBLASLt Tensile (Cijk_*).
      regex_rule(R"(gemm|cutlass|cublas|nvjet|xmma|Cijk_|matmul|hipblaslt)", C::gemm, std::nullopt, true),
  };
}

Result<KernelRuleTable> KernelRuleTable::create(std::vector<KernelRule> rules) {
  KernelRuleTable table;
  table.compiled_.reserve(rules.size());
  for (size_t i = 0; i < rules.size(); ++i) {
    const KernelRule& rule = rules[i];
    const std::string where = "rules[" + std::to_string(i) + "]";
    if (rule.pattern.empty()) return make_error(ErrorCode::invalid_argument, "a rule needs a non-empty pattern", where);
    if (rule.op && rule.cls != KernelClass::communication)
      return make_error(ErrorCode::invalid_argument, "only communication rules can name a collective", where);
    if (!rule.regex) {
      table.compiled_.emplace_back();
      continue;
    }
    try {
      auto flags = std::regex::ECMAScript | std::regex::optimize;
      if (rule.ignore_case) flags |= std::regex::icase;
      table.compiled_.emplace_back(std::regex(rule.pattern, flags));
    } catch (const std::regex_error& e) {
      return make_error(ErrorCode::invalid_argument,
                        "\"" + rule.pattern + "\" is not a valid regular expression (" + e.what() + ")", where);
    }
  }
  table.rules_ = std::move(rules);
  return table;
}

const KernelRuleTable& KernelRuleTable::defaults() {
  static const KernelRuleTable table = [] {
    auto created = create(default_kernel_rules());
    // The built-in patterns are constants; a failure here is a programming error caught by the tests.
    return created ? std::move(*created) : KernelRuleTable{};
  }();
  return table;
}

KernelClassification KernelRuleTable::classify(std::string_view kernel_name) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    const KernelRule& rule = rules_[i];
    bool matched = false;
    if (compiled_[i]) {
      matched = std::regex_search(kernel_name.begin(), kernel_name.end(), *compiled_[i]);
    } else if (rule.ignore_case) {
      matched = contains_ignore_case(kernel_name, rule.pattern);
    } else {
      matched = kernel_name.find(rule.pattern) != std::string_view::npos;
    }
    if (matched) return KernelClassification{rule.cls, rule.op, static_cast<int>(i)};
  }
  return KernelClassification{};
}

Result<KernelRuleTable> KernelRuleTable::with_rules_first(const std::vector<KernelRule>& first) const {
  std::vector<KernelRule> all = first;
  all.insert(all.end(), rules_.begin(), rules_.end());
  return create(std::move(all));
}

Result<std::vector<KernelRule>> parse_kernel_rules_json(std::string_view text, const std::string& origin) {
  MS_TRY(doc, parse_json_text(text, origin));
  if (!doc.is_object() || !doc.contains("rules"))
    return make_error(ErrorCode::missing_field, "a rule file is an object with a \"rules\" array", origin);
  const auto& list = doc.at("rules");
  if (!list.is_array()) return make_error(ErrorCode::wrong_type, "\"rules\" must be an array", origin + ": rules");
  std::vector<KernelRule> rules;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& item = list[i];
    const std::string where = origin + ": rules[" + std::to_string(i) + "]";
    if (!item.is_object()) return make_error(ErrorCode::wrong_type, "a rule must be an object", where);
    for (const auto& [key, value] : item.items()) {
      if (key != "match" && key != "regex" && key != "category" && key != "op" && key != "ignore_case")
        return make_error(ErrorCode::invalid_argument,
                          "unknown key \"" + key + "\" (expected match, regex, category, op, ignore_case)", where);
      if (key == "ignore_case" ? !value.is_boolean() : !value.is_string())
        return make_error(ErrorCode::wrong_type, key == "ignore_case" ? "must be true or false" : "must be a string",
                          where + "." + key);
    }
    KernelRule rule;
    const bool has_match = item.contains("match");
    const bool has_regex = item.contains("regex");
    if (has_match == has_regex)
      return make_error(ErrorCode::missing_field, "a rule has exactly one of \"match\" (substring) or \"regex\"",
                        where);
    rule.regex = has_regex;
    rule.pattern = item.at(has_regex ? "regex" : "match").get<std::string>();
    if (item.contains("ignore_case")) rule.ignore_case = item.at("ignore_case").get<bool>();
    if (!item.contains("category"))
      return make_error(ErrorCode::missing_field,
                        "a rule needs a \"category\" (gemm, attention, communication, memcpy, memset, other)", where);
    const auto category = item.at("category").get<std::string>();
    const auto cls = parse_kernel_class(category);
    if (!cls)
      return make_error(
          ErrorCode::invalid_argument,
          "unknown category \"" + category + "\" (expected gemm, attention, communication, memcpy, memset, other)",
          where + ".category");
    rule.cls = *cls;
    if (item.contains("op")) {
      const auto op_name = item.at("op").get<std::string>();
      rule.op = parse_collective_op(op_name);
      if (!rule.op)
        return make_error(ErrorCode::invalid_argument,
                          "unknown collective \"" + op_name +
                              "\" (expected all-reduce, all-gather, reduce-scatter, all-to-all, broadcast, reduce, "
                              "send-recv)",
                          where + ".op");
      if (rule.cls != KernelClass::communication)
        return make_error(ErrorCode::invalid_argument, "\"op\" is only allowed with \"category\": \"communication\"",
                          where + ".op");
    }
    rules.push_back(std::move(rule));
  }
  // Compile once here so that a bad regex is reported with the file name.
  if (auto table = KernelRuleTable::create(rules); !table) {
    Error error = table.error();
    error.location = origin + ": " + error.location;
    return tl::unexpected(std::move(error));
  }
  return rules;
}

Result<std::vector<KernelRule>> load_kernel_rules(const std::string& path) {
  MS_TRY(text, read_text_file(path));
  return parse_kernel_rules_json(text, path);
}

}  // namespace meshscope

#include "core/importers/comm_kernel_rules.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/model/model_io.hpp"

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

KernelRule regex_rule(std::string pattern, KernelClass cls, std::optional<CollectiveOp> op, bool ignore_case,
                      std::string library, std::string source) {
  return KernelRule{std::move(pattern), true, ignore_case, cls, op, std::move(library), std::move(source)};
}

KernelRule substring_rule(std::string pattern, KernelClass cls, std::optional<CollectiveOp> op, bool ignore_case,
                          std::string library, std::string source) {
  return KernelRule{std::move(pattern), false, ignore_case, cls, op, std::move(library), std::move(source)};
}

// The literals of one top-level alternative of an ECMAScript pattern: runs of ordinary characters outside groups and
// classes that every match contains. A character followed by ?, * or {m,n} may be absent, so it is left out; a group
// or class is skipped whole (its contents may be optional or alternatives). `plain`: the alternative is one literal.
struct AlternativeLiterals {
  std::vector<std::string> runs;
  bool plain = true;
};

// nullopt: a pattern this reader does not follow (unbalanced), then no prefilter is used.
std::optional<std::vector<AlternativeLiterals>> pattern_literals(std::string_view p) {
  std::vector<AlternativeLiterals> alternatives(1);
  std::string run;
  const auto flush = [&] {
    if (!run.empty()) alternatives.back().runs.push_back(run);
    run.clear();
  };
  const auto skip_class = [&](size_t& i) {  // i at '['; leaves i at the closing ']'
    ++i;
    if (i < p.size() && p[i] == '^') ++i;
    if (i < p.size() && p[i] == ']') ++i;
    for (; i < p.size() && p[i] != ']'; ++i)
      if (p[i] == '\\') ++i;
    return i < p.size();
  };
  const auto skip_quantifier = [&](size_t& i) {  // after an atom at i: skips a quantifier that follows it
    if (i + 1 >= p.size()) return;
    const char q = p[i + 1];
    if (q == '?' || q == '*' || q == '+') {
      ++i;
    } else if (q == '{') {
      const size_t close = p.find('}', i + 1);
      if (close != std::string_view::npos) i = close;
    } else {
      return;
    }
    if (i + 1 < p.size() && p[i + 1] == '?') ++i;  // lazy
  };
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    switch (c) {
      case '|':
        flush();
        alternatives.emplace_back();
        break;
      case '(': {
        flush();
        alternatives.back().plain = false;
        int depth = 1;
        for (++i; i < p.size() && depth > 0; ++i) {
          if (p[i] == '\\') {
            ++i;
          } else if (p[i] == '[') {
            if (!skip_class(i)) return std::nullopt;
          } else if (p[i] == '(') {
            ++depth;
          } else if (p[i] == ')') {
            --depth;
          }
        }
        if (depth != 0) return std::nullopt;
        --i;  // at ')'
        skip_quantifier(i);
        break;
      }
      case ')':
        return std::nullopt;
      case '[':
        flush();
        alternatives.back().plain = false;
        if (!skip_class(i)) return std::nullopt;
        skip_quantifier(i);
        break;
      case '\\':
        flush();
        alternatives.back().plain = false;
        ++i;
        skip_quantifier(i);
        break;
      case '?':
      case '*':
      case '{':
        if (!run.empty()) run.pop_back();  // the character before may be absent
        flush();
        alternatives.back().plain = false;
        if (c == '{') {
          const size_t close = p.find('}', i);
          if (close == std::string_view::npos) return std::nullopt;
          i = close;
        }
        if (i + 1 < p.size() && p[i + 1] == '?') ++i;
        break;
      case '+':
        flush();
        alternatives.back().plain = false;
        if (i + 1 < p.size() && p[i + 1] == '?') ++i;
        break;
      case '.':
      case '^':
      case '$':
        flush();
        alternatives.back().plain = false;
        break;
      default:
        run += c;
    }
  }
  flush();
  return alternatives;
}

bool contains(std::string_view haystack, std::string_view needle, bool ignore_case) {
  return ignore_case ? contains_ignore_case(haystack, needle) : haystack.find(needle) != std::string_view::npos;
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
  constexpr std::nullopt_t none = std::nullopt;
  // Order matters: the first match wins. Communication before memory (as HTA's get_kernel_type), attention
  // before GEMM (FlashAttention and FMHA kernels are built from CUTLASS GEMM tiles). Each rule names the library
  // whose kernels it matches and where those names come from (docs/import.md, "Classification rules").
  const std::string nccl = "NCCL/RCCL";
  const std::string nccl_source =
      "NVIDIA/nccl src/device/common.h (DEFINE_ncclDevKernel: ncclDevKernel_<coll>_<redop>_<type>_<algo>_<proto>, "
      "NCCL >= 2.19; ncclKernel_<coll>_... before) and ROCm/rccl src/device/common.h @ 0e9ec984 (the same names, "
      "plus ncclDevKernel_Generic)";
  return {
      regex_rule(R"(nccl(Dev)?Kernel_AllReduce)", C::communication, Op::all_reduce, false, nccl, nccl_source),
      regex_rule(R"(nccl(Dev)?Kernel_AllGather)", C::communication, Op::all_gather, false, nccl, nccl_source),
      regex_rule(R"(nccl(Dev)?Kernel_ReduceScatter)", C::communication, Op::reduce_scatter, false, nccl, nccl_source),
      regex_rule(R"(nccl(Dev)?Kernel_AllToAll)", C::communication, Op::all_to_all, false, nccl, nccl_source),
      regex_rule(R"(nccl(Dev)?Kernel_Broadcast)", C::communication, Op::broadcast, false, nccl, nccl_source),
      regex_rule(R"(nccl(Dev)?Kernel_Reduce)", C::communication, Op::reduce, false, nccl, nccl_source),
      regex_rule(R"(nccl(Dev)?Kernel_(SendRecv|Send|Recv))", C::communication, Op::send_recv, false, nccl, nccl_source),
      regex_rule(R"(nccl(Dev)?Kernel)", C::communication, none, false, nccl, nccl_source),
      // DeepEP: deep_ep::{intranode,internode,internode_ll}::dispatch / combine move tokens to and from the experts
      // (an all-to-all); notify_dispatch, cached_notify_*, barrier exchange metadata.
      regex_rule(R"(deep_ep::\w+::(dispatch|combine)\b)", C::communication, Op::all_to_all, false, "DeepEP",
                 "deepseek-ai/DeepEP csrc/kernels/intranode.cu @ 031a5c49 (deep_ep::intranode::dispatch, combine), "
                 "internode.cu, internode_ll.cu"),
      substring_rule("deep_ep::", C::communication, none, false, "DeepEP",
                     "deepseek-ai/DeepEP csrc/kernels/intranode.cu @ 031a5c49 (deep_ep::intranode::notify_dispatch, "
                     "cached_notify_dispatch)"),
      // AMD's MoE dispatch/combine (the ROCm counterpart of DeepEP).
      regex_rule(R"(mori::moe::Ep(Dispatch|Combine)\w*Kernel)", C::communication, Op::all_to_all, false, "mori",
                 "ROCm/mori src/ops/dispatch_combine/internode_v1.cpp (mori::moe::EpDispatchInterNodeV1Kernel, "
                 "EpDispatchIntraNodeKernel, EpCombine*Kernel)"),
      substring_rule("nvshmem", C::communication, none, true, "NVSHMEM",
                     "NVSHMEM src/host/coll (nvshmemi_call_barrier_on_stream_kernel), src/host/proxy "
                     "(nvshmemi_proxy_quiet_entrypoint, nvshmemi_proxy_rma_entrypoint), nvshmemi_reduce_kernel"),
      substring_rule("cross_device_reduce", C::communication, Op::all_reduce, false, "vLLM custom all-reduce",
                     "vllm-project/vllm csrc/custom_all_reduce.cuh (cross_device_reduce_1stage / _2stage)"),
      // Custom collectives named for what they do: TensorRT-LLM (oneShotAllReduceKernel, allreduce_fusion_kernel_*),
      // PyTorch SymmetricMemory (one_shot_all_reduce_kernel, multimem_all_reduce_kernel), MSCCL++'s NCCL
      // replacement (allreduce7, allreduce8 over mscclpp::DeviceHandle<MemoryChannel>).
      regex_rule(R"(all_?reduce)", C::communication, Op::all_reduce, true, "custom collectives",
                 "NVIDIA/TensorRT-LLM, pytorch/pytorch torch/csrc/distributed/c10d/symm_mem, microsoft/mscclpp "
                 "apps/nccl/src/allreduce.hpp @ 00760e3c"),
      regex_rule(R"(all_?gather)", C::communication, Op::all_gather, true, "custom collectives",
                 "microsoft/mscclpp apps/nccl/src/allgather.hpp, PyTorch SymmetricMemory"),
      regex_rule(R"(reduce_?scatter)", C::communication, Op::reduce_scatter, true, "custom collectives",
                 "PyTorch SymmetricMemory, TensorRT-LLM"),
      regex_rule(R"(all_?to_?all)", C::communication, Op::all_to_all, true, "custom collectives",
                 "pytorch/pytorch torch/csrc/distributed/c10d/symm_mem/nvshmem_extension.cu (all_to_all_vdev)"),
      regex_rule(R"(symmetric_memory|mscclpp|userbuffers)", C::communication, none, true,
                 "SymmetricMemory / MSCCL++ / Transformer Engine userbuffers",
                 "microsoft/mscclpp apps/nccl/src (kernels take mscclpp::DeviceHandle<...> arguments)"),
      // CUDA/HIP copies and fills that appear as kernels; the gpu_memcpy / gpu_memset events are classified by
      // their category before the table is consulted. HTA: "Memcpy" or "Memset" in the name.
      substring_rule("Memcpy", C::memcpy, none, false, "CUDA/HIP runtime", "HTA hta/utils/utils.py is_memory_kernel"),
      substring_rule("Memset", C::memset, none, false, "CUDA/HIP runtime", "HTA hta/utils/utils.py is_memory_kernel"),
      regex_rule(R"(flash|fmha|attention|attn|sdpa|xformers)", C::attention, none, true, "attention kernels",
                 "FlashAttention, PyTorch SDPA / mem-efficient attention (fmha_cutlass*), xFormers"),
      // cuBLAS/cuBLASLt (sm90_xmma_gemm_*, ampere_*gemm*, nvjet_*), CUTLASS, rocBLAS/hipBLASLt Tensile (Cijk_*).
      regex_rule(R"(gemm|cutlass|cublas|nvjet|xmma|Cijk_|matmul|hipblaslt)", C::gemm, none, true, "GEMM libraries",
                 "cuBLAS/cuBLASLt, CUTLASS, rocBLAS/hipBLASLt (Tensile Cijk_* kernels)"),
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
      table.prefilters_.emplace_back();
      continue;
    }
    Prefilter prefilter;
    if (const auto literals = pattern_literals(rule.pattern)) {
      bool usable = true;
      bool exact = true;
      for (const AlternativeLiterals& alternative : *literals) {
        usable = usable && !alternative.runs.empty();
        exact = exact && alternative.plain && alternative.runs.size() == 1;
        prefilter.alternatives.push_back(alternative.runs);
      }
      if (!usable) prefilter.alternatives.clear();
      prefilter.exact = usable && exact;
    }
    table.prefilters_.push_back(std::move(prefilter));
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

const KernelRuleTable& KernelRuleTable::hta() {
  static const KernelRuleTable table = [] {
    const std::string source = "facebookresearch/HolisticTraceAnalysis hta/utils/utils.py @ 0c2146a8 get_kernel_type";
    auto created = create({substring_rule("ncclKernel", KernelClass::communication, std::nullopt, false, "HTA", source),
                           substring_rule("Memcpy", KernelClass::memcpy, std::nullopt, false, "HTA", source),
                           substring_rule("Memset", KernelClass::memset, std::nullopt, false, "HTA", source)});
    return created ? std::move(*created) : KernelRuleTable{};
  }();
  return table;
}

bool KernelRuleTable::matches(size_t i, std::string_view kernel_name) const {
  const KernelRule& rule = rules_[i];
  if (!compiled_[i]) return contains(kernel_name, rule.pattern, rule.ignore_case);
  const Prefilter& prefilter = prefilters_[i];
  if (!prefilter.alternatives.empty()) {
    bool possible = false;
    for (const auto& literals : prefilter.alternatives) {
      possible = std::all_of(literals.begin(), literals.end(), [&](const std::string& literal) {
        return contains(kernel_name, literal, rule.ignore_case);
      });
      if (possible) break;
    }
    if (!possible) return false;
    if (prefilter.exact) return true;
  }
  return std::regex_search(kernel_name.begin(), kernel_name.end(), *compiled_[i]);
}

KernelClassification KernelRuleTable::classify(std::string_view kernel_name) const {
  for (size_t i = 0; i < rules_.size(); ++i)
    if (matches(i, kernel_name)) return KernelClassification{rules_[i].cls, rules_[i].op, static_cast<int>(i)};
  return KernelClassification{};
}

const KernelClassification& KernelClassifier::classify(std::string_view kernel_name) {
  if (const auto it = cache_.find(kernel_name); it != cache_.end()) return it->second;
  return cache_.emplace(std::string(kernel_name), table_->classify(kernel_name)).first->second;
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
      if (key != "match" && key != "regex" && key != "category" && key != "op" && key != "ignore_case" &&
          key != "library")
        return make_error(ErrorCode::invalid_argument,
                          "unknown key \"" + key + "\" (expected match, regex, category, op, ignore_case, library)",
                          where);
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
    rule.library = item.contains("library") ? item.at("library").get<std::string>() : "user";
    rule.source = origin + ": rules[" + std::to_string(i) + "]";
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

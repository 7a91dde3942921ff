#pragma once
// The part of bash that Megatron-LM launch scripts are written in (examples/*/train_*.sh): assignments,
// arrays (`ARGS=( --num-layers 96 ... )`, `ARGS+=(...)`), line continuations, `$VAR`, `${VAR:-default}`,
// `${ARR[@]}`, `$((arithmetic))`, `if [[ "$X" == "y" ]]; then ... else ... fi`, and the launch command
// (`torchrun ... pretrain_gpt.py ${ARGS[@]}`). Nothing is executed: `$(command)` and positional
// arguments without a default stay as <NAME> placeholders, with a warning.
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"

namespace meshscope::launcher_detail {

struct ScriptWord {
  std::string text;
  int line = 0;  // 1-based line of the file the word was written on
};

struct LaunchCommand {
  std::vector<ScriptWord> launcher_args;  // before the training script (torchrun's --nproc_per_node ...)
  std::string script;                     // "pretrain_gpt.py"; empty: the text is a bare argument list
  std::vector<ScriptWord> args;           // the training script's arguments, expanded
  std::vector<std::string> warnings;      // "line 15: CHECKPOINT_PATH is $1 ..."
};

// `origin` names the file in errors (an unterminated quote or array: its line).
[[nodiscard]] Result<LaunchCommand> parse_launch_script(std::string_view text, const std::string& origin);

}  // namespace meshscope::launcher_detail

#!/usr/bin/env bash
# The static checks CI runs beside the tests (.ci/run), each timed:
#
#   scripts/lint.sh format     clang-format-14 --dry-run -Werror over every tracked C++ file (.clang-format);
#                              lists each file that is not formatted, then fails
#   scripts/lint.sh tidy       clang-tidy-14 (.clang-tidy) over the sources of core/ and app/, findings in their
#                              own headers included; any finding fails. Needs a configured build directory
#                              (its compile_commands.json): build/dev, configured here if missing
#   scripts/lint.sh            both
#   scripts/lint.sh fix        clang-format-14 -i over every tracked C++ file (then review `git diff`)
#
#   LINT_BUILD_DIR=build/x     read the compile commands from another build directory
#   LINT_JOBS=N                clang-tidy processes side by side (default: nproc)
#   LINT_PATHS="core/x ..."    clang-tidy over these folders or files instead of core/ and app/
#
# ui/ is not in the tidy run by default: see CONTRIBUTING.md ("Static checks").
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT="${CLANG_FORMAT:-clang-format-14}"
CLANG_TIDY="${CLANG_TIDY:-clang-tidy-14}"
build_dir="${LINT_BUILD_DIR:-build/dev}"
jobs="${LINT_JOBS:-$(nproc)}"

cpp_files() { git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.cc' "$@"; }

lint_format() {
  local start=$SECONDS unformatted
  local output status=0
  output=$(cpp_files | xargs -0 -r -n 50 "$CLANG_FORMAT" --dry-run -Werror 2>&1) || status=$?
  unformatted=$(echo "$output" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
  if [ "$status" -ne 0 ] && [ -z "$unformatted" ]; then  # clang-format failed for another reason: show it
    echo "$output"
    echo "format: $CLANG_FORMAT failed (exit $status)"
    return 1
  fi
  local count
  count=$(cpp_files | tr -cd '\0' | wc -c)
  if [ -n "$unformatted" ]; then
    echo "format: $(echo "$unformatted" | wc -l) of $count files are not clang-formatted (fix: scripts/lint.sh fix):"
    echo "$unformatted" | sed 's/^/  /'
    echo "format: failed in $((SECONDS - start)) s"
    return 1
  fi
  echo "format: all $count tracked C++ files are clang-formatted ($((SECONDS - start)) s)"
}

lint_tidy() {
  local start=$SECONDS
  if [ ! -f "$build_dir/compile_commands.json" ]; then
    cmake --preset dev >/dev/null
    build_dir=build/dev
  fi
  local paths=(core app)
  [ -n "${LINT_PATHS:-}" ] && read -r -a paths <<<"$LINT_PATHS"
  local logs
  logs=$(mktemp -d)
  # Findings in the headers of the folders checked (a core header once, not once per source).
  local tops
  tops=$(printf '%s\n' "${paths[@]}" | cut -d/ -f1 | sort -u | paste -sd'|')
  local sources=()
  mapfile -t sources < <(git ls-files -- "${paths[@]}" | grep -E '\.(cpp|cc)$')
  # One clang-tidy per source, its output kept whole in its own file so that parallel runs do not interleave.
  # -Wno-unknown-warning-option: the compile commands are GCC's (-Wno-restrict is GCC-only). -Wno-error: compiler
  # warnings are GCC's job (CI builds with -Werror); clang's own would fail here as errors under MESHSCOPE_WERROR.
  printf '%s\n' "${sources[@]}" | xargs -r -P "$jobs" -I{} sh -c \
    'log="$3/$(echo "$4" | tr / _).log"
     "$1" -p "$2" --quiet --header-filter="/($5)/" --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-error \
       "$4" >"$log" 2>&1
     rc=$?  # a crash or a failure without a diagnostic must not pass silently
     [ "$rc" -eq 0 ] || grep -q ": error:" "$log" || echo "$4:0:0: error: $1 exited with $rc [tidy-failed]" >>"$log"
     true' _ "$CLANG_TIDY" "$build_dir" "$logs" {} "$tops"
  # A header's finding is reported once per source that includes it: print each once.
  local findings
  findings=$(cat "$logs"/*.log | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' | sed "s#^$PWD/##" | sort -u || true)
  rm -rf "$logs"
  local elapsed=$((SECONDS - start))
  if [ -n "$findings" ]; then
    echo "$findings"
    echo "tidy: $(echo "$findings" | wc -l) findings in ${#sources[@]} sources (${paths[*]}), by check:"
    echo "$findings" | sed -n 's/.*\[\([^]]*\)\]$/\1/p' | sort | uniq -c | sort -rn | sed 's/^/  /'
    echo "tidy: failed in $elapsed s"
    return 1
  fi
  echo "tidy: no findings in ${#sources[@]} sources (${paths[*]}) ($elapsed s, $jobs jobs)"
}

case "${1:-all}" in
  format) lint_format ;;
  tidy) lint_tidy ;;
  all)
    status=0
    lint_format || status=1
    lint_tidy || status=1
    exit "$status"
    ;;
  fix) cpp_files | xargs -0 -r "$CLANG_FORMAT" -i ;;
  *)
    echo "usage: scripts/lint.sh [format|tidy|fix]" >&2
    exit 2
    ;;
esac

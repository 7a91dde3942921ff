# meshscope-cli sweep end to end: golden fields of a tiny sweep's lines, a second run that skips
# everything, resuming a killed run's file (a truncated last line), shards whose merge is the whole
# sweep, and merge refusing conflicting duplicates.
#   cmake -DCLI=meshscope-cli -DSPEC=tiny_spec.json -DWORK=folder -P run_sweep.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(run expect_rc)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${ARGN}: exit code ${rc}, expected ${expect_rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(err "${err}" PARENT_SCOPE)
endfunction()
# The file's lines as a list (a ";" inside a line, which CMake would split at, kept as @SEMI@).
function(read_lines path var)
  file(READ ${path} text)
  string(REPLACE ";" "@SEMI@" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()
# The file's lines without elapsed_s, the only field that differs between runs.
function(stripped path var)
  file(READ ${path} text)
  string(REGEX REPLACE ",\"elapsed_s\":[-+0-9.eE]+" "" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

run(0 sweep ${SPEC} --out ${WORK}/all.jsonl --threads 2)
if(NOT err MATCHES "\\[8/8\\] llama3-8b dgx-h100:nodes=2 global_batch=32,seq=2048 cost-per-token [0-9.]+ s")
  message(FATAL_ERROR "no progress line on stderr:\n${err}")
endif()
read_lines(${WORK}/all.jsonl lines)
list(LENGTH lines count)
if(NOT count EQUAL 8)
  message(FATAL_ERROR "8 lines expected, got ${count}")
endif()
list(GET lines 0 first)
foreach(pattern "^{\"index\":0,\"id\":\"[0-9a-f]+\",\"model\":\"gpt2\",\"cluster\":\"dgx-h100:nodes=1\""
                "\"workload\":{\"global_batch\":32,\"seq\":2048}" "\"objective\":\"throughput\"" "\"top\":2"
                "\"result\":{" "\"layouts\":\\[{" "\"tokens_per_s_per_gpu\":" "\"rejected\":{" ",\"elapsed_s\":[0-9.e-]+}$")
  if(NOT first MATCHES "${pattern}")
    message(FATAL_ERROR "the first line does not match '${pattern}':\n${first}")
  endif()
endforeach()
stripped(${WORK}/all.jsonl whole)

# Threads do not change the output.
run(0 sweep ${SPEC} --out ${WORK}/serial.jsonl --threads 1)
stripped(${WORK}/serial.jsonl serial)
if(NOT serial STREQUAL whole)
  message(FATAL_ERROR "--threads 1 and --threads 2 wrote different lines")
endif()

# A finished file: nothing to run.
run(0 sweep ${SPEC} --out ${WORK}/all.jsonl)
if(NOT err MATCHES "0 points run, 8 already in")
  message(FATAL_ERROR "a second run did not skip the points:\n${err}")
endif()

# A killed run: three whole lines and half of the fourth.
list(SUBLIST lines 0 3 kept)
list(GET lines 3 fourth)
string(LENGTH "${fourth}" length)
math(EXPR half "${length} / 2")
string(SUBSTRING "${fourth}" 0 ${half} partial)
list(JOIN kept "\n" text)
string(REPLACE "@SEMI@" ";" text "${text}\n${partial}")
file(WRITE ${WORK}/resumed.jsonl "${text}")
run(0 sweep ${SPEC} --out ${WORK}/resumed.jsonl --threads 2)
if(NOT err MATCHES "dropped a truncated last line" OR NOT err MATCHES "5 points run, 3 already in")
  message(FATAL_ERROR "the resumed run did not skip 3 points and drop the partial line:\n${err}")
endif()
stripped(${WORK}/resumed.jsonl resumed)
if(NOT resumed STREQUAL whole)
  message(FATAL_ERROR "the resumed file differs from an uninterrupted run")
endif()

# Shards: their union is the whole sweep.
run(0 sweep ${SPEC} --shard 0/3 --out ${WORK}/shard_0.jsonl)
run(0 sweep ${SPEC} --shard 1/3 --out ${WORK}/shard_1.jsonl)
run(0 sweep ${SPEC} --shard 2/3 --out ${WORK}/shard_2.jsonl)
read_lines(${WORK}/shard_2.jsonl shard_lines)
list(LENGTH shard_lines shard_count)
if(NOT shard_count EQUAL 2)
  message(FATAL_ERROR "shard 2/3 of 8 points should hold 2, holds ${shard_count}")
endif()
run(0 sweep merge ${WORK}/shard_2.jsonl ${WORK}/shard_0.jsonl ${WORK}/shard_1.jsonl ${WORK}/shard_0.jsonl
    --out ${WORK}/merged.jsonl)
stripped(${WORK}/merged.jsonl merged)
if(NOT merged STREQUAL whole)
  message(FATAL_ERROR "the merged shards differ from the whole sweep")
endif()

# The same point with another result: merge refuses it.
string(REPLACE "\"top\":2" "\"top\":2,\"tampered\":1" tampered "${first}")
string(REPLACE "@SEMI@" ";" tampered "${tampered}")
file(WRITE ${WORK}/tampered.jsonl "${tampered}\n")
run(2 sweep merge ${WORK}/all.jsonl ${WORK}/tampered.jsonl --out ${WORK}/bad.jsonl)
if(NOT err MATCHES "different result")
  message(FATAL_ERROR "merge did not name the conflict:\n${err}")
endif()
file(REMOVE_RECURSE ${WORK})

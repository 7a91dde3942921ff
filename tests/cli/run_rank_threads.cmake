# rank --threads: the same JSON document (elapsed_s aside) on one thread and on several.
#   cmake -DCLI=meshscope-cli -P run_rank_threads.cmake
set(args rank --model mixtral-8x7b --cluster dgx-h100:nodes=4 --train seq=4096,global_batch=256 --top 5 --refine 2
         --json)
foreach(threads 1 4)
  execute_process(COMMAND ${CLI} ${args} --threads ${threads} RESULT_VARIABLE rc OUTPUT_VARIABLE out_${threads}
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rank --threads ${threads}: exit code ${rc}\n${err}")
  endif()
  string(REGEX REPLACE "\"elapsed_s\": [-+0-9.eE]+" "" out_${threads} "${out_${threads}}")
endforeach()
if(NOT out_1 STREQUAL out_4)
  message(FATAL_ERROR "rank --threads 1 and --threads 4 differ:\n${out_1}\n---\n${out_4}")
endif()

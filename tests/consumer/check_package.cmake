# The package_consumer test: installs the `development` component of the build tree into a fresh prefix,
# then configures, builds and runs tests/consumer against that prefix alone (cmake -P, see tests/CMakeLists.txt).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, GENERATOR, CXX, BUILD_TYPE, LAUNCHER, SANITIZE_FLAGS.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_package.cmake: ${var} is not set")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${prefix}" "${build}")  # nothing left over from an earlier run may stand in for a missing rule

run("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --component development --prefix "${prefix}")
foreach(expected include/meshscope/meshscope.hpp include/meshscope/version.hpp
                 include/meshscope/detail/core/estimate/step.hpp lib/cmake/meshscope/meshscopeConfig.cmake
                 lib/cmake/meshscope/meshscopeConfigVersion.cmake)
  if(NOT EXISTS "${prefix}/${expected}")
    message(FATAL_ERROR "the install has no ${expected}")
  endif()
endforeach()

# CMAKE_FIND_USE_PACKAGE_REGISTRY=OFF and only the prefix on CMAKE_PREFIX_PATH: the package must be found there.
set(configure ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${build}" -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
if(LAUNCHER)
  list(APPEND configure "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
if(SANITIZE_FLAGS)  # an ASan/UBSan core needs its runtime in the program that links it
  list(APPEND configure "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
endif()
run("configuring tests/consumer" ${configure})
run("building tests/consumer" ${CMAKE_COMMAND} --build "${build}")
run("running the consumer" "${build}/consumer")
message(STATUS "${run_output}")
if(NOT run_output MATCHES "step [0-9.]+ s, [0-9]+ tokens/s")
  message(FATAL_ERROR "the consumer printed no step estimate:\n${run_output}")
endif()

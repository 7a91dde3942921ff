# The CMake package of the cost core, so that another project can
#
#   find_package(meshscope 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE meshscope::core)   # #include <meshscope/meshscope.hpp>
#
# Installed only on request, as the `development` component, so that `cmake --install` and the DEB
# package (packaging/CPackConfig.cmake) keep installing just the app:
#
#   cmake --install build/release --component development --prefix ~/.local
#
# Layout under the prefix:
#   include/meshscope/*.hpp             the public headers (include/meshscope/ of the tree, and version.hpp)
#   include/meshscope/detail/core/...   the core's own headers, as in the tree; the public headers forward
#                                       to them. The core includes its headers as "core/...", so they need an
#                                       include root of their own whose only entry is core/ (detail/).
#   lib/libmeshscope_core.a, lib/libmeshscope_resources.a (the embedded presets the core reads)
#   lib/cmake/meshscope/                meshscopeConfig.cmake, its version file, the exported targets
# tests/consumer/ is a project outside the tree that the package_consumer test builds against it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MESHSCOPE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/meshscope")
set(meshscope_detail_includedir "${CMAKE_INSTALL_INCLUDEDIR}/meshscope/detail")

configure_file("${CMAKE_CURRENT_LIST_DIR}/version.hpp.in" "${PROJECT_BINARY_DIR}/include/meshscope/version.hpp"
               @ONLY)

set_target_properties(meshscope_core PROPERTIES EXPORT_NAME core)
set_target_properties(meshscope_resources PROPERTIES EXPORT_NAME resources)
install(TARGETS meshscope_core meshscope_resources
        EXPORT meshscopeTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development EXCLUDE_FROM_ALL
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" "${meshscope_detail_includedir}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/meshscope" "${PROJECT_BINARY_DIR}/include/meshscope"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development EXCLUDE_FROM_ALL)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/core" DESTINATION "${meshscope_detail_includedir}"
        COMPONENT development EXCLUDE_FROM_ALL FILES_MATCHING PATTERN "*.hpp")
install(EXPORT meshscopeTargets NAMESPACE meshscope:: DESTINATION "${MESHSCOPE_INSTALL_CMAKEDIR}"
        COMPONENT development EXCLUDE_FROM_ALL)

configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/meshscopeConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/meshscopeConfig.cmake"
                              INSTALL_DESTINATION "${MESHSCOPE_INSTALL_CMAKEDIR}")
# 0.x: a new minor version may change the API, so only the same major.minor satisfies a request.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/meshscopeConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/meshscopeConfig.cmake" "${PROJECT_BINARY_DIR}/meshscopeConfigVersion.cmake"
        DESTINATION "${MESHSCOPE_INSTALL_CMAKEDIR}" COMPONENT development EXCLUDE_FROM_ALL)

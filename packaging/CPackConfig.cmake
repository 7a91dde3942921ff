# Debian package of meshscope: `cmake --build <dir> && cpack --config <dir>/CPackConfig.cmake`
# (or `cpack` inside the build directory). Included from the top-level CMakeLists; this file
# declares the desktop integration files' install rules and CPack's DEB settings.
include(GNUInstallDirs)

set(MESHSCOPE_PACKAGING_DIR "${CMAKE_CURRENT_LIST_DIR}")
if(MESHSCOPE_BUILD_GUI)
  install(FILES "${MESHSCOPE_PACKAGING_DIR}/meshscope.desktop"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
  install(FILES "${MESHSCOPE_PACKAGING_DIR}/meshscope.svg"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps")
  install(FILES "${MESHSCOPE_PACKAGING_DIR}/io.meshscope.meshscope.metainfo.xml"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
endif()

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "meshscope")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "meshscope developers")
set(CPACK_PACKAGE_CONTACT "meshscope developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Plan parallel layouts for training and serving large language models")
set(CPACK_PACKAGE_DESCRIPTION
    "meshscope shows how a large language model is split across many GPUs: the\n\
memory every rank holds, by category, against the GPU's capacity, with the\n\
formula behind every number. The package contains the desktop app (meshscope)\n\
and the headless cost model (meshscope-cli).")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "meshscope developers")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
# The Qt 6 runtime libraries of Debian 12 (Qt 6.4); libc and libstdc++ come with them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libqt6widgets6 (>= 6.4), libqt6charts6 (>= 6.4), libqt6svg6 (>= 6.4), libqt6concurrent6 (>= 6.4), zlib1g, libpugixml1v5, libtomlplusplus3")

include(CPack)

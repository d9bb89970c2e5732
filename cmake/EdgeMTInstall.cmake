# `cmake --install BUILD [--prefix DIR]` installs:
#   lib/libedgemt.a (or .so with -DBUILD_SHARED_LIBS=ON): the C++ API
#   lib/libedgemt.so                      (the C API, edgemt/edgemt.h, unless -DEDGEMT_BUILD_SHARED=OFF)
#   include/edgemt/*.h                    (all of runtime/include/edgemt)
#   bin/edgemt-translate                  (the CLI, when built)
#   lib/cmake/EdgeMT/                     (find_package(EdgeMT) -> EdgeMT::edgemt)
#   lib/pkgconfig/edgemt.pc               (pkg-config --cflags --libs edgemt: C++, static)
#   lib/pkgconfig/edgemt-c.pc             (pkg-config --cflags --libs edgemt-c: C, libedgemt.so)
# (lib is lib/<multiarch> when the prefix is /usr, as GNUInstallDirs says.)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(EDGEMT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/EdgeMT CACHE STRING
  "Where the EdgeMT CMake package is installed (relative to the prefix)")
mark_as_advanced(EDGEMT_INSTALL_CMAKEDIR)

# The library and the INTERFACE targets it links to: a static library's
# exported link interface names them ($<LINK_ONLY:...>), so they are exported
# too (their install interface is the EdgeMT::dep_* targets of the config).
set(_edgemt_export_targets edgemt)
get_target_property(_edgemt_links edgemt LINK_LIBRARIES)
foreach(_lib IN LISTS _edgemt_links)
  if(TARGET ${_lib})
    get_target_property(_type ${_lib} TYPE)
    get_target_property(_imported ${_lib} IMPORTED)
    get_target_property(_aliased ${_lib} ALIASED_TARGET)
    if(_type STREQUAL "INTERFACE_LIBRARY" AND NOT _imported AND NOT _aliased)
      list(APPEND _edgemt_export_targets ${_lib})
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES _edgemt_export_targets)
# libedgemt.so, the C API (runtime/CMakeLists.txt): EdgeMT::edgemt_shared.
if(TARGET edgemt_shared)
  list(APPEND _edgemt_export_targets edgemt_shared)
endif()

install(TARGETS ${_edgemt_export_targets} EXPORT EdgeMTTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/edgemt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")

# The command-line translator (cli/CMakeLists.txt).
if(TARGET edgemt-translate)
  install(TARGETS edgemt-translate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT EdgeMTTargets NAMESPACE EdgeMT:: DESTINATION ${EDGEMT_INSTALL_CMAKEDIR})

get_target_property(_edgemt_type edgemt TYPE)
if(_edgemt_type STREQUAL "STATIC_LIBRARY")
  set(EDGEMT_STATIC_LIBRARY ON)
else()
  set(EDGEMT_STATIC_LIBRARY OFF)
endif()
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/EdgeMTConfig.cmake.in
  ${PROJECT_BINARY_DIR}/EdgeMTConfig.cmake
  INSTALL_DESTINATION ${EDGEMT_INSTALL_CMAKEDIR})
# 0.x: minor versions may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/EdgeMTConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/EdgeMTConfig.cmake ${PROJECT_BINARY_DIR}/EdgeMTConfigVersion.cmake
  DESTINATION ${EDGEMT_INSTALL_CMAKEDIR})

# pkg-config: paths relative to the .pc file, so that --prefix at install
# time is honoured. A static library lists its dependencies in Libs (a plain
# `pkg-config --libs edgemt` then links), a shared one in Libs.private.
# XNNPACK, pthreadpool, cpuinfo and SentencePiece are inside libedgemt.
set(EDGEMT_PC_DEPS "-pthread -lm")
if(EDGEMT_STATIC_LIBRARY)
  # The archive by its path: -ledgemt would pick libedgemt.so, which exports the C API only.
  set(EDGEMT_PC_LIBS "\${libdir}/libedgemt.a ${EDGEMT_PC_DEPS}")
  set(EDGEMT_PC_LIBS_PRIVATE "")
else()
  set(EDGEMT_PC_LIBS "-L\${libdir} -ledgemt")
  set(EDGEMT_PC_LIBS_PRIVATE "${EDGEMT_PC_DEPS}")
endif()
set(EDGEMT_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH EDGEMT_PC_PREFIX /${EDGEMT_PC_DIR} /)
string(REGEX REPLACE "/$" "" EDGEMT_PC_PREFIX "${EDGEMT_PC_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/edgemt.pc.in ${PROJECT_BINARY_DIR}/edgemt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/edgemt.pc DESTINATION ${EDGEMT_PC_DIR})
# edgemt-c: the C API in libedgemt.so (`pkg-config --cflags --libs edgemt-c`).
if(TARGET edgemt_shared)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/edgemt-c.pc.in ${PROJECT_BINARY_DIR}/edgemt-c.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/edgemt-c.pc DESTINATION ${EDGEMT_PC_DIR})
endif()

# Dependencies.
#
# Kernels: XNNPACK 2024-11 with its pthreadpool and cpuinfo, built from
# Debian's source tarballs as static, position-independent libraries by
# tools/kernel-deps.sh into a cache outside the build tree (the first
# configure for a target builds them, later ones reuse them). They end up
# inside libedgemt (a static libedgemt is merged with their archives, a
# shared one links them), so neither programs nor consumers of the installed
# package need them. -DEDGEMT_KERNEL_DEPS_PREFIX=DIR uses another prefix of
# the same layout (lib/libXNNPACK.a ..., include/xnnpack.h).
#
# FlatBuffers (headers, flatc) and SentencePiece come from Debian packages
# (or, when cross-compiling, from the arm64/armhf builds of those packages in
# the toolchain's sysroot).
find_package(Threads REQUIRED)

if(CMAKE_CROSSCOMPILING)
  set(_edgemt_kernel_target ${EDGEMT_CROSS_DEBIAN_ARCH})
else()
  set(_edgemt_kernel_target host)
endif()
if(NOT EDGEMT_KERNEL_DEPS_PREFIX OR NOT EXISTS "${EDGEMT_KERNEL_DEPS_PREFIX}/.complete")
  message(STATUS "EdgeMT: XNNPACK, pthreadpool and cpuinfo for ${_edgemt_kernel_target} (tools/kernel-deps.sh; "
                 "the first build of a target takes a few minutes)")
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/tools/kernel-deps.sh ${_edgemt_kernel_target}
    OUTPUT_VARIABLE _edgemt_kernel_output
    RESULT_VARIABLE _edgemt_kernel_result)
  if(NOT _edgemt_kernel_result EQUAL 0)
    message(FATAL_ERROR "EdgeMT: tools/kernel-deps.sh ${_edgemt_kernel_target} failed")
  endif()
  string(STRIP "${_edgemt_kernel_output}" _edgemt_kernel_output)
  string(REGEX REPLACE ".*\n" "" _edgemt_kernel_prefix "${_edgemt_kernel_output}")
  set(EDGEMT_KERNEL_DEPS_PREFIX "${_edgemt_kernel_prefix}" CACHE PATH
    "Prefix of the static XNNPACK, pthreadpool and cpuinfo (tools/kernel-deps.sh)" FORCE)
endif()
message(STATUS "EdgeMT: kernels from ${EDGEMT_KERNEL_DEPS_PREFIX}")

# In link order: XNNPACK needs its microkernels, pthreadpool and cpuinfo.
set(EDGEMT_KERNEL_ARCHIVES
  ${EDGEMT_KERNEL_DEPS_PREFIX}/lib/libXNNPACK.a
  ${EDGEMT_KERNEL_DEPS_PREFIX}/lib/libmicrokernels-prod.a
  ${EDGEMT_KERNEL_DEPS_PREFIX}/lib/libpthreadpool.a
  ${EDGEMT_KERNEL_DEPS_PREFIX}/lib/libcpuinfo.a)
foreach(_archive IN LISTS EDGEMT_KERNEL_ARCHIVES)
  if(NOT EXISTS ${_archive})
    message(FATAL_ERROR "EdgeMT: ${_archive} is missing (EDGEMT_KERNEL_DEPS_PREFIX)")
  endif()
endforeach()

# The headers and, in the build tree, the archives. A static libedgemt also
# carries the archives inside (runtime/CMakeLists.txt), so the installed
# package's link interface is only Threads and libm.
add_library(edgemt_xnnpack INTERFACE)
target_include_directories(edgemt_xnnpack SYSTEM BEFORE INTERFACE
  $<BUILD_INTERFACE:${EDGEMT_KERNEL_DEPS_PREFIX}/include>)
target_link_libraries(edgemt_xnnpack INTERFACE
  $<BUILD_INTERFACE:${EDGEMT_KERNEL_ARCHIVES}> Threads::Threads m)

if(EDGEMT_WITH_SENTENCEPIECE)
  find_path(SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h REQUIRED)
  find_library(SENTENCEPIECE_LIBRARY sentencepiece REQUIRED)
  add_library(edgemt_sentencepiece INTERFACE)
  target_include_directories(edgemt_sentencepiece SYSTEM INTERFACE $<BUILD_INTERFACE:${SENTENCEPIECE_INCLUDE_DIR}>)
  target_link_libraries(edgemt_sentencepiece INTERFACE
    $<BUILD_INTERFACE:${SENTENCEPIECE_LIBRARY}> $<INSTALL_INTERFACE:EdgeMT::dep_sentencepiece>)
endif()

find_path(FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h REQUIRED)
# flatc always runs on the build machine, also when cross-compiling.
find_program(FLATC_EXECUTABLE flatc REQUIRED NO_CMAKE_FIND_ROOT_PATH)

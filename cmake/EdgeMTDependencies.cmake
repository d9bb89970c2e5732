# Dependencies.
#
# Native libraries: XNNPACK 2024-11 with its pthreadpool and cpuinfo, and
# SentencePiece and CLD2, built from Debian's source tarballs as static,
# position-independent libraries by tools/kernel-deps.sh into a cache outside
# the build tree (the first configure for a target builds them, later ones
# reuse them). They end up inside libedgemt (a static libedgemt is merged
# with their archives, a shared one links them), so neither programs nor
# consumers of the installed package need them: a device gets one file.
# -DEDGEMT_KERNEL_DEPS_PREFIX=DIR uses another prefix of the same layout
# (lib/libXNNPACK.a ..., include/xnnpack.h).
#
# FlatBuffers (headers, flatc) comes from Debian's package; its headers are
# the same for every target.
if(EMSCRIPTEN)
  # WebAssembly: no pthreads library. The threaded build compiles and links
  # everything with -pthread (toolchains/wasm32-emscripten-threads.cmake).
  add_library(edgemt_no_threads INTERFACE)
  add_library(Threads::Threads ALIAS edgemt_no_threads)
else()
  find_package(Threads REQUIRED)
endif()

if(EDGEMT_KERNEL_TARGET)
  set(_edgemt_kernel_target ${EDGEMT_KERNEL_TARGET})
elseif(CMAKE_CROSSCOMPILING)
  set(_edgemt_kernel_target ${EDGEMT_CROSS_DEBIAN_ARCH})
else()
  set(_edgemt_kernel_target host)
endif()
# Runs tools/kernel-deps.sh TARGET and sets OUT to the prefix it prints last.
function(edgemt_kernel_deps target out)
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/tools/kernel-deps.sh ${target}
    OUTPUT_VARIABLE output
    RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "EdgeMT: tools/kernel-deps.sh ${target} failed")
  endif()
  string(STRIP "${output}" output)
  string(REGEX REPLACE ".*\n" "" prefix "${output}")
  set(${out} "${prefix}" PARENT_SCOPE)
endfunction()

# The script runs at every configure unless the prefix was given (it takes
# a fraction of a second when the build is cached), so that a change to
# its flags or versions reaches existing build trees too.
if(NOT EDGEMT_KERNEL_DEPS_PREFIX OR EDGEMT_KERNEL_DEPS_PREFIX STREQUAL _EDGEMT_KERNEL_DEPS_BUILT
   OR NOT EXISTS "${EDGEMT_KERNEL_DEPS_PREFIX}/.complete")
  message(STATUS "EdgeMT: XNNPACK, pthreadpool, cpuinfo and SentencePiece for ${_edgemt_kernel_target} (tools/kernel-deps.sh; "
                 "the first build of a target takes a few minutes)")
  edgemt_kernel_deps(${_edgemt_kernel_target} _edgemt_kernel_prefix)
  set(EDGEMT_KERNEL_DEPS_PREFIX "${_edgemt_kernel_prefix}" CACHE PATH
    "Prefix of the static XNNPACK, pthreadpool, cpuinfo and SentencePiece (tools/kernel-deps.sh)" FORCE)
  set(_EDGEMT_KERNEL_DEPS_BUILT "${_edgemt_kernel_prefix}" CACHE INTERNAL "the prefix kernel-deps.sh gave")
endif()
message(STATUS "EdgeMT: kernels from ${EDGEMT_KERNEL_DEPS_PREFIX}")

# The fuzz configuration: SentencePiece built with its instrumentation, so
# that libFuzzer sees coverage in the tokenizer's parser of model bytes.
set(_edgemt_sentencepiece_prefix ${EDGEMT_KERNEL_DEPS_PREFIX})
if(EDGEMT_FUZZ AND EDGEMT_WITH_SENTENCEPIECE)
  edgemt_kernel_deps(sentencepiece-fuzz _edgemt_sentencepiece_prefix)
  message(STATUS "EdgeMT: SentencePiece instrumented for fuzzing, from ${_edgemt_sentencepiece_prefix}")
endif()

# In link order: SentencePiece (when used); XNNPACK needs its microkernels,
# pthreadpool and cpuinfo.
set(EDGEMT_KERNEL_ARCHIVES "")
if(EDGEMT_WITH_SENTENCEPIECE)
  list(APPEND EDGEMT_KERNEL_ARCHIVES ${_edgemt_sentencepiece_prefix}/lib/libsentencepiece.a)
endif()
list(APPEND EDGEMT_KERNEL_ARCHIVES
  ${EDGEMT_KERNEL_DEPS_PREFIX}/lib/libcld2.a
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

# SentencePiece's header, for the tokenizer and the tests that compare with
# it (its archive is one of the above).
if(EDGEMT_WITH_SENTENCEPIECE)
  add_library(edgemt_sentencepiece INTERFACE)
  target_include_directories(edgemt_sentencepiece SYSTEM INTERFACE
    $<BUILD_INTERFACE:${_edgemt_sentencepiece_prefix}/include>)
endif()

# CLD2's headers, for language detection (runtime/src/language_id); its
# archive is one of the above.
add_library(edgemt_cld2 INTERFACE)
target_include_directories(edgemt_cld2 SYSTEM INTERFACE $<BUILD_INTERFACE:${EDGEMT_KERNEL_DEPS_PREFIX}/include>)

# Header-only for EdgeMT: the host's headers serve every target.
if(EMSCRIPTEN)
  # Emscripten's sysroot must not see the host's /usr/include: a copy of
  # only the FlatBuffers headers, in the build tree.
  find_path(_edgemt_host_flatbuffers flatbuffers/flatbuffers.h REQUIRED PATHS /usr/include NO_DEFAULT_PATH
            NO_CMAKE_FIND_ROOT_PATH)
  file(COPY ${_edgemt_host_flatbuffers}/flatbuffers DESTINATION ${PROJECT_BINARY_DIR}/flatbuffers-include)
  set(FLATBUFFERS_INCLUDE_DIR ${PROJECT_BINARY_DIR}/flatbuffers-include CACHE PATH "FlatBuffers headers" FORCE)
else()
  find_path(FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h REQUIRED NO_CMAKE_FIND_ROOT_PATH)
endif()
# flatc always runs on the build machine, also when cross-compiling.
find_program(FLATC_EXECUTABLE flatc REQUIRED NO_CMAKE_FIND_ROOT_PATH)

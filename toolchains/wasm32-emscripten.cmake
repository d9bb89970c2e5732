# Builds EdgeMT for WebAssembly (web pages, Node.js) with Debian's Emscripten:
#
#   cmake -S . -B build-wasm --toolchain toolchains/wasm32-emscripten.cmake
#   cmake --build build-wasm            # build-wasm/web/: edgemt.mjs, edgemt.wasm, the npm package
#   ctest --test-dir build-wasm         # Node.js and headless Chromium (web/tests/)
#
# Needs emscripten, nodejs and chromium (tools/install-deps.sh test installs them); the
# first configure builds XNNPACK (SIMD128 kernels), pthreadpool, cpuinfo and
# SentencePiece for wasm32 (tools/kernel-deps.sh wasm32, once per machine).
# The build is single-threaded: pthreadpool's Emscripten shim runs every
# kernel on the calling thread (toolchains/wasm32-emscripten-threads.cmake
# is the threaded one).
include(/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake)
if(EDGEMT_WASM_THREADS)
  set(EDGEMT_KERNEL_TARGET wasm32-threads)
  set(_edgemt_wasm_flags "-msimd128 -pthread")
else()
  set(EDGEMT_KERNEL_TARGET wasm32)
  set(_edgemt_wasm_flags "-msimd128")
endif()

# emcc's JavaScript tools need Debian's node-acorn, which a Node.js from
# elsewhere (NodeSource's) does not look for in /usr/share/nodejs: for the
# configure's checks, and for every compile and link.
set(EDGEMT_NODE_PATH "/usr/share/nodejs")
set(ENV{NODE_PATH} "${EDGEMT_NODE_PATH}")
foreach(_lang C CXX)
  set(CMAKE_${_lang}_COMPILER_LAUNCHER env NODE_PATH=${EDGEMT_NODE_PATH})
  set(CMAKE_${_lang}_LINKER_LAUNCHER env NODE_PATH=${EDGEMT_NODE_PATH})
endforeach()

# WebAssembly SIMD128 for EdgeMT's own loops too (attention, softmax, the
# shortlisted projection), as for the kernels: every browser since 2021.
set(CMAKE_C_FLAGS_INIT "${_edgemt_wasm_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_edgemt_wasm_flags}")

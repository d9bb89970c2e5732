# EdgeMT for WebAssembly with threads, for pages that are cross-origin
# isolated (served with Cross-Origin-Opener-Policy: same-origin and
# Cross-Origin-Embedder-Policy: require-corp, so that Web Workers can share
# the module's memory):
#
#   cmake -S . -B build-wasm-threads --toolchain toolchains/wasm32-emscripten-threads.cmake
#
# As toolchains/wasm32-emscripten.cmake, but every object compiled with
# -pthread (shared memory needs atomics throughout), against kernels built
# the same way with pthreadpool's real pool (tools/kernel-deps.sh
# wasm32-threads). Browsers only: this Emscripten's threads in Node.js need
# require(), which an ES module lacks. web/js/README.md says what a page needs.
set(EDGEMT_WASM_THREADS ON)
include(${CMAKE_CURRENT_LIST_DIR}/wasm32-emscripten.cmake)

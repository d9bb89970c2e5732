
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/runtime/src/c_api.cc" "runtime/CMakeFiles/edgemt.dir/src/c_api.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/c_api.cc.o.d"
  "/work/main/runtime/src/decoding/beam_search.cc" "runtime/CMakeFiles/edgemt.dir/src/decoding/beam_search.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/decoding/beam_search.cc.o.d"
  "/work/main/runtime/src/decoding/log_sum_exp.cc" "runtime/CMakeFiles/edgemt.dir/src/decoding/log_sum_exp.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/decoding/log_sum_exp.cc.o.d"
  "/work/main/runtime/src/decoding/next_token.cc" "runtime/CMakeFiles/edgemt.dir/src/decoding/next_token.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/decoding/next_token.cc.o.d"
  "/work/main/runtime/src/decoding/sampling.cc" "runtime/CMakeFiles/edgemt.dir/src/decoding/sampling.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/decoding/sampling.cc.o.d"
  "/work/main/runtime/src/layers/blocks.cc" "runtime/CMakeFiles/edgemt.dir/src/layers/blocks.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/layers/blocks.cc.o.d"
  "/work/main/runtime/src/layers/decoder.cc" "runtime/CMakeFiles/edgemt.dir/src/layers/decoder.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/layers/decoder.cc.o.d"
  "/work/main/runtime/src/layers/encoder.cc" "runtime/CMakeFiles/edgemt.dir/src/layers/encoder.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/layers/encoder.cc.o.d"
  "/work/main/runtime/src/mapped_file.cc" "runtime/CMakeFiles/edgemt.dir/src/mapped_file.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/mapped_file.cc.o.d"
  "/work/main/runtime/src/model.cc" "runtime/CMakeFiles/edgemt.dir/src/model.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/model.cc.o.d"
  "/work/main/runtime/src/model_reader.cc" "runtime/CMakeFiles/edgemt.dir/src/model_reader.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/model_reader.cc.o.d"
  "/work/main/runtime/src/ops/activation.cc" "runtime/CMakeFiles/edgemt.dir/src/ops/activation.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/ops/activation.cc.o.d"
  "/work/main/runtime/src/ops/attention.cc" "runtime/CMakeFiles/edgemt.dir/src/ops/attention.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/ops/attention.cc.o.d"
  "/work/main/runtime/src/ops/embedding.cc" "runtime/CMakeFiles/edgemt.dir/src/ops/embedding.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/ops/embedding.cc.o.d"
  "/work/main/runtime/src/ops/layer_norm.cc" "runtime/CMakeFiles/edgemt.dir/src/ops/layer_norm.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/ops/layer_norm.cc.o.d"
  "/work/main/runtime/src/ops/linear.cc" "runtime/CMakeFiles/edgemt.dir/src/ops/linear.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/ops/linear.cc.o.d"
  "/work/main/runtime/src/packed_cache_file.cc" "runtime/CMakeFiles/edgemt.dir/src/packed_cache_file.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/packed_cache_file.cc.o.d"
  "/work/main/runtime/src/packed_weights.cc" "runtime/CMakeFiles/edgemt.dir/src/packed_weights.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/packed_weights.cc.o.d"
  "/work/main/runtime/src/status.cc" "runtime/CMakeFiles/edgemt.dir/src/status.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/status.cc.o.d"
  "/work/main/runtime/src/streaming_text.cc" "runtime/CMakeFiles/edgemt.dir/src/streaming_text.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/streaming_text.cc.o.d"
  "/work/main/runtime/src/text_translator.cc" "runtime/CMakeFiles/edgemt.dir/src/text_translator.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/text_translator.cc.o.d"
  "/work/main/runtime/src/thread_pool.cc" "runtime/CMakeFiles/edgemt.dir/src/thread_pool.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/thread_pool.cc.o.d"
  "/work/main/runtime/src/tokenizer.cc" "runtime/CMakeFiles/edgemt.dir/src/tokenizer.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/tokenizer.cc.o.d"
  "/work/main/runtime/src/translator.cc" "runtime/CMakeFiles/edgemt.dir/src/translator.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/translator.cc.o.d"
  "/work/main/runtime/src/workspace.cc" "runtime/CMakeFiles/edgemt.dir/src/workspace.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/workspace.cc.o.d"
  "/work/main/runtime/src/xnnpack_memory.cc" "runtime/CMakeFiles/edgemt.dir/src/xnnpack_memory.cc.o" "gcc" "runtime/CMakeFiles/edgemt.dir/src/xnnpack_memory.cc.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")

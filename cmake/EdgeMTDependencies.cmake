# Dependencies come from Debian packages (or, when cross-compiling, from the
# arm64/armhf builds of the same packages unpacked into the toolchain's sysroot).
find_package(Threads REQUIRED)

find_path(XNNPACK_INCLUDE_DIR xnnpack.h REQUIRED)
find_library(XNNPACK_LIBRARY XNNPACK REQUIRED)
find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
find_library(CPUINFO_LIBRARY cpuinfo REQUIRED)
find_path(FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h REQUIRED)

add_library(edgemt_xnnpack INTERFACE)
target_include_directories(edgemt_xnnpack SYSTEM INTERFACE ${XNNPACK_INCLUDE_DIR})
target_link_libraries(edgemt_xnnpack INTERFACE ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY} ${CPUINFO_LIBRARY} Threads::Threads)

if(EDGEMT_WITH_SENTENCEPIECE)
  find_path(SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h REQUIRED)
  find_library(SENTENCEPIECE_LIBRARY sentencepiece REQUIRED)
endif()

# flatc always runs on the build machine, also when cross-compiling.
find_program(FLATC_EXECUTABLE flatc REQUIRED NO_CMAKE_FIND_ROOT_PATH)

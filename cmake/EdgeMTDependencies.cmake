# Dependencies come from Debian packages (or, when cross-compiling, from the
# arm64/armhf builds of the same packages unpacked into the toolchain's sysroot).
find_package(Threads REQUIRED)

find_path(XNNPACK_INCLUDE_DIR xnnpack.h REQUIRED)
find_library(XNNPACK_LIBRARY XNNPACK REQUIRED)
find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
find_library(CPUINFO_LIBRARY cpuinfo REQUIRED)
find_path(FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h REQUIRED)

# Link through these INTERFACE targets, not the paths: in the build tree they
# name the libraries found here; in the installed EdgeMT package (needed by
# consumers of a static libedgemt) they name the imported targets that
# EdgeMTConfig.cmake creates from the consumer's own find_library calls.
add_library(edgemt_xnnpack INTERFACE)
target_include_directories(edgemt_xnnpack SYSTEM INTERFACE $<BUILD_INTERFACE:${XNNPACK_INCLUDE_DIR}>)
target_link_libraries(edgemt_xnnpack INTERFACE
  $<BUILD_INTERFACE:${XNNPACK_LIBRARY}> $<BUILD_INTERFACE:${PTHREADPOOL_LIBRARY}> $<BUILD_INTERFACE:${CPUINFO_LIBRARY}>
  $<INSTALL_INTERFACE:EdgeMT::dep_XNNPACK> $<INSTALL_INTERFACE:EdgeMT::dep_pthreadpool>
  $<INSTALL_INTERFACE:EdgeMT::dep_cpuinfo>
  Threads::Threads)

if(EDGEMT_WITH_SENTENCEPIECE)
  find_path(SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h REQUIRED)
  find_library(SENTENCEPIECE_LIBRARY sentencepiece REQUIRED)
  add_library(edgemt_sentencepiece INTERFACE)
  target_include_directories(edgemt_sentencepiece SYSTEM INTERFACE $<BUILD_INTERFACE:${SENTENCEPIECE_INCLUDE_DIR}>)
  target_link_libraries(edgemt_sentencepiece INTERFACE
    $<BUILD_INTERFACE:${SENTENCEPIECE_LIBRARY}> $<INSTALL_INTERFACE:EdgeMT::dep_sentencepiece>)
endif()

# flatc always runs on the build machine, also when cross-compiling.
find_program(FLATC_EXECUTABLE flatc REQUIRED NO_CMAKE_FIND_ROOT_PATH)

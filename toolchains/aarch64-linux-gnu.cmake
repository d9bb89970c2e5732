# Cross-compiles EdgeMT for 64-bit ARM Linux (Debian arm64: Raspberry Pi 3/4/5
# with a 64-bit OS, ARM servers, most ARM boards today):
#
#   cmake -S . -B build-arm64 --toolchain toolchains/aarch64-linux-gnu.cmake
#   cmake --build build-arm64
#   ctest --test-dir build-arm64        # under qemu-aarch64
#   build-arm64/run-on-host build-arm64/bin/PROGRAM ARGS...
#
# Needs g++-aarch64-linux-gnu and qemu-user (tools/install-deps.sh); the
# first configure builds the native libraries for arm64 (tools/kernel-deps.sh
# arm64, once per machine; see debian-cross.cmake).
set(EDGEMT_CROSS_TRIPLET aarch64-linux-gnu)
set(EDGEMT_CROSS_DEBIAN_ARCH arm64)
set(EDGEMT_CROSS_PROCESSOR aarch64)
set(EDGEMT_CROSS_QEMU qemu-aarch64)
# Tests run on an emulated Cortex-A76 (ARMv8.2-A: NEON with the dot-product
# and fp16 extensions, as in the Raspberry Pi 5); the XNNPACK platform test
# also runs on a Cortex-A53 (ARMv8.0-A NEON only, as in the Raspberry Pi 3),
# where XNNPACK picks its other family of int8 kernels.
set(EDGEMT_CROSS_QEMU_CPU cortex-a76)
set(EDGEMT_CROSS_QEMU_CPU_ALT cortex-a53)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)

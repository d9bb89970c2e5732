# Cross-compiles EdgeMT for 32-bit ARM Linux with hardware floating point
# (Debian armhf: ARMv7-A with VFPv3-D16 as baseline; Raspberry Pi 2/3/4 with a
# 32-bit OS, Cortex-A7/A9/A15 boards):
#
#   cmake -S . -B build-armhf --toolchain toolchains/arm-linux-gnueabihf.cmake
#   cmake --build build-armhf
#   ctest --test-dir build-armhf        # under qemu-arm
#   build-armhf/run-on-host build-armhf/bin/PROGRAM ARGS...
#
# Needs g++-arm-linux-gnueabihf and qemu-user (tools/install-deps.sh); the
# first configure builds the native libraries for armhf (tools/kernel-deps.sh
# armhf, once per machine; see debian-cross.cmake).
set(EDGEMT_CROSS_TRIPLET arm-linux-gnueabihf)
set(EDGEMT_CROSS_DEBIAN_ARCH armhf)
set(EDGEMT_CROSS_PROCESSOR armv7l)
set(EDGEMT_CROSS_QEMU qemu-arm)
# Tests run on an emulated Cortex-A15 (ARMv7-A with NEON and VFPv4/FMA, like
# the Cortex-A7 of a Raspberry Pi 2); the XNNPACK platform test also runs on
# a Cortex-A9 (NEON without FMA). XNNPACK picks its kernels at run time from
# cpuinfo, which reads the NEON/VFP features from AT_HWCAP (set by qemu). The
# ARMv8 AArch32 extras (cpuinfo's neon_v8) would need /proc/cpuinfo to say
# "CPU architecture: 8", which qemu 7.2 does not emulate (the guest sees the
# host's), so ARMv8-only AArch32 kernels are not exercised here.
set(EDGEMT_CROSS_QEMU_CPU cortex-a15)
set(EDGEMT_CROSS_QEMU_CPU_ALT cortex-a9)
# GCC's note that the ARM ABI for some arguments changed in GCC 7.1 is
# irrelevant (everything here is built with GCC 12) and floods the log.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)

# Shared part of the cross-compilation toolchain files (aarch64-linux-gnu.cmake,
# arm-linux-gnueabihf.cmake), which set before including it:
#   EDGEMT_CROSS_TRIPLET     GNU triplet of Debian's cross compiler
#   EDGEMT_CROSS_DEBIAN_ARCH Debian architecture (tools/kernel-deps.sh's target)
#   EDGEMT_CROSS_PROCESSOR   CMAKE_SYSTEM_PROCESSOR
#   EDGEMT_CROSS_QEMU        qemu-user program that runs the binaries
#   EDGEMT_CROSS_QEMU_CPU    CPU it emulates for the tests
#   EDGEMT_CROSS_QEMU_CPU_ALT a second CPU the platform test also runs on
#
# Compilers: Debian's g++-<triplet> with its own libc/libstdc++ in
# /usr/<triplet>. Dependencies: XNNPACK & co. and SentencePiece built from
# source for the target (tools/kernel-deps.sh, at the first configure).
#
# Tests run through qemu-user (CMAKE_CROSSCOMPILING_EMULATOR, recorded in the
# cache); <build>/run-on-host runs any built program the same way.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${EDGEMT_CROSS_PROCESSOR})
set(CMAKE_LIBRARY_ARCHITECTURE ${EDGEMT_CROSS_TRIPLET})
set(CMAKE_C_COMPILER ${EDGEMT_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${EDGEMT_CROSS_TRIPLET}-g++)

# No sysroot to prepare: every library EdgeMT links is built from source
# for the target by tools/kernel-deps.sh, and the rest is header-only
# (FlatBuffers, doctest: the host's headers serve). Libraries come from the
# cross compiler's own runtime in /usr/<triplet> only; programs (flatc,
# qemu) from the build machine.
set(EDGEMT_CROSS_RUNTIME /usr/${EDGEMT_CROSS_TRIPLET})
set(CMAKE_FIND_ROOT_PATH ${EDGEMT_CROSS_RUNTIME})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# qemu-user with the cross compiler's runtime as its root for absolute
# paths: the dynamic loader (/lib/ld-linux-*.so) and libc, libstdc++, libm
# and libgcc_s are all found there (a static binary needs none of it).
find_program(EDGEMT_QEMU ${EDGEMT_CROSS_QEMU} NO_CMAKE_FIND_ROOT_PATH)
if(NOT EDGEMT_QEMU)
  message(WARNING "EdgeMT: ${EDGEMT_CROSS_QEMU} not found (Debian: qemu-user): the tests cannot run on this machine")
  set(EDGEMT_QEMU ${EDGEMT_CROSS_QEMU})
endif()
set(EDGEMT_QEMU_CPU ${EDGEMT_CROSS_QEMU_CPU} CACHE STRING "CPU that qemu emulates for the tests (qemu -cpu help)")
set(EDGEMT_QEMU_CPU_ALT ${EDGEMT_CROSS_QEMU_CPU_ALT} CACHE STRING
  "A second CPU for the XNNPACK platform test (empty: none)")
set(CMAKE_CROSSCOMPILING_EMULATOR "${EDGEMT_QEMU};-L;${EDGEMT_CROSS_RUNTIME};-cpu;${EDGEMT_QEMU_CPU}" CACHE STRING
  "Runs the target's programs on the build machine")
# The same CPU without -L, for the static CLI's tests: nothing of the
# toolchain is there to help it.
set(EDGEMT_STATIC_EMULATOR "${EDGEMT_QEMU};-cpu;${EDGEMT_QEMU_CPU}")

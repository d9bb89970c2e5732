# Shared part of the cross-compilation toolchain files (aarch64-linux-gnu.cmake,
# arm-linux-gnueabihf.cmake), which set before including it:
#   EDGEMT_CROSS_TRIPLET     GNU triplet of Debian's cross compiler
#   EDGEMT_CROSS_DEBIAN_ARCH Debian architecture of the sysroot's packages
#   EDGEMT_CROSS_PROCESSOR   CMAKE_SYSTEM_PROCESSOR
#   EDGEMT_CROSS_QEMU        qemu-user program that runs the binaries
#   EDGEMT_CROSS_QEMU_CPU    CPU it emulates for the tests
#   EDGEMT_CROSS_QEMU_CPU_ALT a second CPU the platform test also runs on
#
# Compilers: Debian's g++-<triplet> with its own libc/libstdc++ in
# /usr/<triplet>. Dependencies: Debian's builds of XNNPACK & co. for the
# target architecture, unpacked into a sysroot (default: <build>/_sysroot)
# that toolchains/make-sysroot.sh prepares on the first configure. Another
# sysroot (same layout) can be given with -DEDGEMT_SYSROOT=DIR.
#
# Tests run through qemu-user (CMAKE_CROSSCOMPILING_EMULATOR, recorded in the
# cache); <build>/run-on-host runs any built program the same way.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${EDGEMT_CROSS_PROCESSOR})
set(CMAKE_LIBRARY_ARCHITECTURE ${EDGEMT_CROSS_TRIPLET})
set(CMAKE_C_COMPILER ${EDGEMT_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${EDGEMT_CROSS_TRIPLET}-g++)

# The sysroot: this file is read again for every try_compile project (with
# its own binary dir), which gets the path through the cache.
if(NOT EDGEMT_SYSROOT)
  set(EDGEMT_SYSROOT ${CMAKE_BINARY_DIR}/_sysroot)
endif()
set(EDGEMT_SYSROOT "${EDGEMT_SYSROOT}" CACHE PATH
  "Debian ${EDGEMT_CROSS_DEBIAN_ARCH} packages of EdgeMT's dependencies (toolchains/make-sysroot.sh)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EDGEMT_SYSROOT)

# Prepare it once: the script's format line must match the sysroot's stamp.
set(_edgemt_make_sysroot ${CMAKE_CURRENT_LIST_DIR}/make-sysroot.sh)
file(STRINGS ${_edgemt_make_sysroot} _edgemt_format REGEX "^format=[0-9]+$" LIMIT_COUNT 1)
string(REPLACE "format=" "" _edgemt_format "${_edgemt_format}")
set(_edgemt_stamp_line "")
if(EXISTS ${EDGEMT_SYSROOT}/.edgemt-sysroot)
  file(STRINGS ${EDGEMT_SYSROOT}/.edgemt-sysroot _edgemt_stamp_line LIMIT_COUNT 1)
endif()
if(NOT _edgemt_stamp_line STREQUAL "edgemt-sysroot ${_edgemt_format} ${EDGEMT_CROSS_DEBIAN_ARCH}")
  message(STATUS "EdgeMT: preparing the ${EDGEMT_CROSS_DEBIAN_ARCH} sysroot in ${EDGEMT_SYSROOT} "
                 "(Debian packages, downloaded once; see toolchains/make-sysroot.sh)")
  execute_process(
    COMMAND ${_edgemt_make_sysroot} ${EDGEMT_CROSS_DEBIAN_ARCH} ${EDGEMT_SYSROOT}
    RESULT_VARIABLE _edgemt_result)
  if(NOT _edgemt_result EQUAL 0)
    message(FATAL_ERROR "EdgeMT: toolchains/make-sysroot.sh ${EDGEMT_CROSS_DEBIAN_ARCH} ${EDGEMT_SYSROOT} failed")
  endif()
endif()

# Libraries and headers come from the sysroot only; programs (flatc, qemu)
# from the build machine. The compiler keeps its own libc (/usr/<triplet>).
set(CMAKE_FIND_ROOT_PATH ${EDGEMT_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The linker resolves the shared libraries' own dependencies in the sysroot.
set(_edgemt_rpath_link
  "-Wl,-rpath-link,${EDGEMT_SYSROOT}/usr/lib/${EDGEMT_CROSS_TRIPLET}:${EDGEMT_SYSROOT}/lib/${EDGEMT_CROSS_TRIPLET}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_edgemt_rpath_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_edgemt_rpath_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_edgemt_rpath_link}")
# pkg-config (if a project uses it) looks into the sysroot too.
set(ENV{PKG_CONFIG_LIBDIR}
  "${EDGEMT_SYSROOT}/usr/lib/${EDGEMT_CROSS_TRIPLET}/pkgconfig:${EDGEMT_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${EDGEMT_SYSROOT}")

# qemu-user with the sysroot as its root for absolute paths: the dynamic
# loader, the cross compiler's runtime (linked into the sysroot's lib/) and
# the dependencies' shared libraries are all found there.
find_program(EDGEMT_QEMU ${EDGEMT_CROSS_QEMU} NO_CMAKE_FIND_ROOT_PATH)
if(NOT EDGEMT_QEMU)
  message(WARNING "EdgeMT: ${EDGEMT_CROSS_QEMU} not found (Debian: qemu-user): the tests cannot run on this machine")
  set(EDGEMT_QEMU ${EDGEMT_CROSS_QEMU})
endif()
set(EDGEMT_QEMU_CPU ${EDGEMT_CROSS_QEMU_CPU} CACHE STRING "CPU that qemu emulates for the tests (qemu -cpu help)")
set(EDGEMT_QEMU_CPU_ALT ${EDGEMT_CROSS_QEMU_CPU_ALT} CACHE STRING
  "A second CPU for the XNNPACK platform test (empty: none)")
set(CMAKE_CROSSCOMPILING_EMULATOR "${EDGEMT_QEMU};-L;${EDGEMT_SYSROOT};-cpu;${EDGEMT_QEMU_CPU}" CACHE STRING
  "Runs the target's programs on the build machine")

# Cross-compiling for 64-bit ARM Linux (aarch64) with Debian's g++-aarch64-linux-gnu, against a
# sysroot that holds the arm64 builds of the project's libraries (scripts/cross-arm64.sh makes one
# from Debian's arm64 packages):
#
#   cmake -S . -B build-arm64/build -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DLINKSCOPE_SYSROOT=/path/to/sysroot -DLINKSCOPE_BUILD_GUI=OFF -DLINKSCOPE_BUILD_TESTS=OFF \
#         -DLINKSCOPE_BUILD_BENCH=OFF
#
# Programs that run during the build (protoc) are the host's; headers, libraries, CMake packages
# and pkg-config files come from the sysroot only.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# The sysroot: -DLINKSCOPE_SYSROOT=..., or the environment variable of the same name. CMake reads
# this file again for its try_compile projects, which see only the variables listed below.
if(NOT LINKSCOPE_SYSROOT AND DEFINED ENV{LINKSCOPE_SYSROOT})
  set(LINKSCOPE_SYSROOT "$ENV{LINKSCOPE_SYSROOT}")
endif()
if(NOT LINKSCOPE_SYSROOT OR NOT EXISTS "${LINKSCOPE_SYSROOT}/usr/include")
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: set LINKSCOPE_SYSROOT to an arm64 Debian sysroot "
                      "(got '${LINKSCOPE_SYSROOT}'; scripts/cross-arm64.sh makes one)")
endif()
set(LINKSCOPE_SYSROOT "${LINKSCOPE_SYSROOT}" CACHE PATH "The arm64 sysroot the build links against")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES LINKSCOPE_SYSROOT)

set(CMAKE_SYSROOT "${LINKSCOPE_SYSROOT}")
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH "${LINKSCOPE_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (libdeflate): the sysroot's .pc files, never the host's.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${LINKSCOPE_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${LINKSCOPE_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${LINKSCOPE_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# The built programs run under Debian's qemu-user (for ctest or custom commands, if ever enabled).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L "${LINKSCOPE_SYSROOT}")

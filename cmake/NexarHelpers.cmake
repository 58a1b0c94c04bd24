# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# nexar_internal_library(name DIR dir [FILES ...] [DEPS ...]): a static PIC library made of
# every .cc file directly under runtime/<dir> plus FILES (paths under runtime/, for a folder
# whose files belong to two layers), linked into libnexar.so and nexrun. A folder with
# headers only gives an interface library.
function(nexar_internal_library name)
  cmake_parse_arguments(ARG "" "DIR" "FILES;DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_DIR}/*.cc)
  list(TRANSFORM ARG_FILES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  list(APPEND srcs ${ARG_FILES})
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/runtime)
    target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/runtime)
    target_link_libraries(${name} INTERFACE ${ARG_DEPS})
  endif()
endfunction()

# nexar_no_undefined(target): a shared library or module resolves every symbol when it is
# linked (-Wl,--no-undefined), except in clang's sanitizer builds: clang links the sanitizer
# runtime only into executables, so the library's __asan_*/__ubsan_* references resolve
# from the program at load time.
function(nexar_no_undefined target)
  if(NOT (NEXAR_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang"))
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
endfunction()

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Documentation built from the code. nexrun.1 (help2man, from nexrun --help) is part of
# every build when help2man is found, and installed: `man nexrun` after an install or a
# .deb. The API reference (Doxygen, from the comments of every header in include/nexar/)
# is built on request, `cmake --build build --target docs` (it also builds nexrun.1), and
# installed with the headers once built.
find_program(NEXAR_DOXYGEN doxygen)
find_program(NEXAR_HELP2MAN help2man)
set(doc_outputs "")
if(NEXAR_DOXYGEN)
  file(GLOB public_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/nexar/*.h ${PROJECT_SOURCE_DIR}/include/nexar/*.hpp)
  configure_file(docs/api/Doxyfile.in ${PROJECT_BINARY_DIR}/docs/Doxyfile @ONLY)
  set(api_html ${PROJECT_BINARY_DIR}/docs/api/html)
  add_custom_command(OUTPUT ${api_html}/index.html
    COMMAND ${NEXAR_DOXYGEN} ${PROJECT_BINARY_DIR}/docs/Doxyfile
    DEPENDS ${public_headers} ${PROJECT_BINARY_DIR}/docs/Doxyfile
    COMMENT "API reference (docs/api/html)" VERBATIM)
  list(APPEND doc_outputs ${api_html}/index.html)
  install(DIRECTORY ${api_html}/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/api COMPONENT dev OPTIONAL)
endif()
if(NEXAR_HELP2MAN)
  # Compressed, as Debian's policy has man pages (gzip -n: no name or time stamp inside).
  set(nexrun_man ${PROJECT_BINARY_DIR}/docs/nexrun.1.gz)
  add_custom_command(OUTPUT ${nexrun_man}
    COMMAND ${NEXAR_HELP2MAN} --no-info --section 1 --name "start a nexar job (ranks on one or many hosts)"
            --output ${PROJECT_BINARY_DIR}/docs/nexrun.1 $<TARGET_FILE:nexrun>
    COMMAND gzip -9nf ${PROJECT_BINARY_DIR}/docs/nexrun.1
    DEPENDS nexrun COMMENT "man page nexrun.1" VERBATIM)
  add_custom_target(nexrun_man ALL DEPENDS ${nexrun_man})
  list(APPEND doc_outputs ${nexrun_man})
  install(FILES ${nexrun_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
else()
  message(STATUS "nexar: no man page nexrun.1 (help2man not found: apt-get install help2man)")
endif()
if(doc_outputs)
  add_custom_target(docs DEPENDS ${doc_outputs})
endif()

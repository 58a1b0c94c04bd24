# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Optional documentation targets: `docs` builds the API reference (Doxygen, from the
# comments of include/nexar/) and nexrun.1 (help2man, from nexrun --help), each when its
# tool is found. nexrun.1 is installed when it was built.
find_program(NEXAR_DOXYGEN doxygen)
find_program(NEXAR_HELP2MAN help2man)
set(doc_outputs "")
if(NEXAR_DOXYGEN)
  configure_file(docs/api/Doxyfile.in ${PROJECT_BINARY_DIR}/docs/Doxyfile @ONLY)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/docs/api/html/index.html
    COMMAND ${NEXAR_DOXYGEN} ${PROJECT_BINARY_DIR}/docs/Doxyfile
    DEPENDS ${PROJECT_SOURCE_DIR}/include/nexar/nexar.h ${PROJECT_SOURCE_DIR}/include/nexar/nexar.hpp
    COMMENT "API reference (docs/api/html)" VERBATIM)
  list(APPEND doc_outputs ${PROJECT_BINARY_DIR}/docs/api/html/index.html)
endif()
if(NEXAR_HELP2MAN)
  set(nexrun_man ${PROJECT_BINARY_DIR}/docs/nexrun.1)
  add_custom_command(OUTPUT ${nexrun_man}
    COMMAND ${NEXAR_HELP2MAN} --no-info --section 1 --name "start a nexar job (ranks on one or many hosts)"
            --output ${nexrun_man} $<TARGET_FILE:nexrun>
    DEPENDS nexrun COMMENT "man page nexrun.1" VERBATIM)
  list(APPEND doc_outputs ${nexrun_man})
  install(FILES ${nexrun_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime OPTIONAL)
endif()
if(doc_outputs)
  add_custom_target(docs DEPENDS ${doc_outputs})
endif()

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# Run by cmake --install (install(SCRIPT)): writes nexar.pc for the prefix being installed to,
# which `cmake --install --prefix` may choose long after configure. Programs built against a
# prefix other than /usr get a RUNPATH to libnexar; /usr's library directory is on the
# loader's path already. Set before this runs: NEXAR_PC_TEMPLATE (nexar.pc with
# @nexar_pc_rpath@ left open), NEXAR_PC_WORK (a scratch path), NEXAR_PC_LIBDIR.
set(nexar_pc_rpath "")
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(nexar_pc_rpath "-Wl,-rpath,\${libdir} ")
endif()
configure_file("${NEXAR_PC_TEMPLATE}" "${NEXAR_PC_WORK}/nexar.pc" @ONLY)
set(nexar_pc_dir "${NEXAR_PC_LIBDIR}/pkgconfig")
if(NOT IS_ABSOLUTE "${nexar_pc_dir}")
  set(nexar_pc_dir "${CMAKE_INSTALL_PREFIX}/${nexar_pc_dir}")
endif()
# file(INSTALL) honours DESTDIR and records the file in install_manifest.txt.
file(INSTALL DESTINATION "${nexar_pc_dir}" TYPE FILE
     FILES "${NEXAR_PC_WORK}/nexar.pc")

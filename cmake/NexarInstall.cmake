# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# cmake --install: libnexar (SONAME libnexar.so.0) and its headers, nexrun and the tools,
# the CMake package (find_package(nexar) -> nexar::nexar) and nexar.pc. Installed programs
# find libnexar through a RUNPATH relative to themselves ($ORIGIN), so a moved prefix works.
include(CMakePackageConfigHelpers)

file(RELATIVE_PATH nexar_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set(nexar_tools nexar-info nexar-p2p-bench nexar-bench nexar-launch-probe nexar-recovery-bench)
set_target_properties(nexrun ${nexar_tools} PROPERTIES INSTALL_RPATH "$ORIGIN/${nexar_bin_to_lib}")

install(TARGETS nexar EXPORT nexarTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
install(TARGETS nexrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS ${nexar_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
install(PROGRAMS tools/nexar-trace-merge.py DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME nexar-trace-merge
  COMPONENT tools)
install(DIRECTORY include/nexar DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
# The examples' sources, to build against the installed library (docs/getting-started.md).
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT dev
  PATTERN CMakeLists.txt EXCLUDE)

set(nexar_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/nexar)
install(EXPORT nexarTargets NAMESPACE nexar:: DESTINATION ${nexar_cmake_dir} COMPONENT dev)
configure_package_config_file(cmake/nexarConfig.cmake.in ${PROJECT_BINARY_DIR}/nexarConfig.cmake
  INSTALL_DESTINATION ${nexar_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nexarConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nexarConfig.cmake ${PROJECT_BINARY_DIR}/nexarConfigVersion.cmake
  DESTINATION ${nexar_cmake_dir} COMPONENT dev)

# pkg-config: paths relative to the .pc file (a moved prefix works). Whether consumers get a
# RUNPATH depends on the prefix installed to, so cmake/NexarPcInstall.cmake writes the file
# at install time; here only the prefix-independent parts are filled in.
file(RELATIVE_PATH nexar_pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
set(nexar_pc_rpath "@nexar_pc_rpath@")
configure_file(cmake/nexar.pc.in ${PROJECT_BINARY_DIR}/nexar.pc.template @ONLY)
install(CODE "set(NEXAR_PC_TEMPLATE \"${PROJECT_BINARY_DIR}/nexar.pc.template\")
  set(NEXAR_PC_WORK \"${PROJECT_BINARY_DIR}/pc-install\")
  set(NEXAR_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")" COMPONENT dev)
install(SCRIPT cmake/NexarPcInstall.cmake COMPONENT dev)

# cpack -G DEB (configure with -DCMAKE_INSTALL_PREFIX=/usr: the library then goes to
# /usr/lib/<multiarch>, the Python package to /usr/lib/python3/dist-packages): libnexar0
# (the library and nexrun), libnexar-dev (headers, CMake package, nexar.pc, the examples'
# sources), nexar-tools, python3-nexar (the package nexar, when built), python3-nexar-torch
# (the PyTorch backend, when built) and
# libnexar0-cuda (the CUDA plugin, when built; its CUDA and NCCL libraries come from
# outside Debian, so dpkg-shlibdeps cannot name them as dependencies).
set(CPACK_PACKAGE_NAME nexar)
set(CPACK_PACKAGE_VENDOR "The nexar authors")
set(CPACK_PACKAGE_CONTACT "The nexar authors <nexar@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "distributed communication runtime over QUIC and shared memory")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev tools)
if(TARGET nexar_torch_ext)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()
if(TARGET nexar_py_ext)
  list(APPEND CPACK_COMPONENTS_ALL python_nexar)
endif()
if(TARGET nexar_cuda_plugin)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libnexar.so.0 of this build, for the tools' dependencies (it is in libnexar0, not on the system).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/runtime)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libnexar${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libnexar-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libnexar${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME nexar-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libnexar${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION}), python3")
# A Python package's extension loads into one Python X.Y only: "python3 (>= X.Y), python3 (<< X.Y+1)".
function(nexar_deb_python_range version out)
  string(REPLACE "." ";" parts "${version}")
  list(GET parts 0 major)
  list(GET parts 1 minor)
  math(EXPR next "${minor} + 1")
  set(${out} "python3 (>= ${version}), python3 (<< ${major}.${next})" PARENT_SCOPE)
endfunction()
# The maintainer scripts byte-compile and clean up whichever Python package runs them.
set(py_scripts ${PROJECT_SOURCE_DIR}/cmake/deb/postinst ${PROJECT_SOURCE_DIR}/cmake/deb/prerm)
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-nexar-torch)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${py_scripts})
if(TARGET nexar_torch_ext)
  nexar_deb_python_range(${NEXAR_TORCH_PYTHON_VERSION} range)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "libnexar${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION}), python3-torch, ${range}")
endif()
set(CPACK_DEBIAN_PYTHON_NEXAR_PACKAGE_NAME python3-nexar)
set(CPACK_DEBIAN_PYTHON_NEXAR_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_NEXAR_PACKAGE_CONTROL_EXTRA ${py_scripts})
set(CPACK_DEBIAN_PYTHON_NEXAR_PACKAGE_RECOMMENDS python3-numpy)
if(TARGET nexar_py_ext)
  nexar_deb_python_range(${NEXAR_PYTHON_VERSION} range)
  set(CPACK_DEBIAN_PYTHON_NEXAR_PACKAGE_DEPENDS "libnexar${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION}), ${range}")
endif()
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME libnexar${PROJECT_VERSION_MAJOR}-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "libnexar${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION})")
include(CPack)

# Debian packages by CPack (`./dev.sh package`, or `cpack -G DEB` in the
# build directory): hnow, hnowd and hnow-agent, each with a -dbgsym package
# holding the debug information its stripped binary left out.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hnow)
set(CPACK_PACKAGE_VENDOR "hnow")
set(CPACK_PACKAGE_CONTACT "hnow maintainers <hnow@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli coordinator agent)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: the shared libraries the binaries link, as dpkg-shlibdeps finds them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Stripped binaries; their debug information in hnow-dbgsym, hnowd-dbgsym, hnow-agent-dbgsym.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(debian ${CMAKE_CURRENT_SOURCE_DIR}/debian)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME hnow)
string(CONCAT CPACK_DEBIAN_CLI_DESCRIPTION
  "hnow command line: send files and run jobs across a lab\n"
  "hnow distributes files and jobs across heterogeneous clusters, planning\n"
  "each send by the measured rates of the machines and links. This package\n"
  "holds the command line that operators use against hnowd.")
set(CPACK_DEBIAN_CLI_PACKAGE_CONTROL_EXTRA ${debian}/hnow/conffiles)

set(CPACK_DEBIAN_COORDINATOR_PACKAGE_NAME hnowd)
string(CONCAT CPACK_DEBIAN_COORDINATOR_DESCRIPTION
  "hnow coordinator: plans and moves files and jobs across a lab\n"
  "hnowd accepts the hnow agents of a lab and the operators' hnow commands,\n"
  "measures links, plans each send and job, and keeps its state in SQLite.\n"
  "Runs as the system user hnow under a hardened systemd unit.")
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_COORDINATOR_PACKAGE_CONTROL_EXTRA
    "${debian}/hnowd/conffiles;${debian}/hnowd/postinst;${debian}/hnowd/prerm;${debian}/hnowd/postrm")

set(CPACK_DEBIAN_AGENT_PACKAGE_NAME hnow-agent)
string(CONCAT CPACK_DEBIAN_AGENT_DESCRIPTION
  "hnow agent: receives and relays files, runs job shares\n"
  "One hnow-agent runs on each machine of a lab: it measures the machine,\n"
  "receives and relays the files hnowd sends and runs the job shares its\n"
  "owner allows. Runs as the system user hnow-agent under a hardened systemd\n"
  "unit; `hnow-agent enroll TOKEN_FILE` enrolls it.")
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_AGENT_PACKAGE_CONTROL_EXTRA
    "${debian}/hnow-agent/conffiles;${debian}/hnow-agent/postinst;${debian}/hnow-agent/prerm;${debian}/hnow-agent/postrm")

include(CPack)

# `cmake --build build --target hnow_packages`: the .deb and -dbgsym .ddeb
# files in build/packages (what ./dev.sh package runs).
add_custom_target(hnow_packages
  COMMAND ${CMAKE_CPACK_COMMAND} -G DEB --config ${PROJECT_BINARY_DIR}/CPackConfig.cmake
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  COMMENT "Debian packages of hnow, hnowd and hnow-agent in ${CPACK_PACKAGE_DIRECTORY}"
  USES_TERMINAL)
add_dependencies(hnow_packages hnow hnowd hnow-agent hnow_dist_files)

# package.cmake - the Debian packages `cpack` builds in the build folder
# (CPack's DEB generator, one package per install component):
#
#   cgmap_VERSION_ARCH.deb                      the program: /usr/bin/cgmap,
#       /usr/share/cgmap (builtin lists), /usr/share/doc/cgmap
#   postgresql-15-cgmap-trace_VERSION_ARCH.deb  the extension, in the paths
#       of pg_config --pkglibdir and --sharedir/extension
#
# VERSION is the project version. Depends: the shared libraries the ELF
# files need (dpkg-shlibdeps, from dpkg-dev; `file` finds the ELF files),
# plus postgresql-15 for the extension. scripts/package.sh is the command.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cgmap)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CGMAP_PACKAGE_MAINTAINER "cgmap developers" CACHE STRING
  "Maintainer field of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${CGMAP_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Only the program and the extension: no source tarball.
set(CPACK_SOURCE_GENERATOR "")

set(CPACK_COMPONENTS_ALL cgmap)
set(CPACK_DEBIAN_CGMAP_PACKAGE_NAME cgmap)
set(CPACK_COMPONENT_CGMAP_DESCRIPTION
  "call-graph mapper for PostgreSQL PL/pgSQL and SQL functions
cgmap maps which function calls which in a PostgreSQL database or a folder
of SQL files (static analysis with PostgreSQL 15's parser), merges calls
observed at runtime, and writes a JSON snapshot, Graphviz DOT, an HTML
site, reports and diffs of two call graphs for pull-request checks.")

if(CGMAP_TRACE_PACKAGE)
  list(APPEND CPACK_COMPONENTS_ALL cgmap_trace)
  set(CPACK_DEBIAN_CGMAP_TRACE_PACKAGE_NAME postgresql-${PG_MAJOR}-cgmap-trace)
  set(CPACK_DEBIAN_CGMAP_TRACE_PACKAGE_DEPENDS postgresql-${PG_MAJOR})
  set(CPACK_DEBIAN_CGMAP_PACKAGE_SUGGESTS postgresql-${PG_MAJOR}-cgmap-trace)
  set(CPACK_COMPONENT_CGMAP_TRACE_DESCRIPTION
    "runtime call graph of PL/pgSQL and SQL functions for cgmap (PostgreSQL ${PG_MAJOR})
The cgmap_trace extension records, inside a running server, which user
function called which, from which line, and whether through EXECUTE.
Preload it (shared_preload_libraries = 'cgmap_trace'), then CREATE
EXTENSION cgmap_trace; cgmap reads the observed calls.")
endif()

include(CPack)

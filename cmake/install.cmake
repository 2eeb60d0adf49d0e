# What `cmake --install` lays out and what `cpack -G DEB` packs (included last from
# CMakeLists.txt). Two components, each its own .deb:
#   cli      kftrain, kubectl-kftrain (kubectl's plugin), the templates, the examples, shell
#            completions and the man page kftrain(1)      -> kftrain_<version>_<arch>.deb
#   trainer  kftrain-trainer, where it is built           -> kftrain-trainer_<version>_<arch>.deb
# The completions and the man page are generated at build time from the built kftrain's own
# verbs (`kftrain completion SHELL`, packaging/man_page_main.cpp), never written by hand.
include(GNUInstallDirs)

option(KFTRAIN_PLUGIN_SYMLINK
  "Install kubectl-kftrain as a symlink to kftrain (OFF: a copy)" ON)

set(KFTRAIN_SHARE_DIR ${PROJECT_BINARY_DIR}/share)

# The build-only man page generator (not installed).
add_executable(kftrain-man-page packaging/man_page_main.cpp)
target_link_libraries(kftrain-man-page PRIVATE kftrain_core)
kftrain_sanitize(kftrain-man-page)

# kftrain(1), gzipped as Debian installs man pages (-n: no name or time, so reproducible).
set(man_page ${KFTRAIN_SHARE_DIR}/man/man1/kftrain.1)
add_custom_command(OUTPUT ${man_page} ${man_page}.gz
  COMMAND ${CMAKE_COMMAND} "-DCOMMAND_LINE=$<TARGET_FILE:kftrain-man-page>"
    -DOUTPUT=${man_page} -P ${PROJECT_SOURCE_DIR}/cmake/capture_output.cmake
  COMMAND ${CMAKE_COMMAND} "-DCOMMAND_LINE=gzip|-9nc|${man_page}"
    -DOUTPUT=${man_page}.gz -P ${PROJECT_SOURCE_DIR}/cmake/capture_output.cmake
  DEPENDS kftrain-man-page ${PROJECT_SOURCE_DIR}/cmake/capture_output.cmake
  COMMENT "Generating the man page kftrain(1) from the verbs' help" VERBATIM)

# Shell completions, printed by the built kftrain.
set(completions)
foreach(shell bash zsh fish)
  set(script ${KFTRAIN_SHARE_DIR}/completions/kftrain.${shell})
  add_custom_command(OUTPUT ${script}
    COMMAND ${CMAKE_COMMAND} "-DCOMMAND_LINE=$<TARGET_FILE:kftrain>|completion|${shell}"
      -DOUTPUT=${script} -P ${PROJECT_SOURCE_DIR}/cmake/capture_output.cmake
    DEPENDS kftrain ${PROJECT_SOURCE_DIR}/cmake/capture_output.cmake
    COMMENT "Generating the ${shell} completion of kftrain" VERBATIM)
  list(APPEND completions ${script})
endforeach()

# kubectl-kftrain beside kftrain in the build tree too, so that tests run the plugin name.
set(plugin ${PROJECT_BINARY_DIR}/kubectl-kftrain)
add_custom_command(OUTPUT ${plugin}
  COMMAND ${CMAKE_COMMAND} -E create_symlink kftrain ${plugin}
  DEPENDS kftrain
  COMMENT "Linking kubectl-kftrain to kftrain" VERBATIM)

add_custom_target(kftrain-generated-files ALL DEPENDS ${man_page}.gz ${completions} ${plugin})
if(TARGET kftrain_tests)
  add_dependencies(kftrain_tests kftrain-generated-files)
endif()

install(TARGETS kftrain RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
if(KFTRAIN_PLUGIN_SYMLINK)
  install(FILES ${plugin} DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
else()
  install(PROGRAMS $<TARGET_FILE:kftrain> DESTINATION ${CMAKE_INSTALL_BINDIR}
    RENAME kubectl-kftrain COMPONENT cli)
endif()
if(TARGET kftrain-trainer)
  install(TARGETS kftrain-trainer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT trainer)
endif()
install(DIRECTORY templates/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kftrain/templates
  COMPONENT cli FILES_MATCHING PATTERN "*.yaml")
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT cli
  USE_SOURCE_PERMISSIONS)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright COMPONENT cli)
# The Grafana dashboard over the trainer's metrics (docs/metrics.md); OPTIONAL: the CLI image's
# build context leaves packaging/grafana out.
install(FILES packaging/grafana/kftrain.json DESTINATION ${CMAKE_INSTALL_DATADIR}/kftrain/grafana
  COMPONENT cli OPTIONAL)
install(FILES ${man_page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
install(FILES ${KFTRAIN_SHARE_DIR}/completions/kftrain.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME kftrain COMPONENT cli)
install(FILES ${KFTRAIN_SHARE_DIR}/completions/kftrain.zsh
  DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions RENAME _kftrain COMPONENT cli)
install(FILES ${KFTRAIN_SHARE_DIR}/completions/kftrain.fish
  DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d RENAME kftrain.fish
  COMPONENT cli)

# cpack -G DEB (make package): one .deb per component, Depends from dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME kftrain)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "kftrain")
set(KFTRAIN_PACKAGE_MAINTAINER "kftrain maintainers <maintainers@users.noreply.a-seed-0222c434.example>"
  CACHE STRING "The Maintainer field of the .deb packages: Name <email>")
set(CPACK_PACKAGE_CONTACT "${KFTRAIN_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "train PyTorch models across many machines with Kubeflow")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
if(TARGET kftrain-trainer)
  list(APPEND CPACK_COMPONENTS_ALL trainer)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME kftrain)
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "kubectl | kubernetes-client")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "kftrain-trainer")
set(CPACK_DEBIAN_TRAINER_PACKAGE_NAME kftrain-trainer)
set(CPACK_DEBIAN_TRAINER_PACKAGE_SECTION science)
# The body of each package's Description; its first line is CPACK_PACKAGE_DESCRIPTION_SUMMARY.
set(CPACK_COMPONENT_CLI_DESCRIPTION
"kftrain is a kubectl-style command-line tool. It renders a short job file
(YAML) into a Kubeflow PyTorchJob (Training Operator) or TrainJob (Kubeflow
Trainer v2), submits it with kubectl, follows its status and the logs of every
replica, estimates speedup and cost, tunes hyperparameters with Katib, and runs
the same job on this machine as processes with --local.

It installs as kubectl-kftrain too, so that `kubectl kftrain` runs it.")
set(CPACK_COMPONENT_TRAINER_DESCRIPTION
"kftrain-trainer is the program kftrain's jobs run in every replica: data-parallel
training with Gloo on CPU (NCCL on GPU), sharded data, checkpoints it resumes
from, MLflow logging, and progress lines kftrain reads.")
include(CPack)

# kftrain_unity(target): with KFTRAIN_UNITY_BUILD, compile the target's sources in batches of
# 8 files (CMakeLists.txt says why). The batches are written here rather than by CMake's
# UNITY_BUILD, whose batch files include each source by its absolute path: with the clone's
# path in every batch, ccache found nothing that a clone elsewhere (CI's) had compiled. These
# include each source by its path from the batch, the same in every clone. A runner's main
# (CATCH_CONFIG_MAIN before catch.hpp) stays a file of its own: in a batch, catch.hpp would
# already have been read without it. Sources added to the target after the call compile alone.
# Used by the root CMakeLists.txt and by fuzz/CMakeLists.txt.
function(kftrain_unity target)
  if(NOT KFTRAIN_UNITY_BUILD)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(unity_dir ${binary_dir}/unity/${target})
  set(batched)
  set(batches)
  set(text "")
  set(count 0)
  list(LENGTH sources total)
  set(seen 0)
  foreach(source ${sources})
    math(EXPR seen "${seen} + 1")
    if(source MATCHES "\\.(cpp|cc|cxx)$" AND
       NOT source MATCHES "(catch_main|nccl_main)\\.cpp$")
      get_filename_component(path ${source} ABSOLUTE BASE_DIR ${source_dir})
      file(RELATIVE_PATH relative ${unity_dir} ${path})
      string(APPEND text "#include \"${relative}\"\n")
      list(APPEND batched ${source})
      math(EXPR count "${count} + 1")
    endif()
    if(count EQUAL 8 OR (seen EQUAL total AND count GREATER 0))
      list(LENGTH batches index)
      set(batch ${unity_dir}/batch_${index}.cpp)
      # Written only when its text changes, so a configure rebuilds nothing.
      file(GENERATE OUTPUT ${batch} CONTENT "/* kftrain_unity (CMakeLists.txt) */\n${text}")
      list(APPEND batches ${batch})
      set(text "")
      set(count 0)
    endif()
  endforeach()
  set_source_files_properties(${batched} PROPERTIES HEADER_FILE_ONLY ON)
  target_sources(${target} PRIVATE ${batches})
endfunction()

# Run a command and write its standard output to a file; fail the build when it fails or
# prints nothing. cmake -DCOMMAND_LINE="prog|arg|arg" -DOUTPUT=file -P capture_output.cmake
# ('|' separates the arguments, so that none is split at a space).
string(REPLACE "|" ";" command "${COMMAND_LINE}")
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
execute_process(COMMAND ${command} OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${COMMAND_LINE} failed (${status}): cannot make ${OUTPUT}")
endif()
file(SIZE "${OUTPUT}.tmp" size)
if(size EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${COMMAND_LINE} printed nothing: cannot make ${OUTPUT}")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")

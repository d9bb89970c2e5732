# Generates the C++ reader of schema/edgemt.fbs with the host's flatc.
set(EDGEMT_SCHEMA ${PROJECT_SOURCE_DIR}/schema/edgemt.fbs)
set(EDGEMT_GENERATED_DIR ${PROJECT_BINARY_DIR}/generated)
set(EDGEMT_SCHEMA_HEADER ${EDGEMT_GENERATED_DIR}/edgemt_generated.h)
add_custom_command(
  OUTPUT ${EDGEMT_SCHEMA_HEADER}
  COMMAND ${FLATC_EXECUTABLE} --cpp --scoped-enums --gen-object-api -o ${EDGEMT_GENERATED_DIR} ${EDGEMT_SCHEMA}
  DEPENDS ${EDGEMT_SCHEMA}
  COMMENT "flatc: C++ reader for schema/edgemt.fbs")
add_custom_target(edgemt_schema DEPENDS ${EDGEMT_SCHEMA_HEADER})
add_library(edgemt_schema_headers INTERFACE)
add_dependencies(edgemt_schema_headers edgemt_schema)
target_include_directories(edgemt_schema_headers SYSTEM INTERFACE
  $<BUILD_INTERFACE:${EDGEMT_GENERATED_DIR}> $<BUILD_INTERFACE:${FLATBUFFERS_INCLUDE_DIR}>)

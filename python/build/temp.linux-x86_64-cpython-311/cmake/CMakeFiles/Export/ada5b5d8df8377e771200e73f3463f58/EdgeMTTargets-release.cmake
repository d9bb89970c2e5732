#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "EdgeMT::edgemt" for configuration "Release"
set_property(TARGET EdgeMT::edgemt APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(EdgeMT::edgemt PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "CXX"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libedgemt.a"
  )

list(APPEND _cmake_import_check_targets EdgeMT::edgemt )
list(APPEND _cmake_import_check_files_for_EdgeMT::edgemt "${_IMPORT_PREFIX}/lib/libedgemt.a" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)

# EdgeMT's CMake package:
#   find_package(EdgeMT 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE EdgeMT::edgemt)

####### Expanded from @PACKAGE_INIT@ by configure_package_config_file() #######
####### Any changes to this file will be overwritten by the next CMake run ####
####### The input file was EdgeMTConfig.cmake.in                            ########

get_filename_component(PACKAGE_PREFIX_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../" ABSOLUTE)

macro(set_and_check _var _file)
  set(${_var} "${_file}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "File or directory ${_file} referenced by variable ${_var} does not exist !")
  endif()
endmacro()

macro(check_required_components _NAME)
  foreach(comp ${${_NAME}_FIND_COMPONENTS})
    if(NOT ${_NAME}_${comp}_FOUND)
      if(${_NAME}_FIND_REQUIRED_${comp})
        set(${_NAME}_FOUND FALSE)
      endif()
    endif()
  endforeach()
endmacro()

####################################################################################

include(CMakeFindDependencyMacro)
find_dependency(Threads)

set(EdgeMT_STATIC_LIBRARY ON)
set(EdgeMT_WITH_SENTENCEPIECE ON)

# XNNPACK, pthreadpool and cpuinfo are inside libedgemt. A static libedgemt
# built with SentencePiece needs it at the consumer's link: it is found here,
# on the consumer's side (its sysroot when cross-compiling), as the imported
# target EdgeMT::dep_sentencepiece.
macro(_edgemt_find_dependency name header)
  if(NOT TARGET EdgeMT::dep_${name})
    find_library(EdgeMT_${name}_LIBRARY ${name})
    if(EdgeMT_${name}_LIBRARY)
      add_library(EdgeMT::dep_${name} UNKNOWN IMPORTED)
      set_target_properties(EdgeMT::dep_${name} PROPERTIES IMPORTED_LOCATION "${EdgeMT_${name}_LIBRARY}")
      if(NOT "${header}" STREQUAL "")
        find_path(EdgeMT_${name}_INCLUDE_DIR ${header})
        if(EdgeMT_${name}_INCLUDE_DIR)
          set_target_properties(EdgeMT::dep_${name} PROPERTIES
            INTERFACE_INCLUDE_DIRECTORIES "${EdgeMT_${name}_INCLUDE_DIR}")
        endif()
      endif()
    elseif(EdgeMT_STATIC_LIBRARY)
      set(EdgeMT_FOUND FALSE)
      set(EdgeMT_NOT_FOUND_MESSAGE "EdgeMT (a static library) needs lib${name}, which was not found")
      return()
    else()
      # A shared libedgemt brings its own dependencies: an empty target will do.
      add_library(EdgeMT::dep_${name} INTERFACE IMPORTED)
    endif()
  endif()
endmacro()

if(EdgeMT_WITH_SENTENCEPIECE)
  _edgemt_find_dependency(sentencepiece sentencepiece_processor.h)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/EdgeMTTargets.cmake)
check_required_components(EdgeMT)

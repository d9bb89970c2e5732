
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/python/src/edgemt_module.cc" "python/CMakeFiles/edgemt_python.dir/src/edgemt_module.cc.o" "gcc" "python/CMakeFiles/edgemt_python.dir/src/edgemt_module.cc.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/python/build/temp.linux-x86_64-cpython-311/cmake/runtime/CMakeFiles/edgemt.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")

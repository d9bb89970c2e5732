file(REMOVE_RECURSE
  "CMakeFiles/edgemt_python.dir/src/edgemt_module.cc.o"
  "CMakeFiles/edgemt_python.dir/src/edgemt_module.cc.o.d"
  "edgemt/_edgemt.cpython-311-x86_64-linux-gnu.so"
  "edgemt/_edgemt.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/edgemt_python.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

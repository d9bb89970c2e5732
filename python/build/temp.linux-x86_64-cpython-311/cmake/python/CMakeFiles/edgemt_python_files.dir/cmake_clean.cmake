file(REMOVE_RECURSE
  "CMakeFiles/edgemt_python_files"
  "edgemt/__init__.py"
  "edgemt/__init__.pyi"
  "edgemt/py.typed"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/edgemt_python_files.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

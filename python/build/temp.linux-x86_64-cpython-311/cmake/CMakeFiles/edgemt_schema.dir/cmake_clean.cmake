file(REMOVE_RECURSE
  "CMakeFiles/edgemt_schema"
  "generated/edgemt_generated.h"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/edgemt_schema.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()

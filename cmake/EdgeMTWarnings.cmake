# Warnings for EdgeMT's own targets (never for dependencies' headers, which
# are included as SYSTEM).
function(edgemt_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(EDGEMT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(EDGEMT_SANITIZE)
    # No vptr check: the core is built with -fno-rtti, so objects it creates
    # (e.g. shared_ptr control blocks) have no type info for the check to see
    # from code built with RTTI (the tests), which it reports as invalid.
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-sanitize=vptr
                           -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

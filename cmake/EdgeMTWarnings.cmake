# Warnings for EdgeMT's own targets (never for dependencies' headers, which
# are included as SYSTEM).
function(edgemt_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(EDGEMT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(EDGEMT_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

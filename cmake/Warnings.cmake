# Project-wide warnings, applied per target with ac_set_warnings(target).
function(ac_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wno-missing-field-initializers)
endfunction()

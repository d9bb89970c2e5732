file(REMOVE_RECURSE
  "../lib/libedgemt.a"
)

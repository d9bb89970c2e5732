# Empty dependencies file for edgemt.
# This may be replaced when dependencies are built.

# Empty compiler generated dependencies file for edgemt_python.
# This may be replaced when dependencies are built.

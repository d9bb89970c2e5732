# Empty custom commands generated dependencies file for edgemt_schema.
# This may be replaced when dependencies are built.

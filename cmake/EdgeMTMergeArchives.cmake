# cmake -DAR=ar -DMRI=script.mri -DARCHIVE=libedgemt.a -P EdgeMTMergeArchives.cmake
# Runs `ar -M < script.mri`, which writes ARCHIVE.merged (libedgemt's members
# and the kernel archives'), and puts the result in place of ARCHIVE.
execute_process(COMMAND ${AR} -M INPUT_FILE ${MRI} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${AR} -M < ${MRI} failed")
endif()
file(RENAME ${ARCHIVE}.merged ${ARCHIVE})

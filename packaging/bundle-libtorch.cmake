# Install step (packaging/CMakeLists.txt) for torch's libraries copied into lib/jitscope: their RPATH names the
# wheel's neighbours ($ORIGIN/../../nvidia/cu13/lib, ...), and in lib/jitscope only $ORIGIN means anything; and they
# come with their symbol tables (a fifth of libtorch_cpu.so), stripped when the install strips (cpack,
# cmake --install --strip), as the programs are. NVIDIA's libraries come stripped and without an RPATH and are left
# as they are: their licence allows redistribution, not modification.
# In: JITSCOPE_TORCH_NAMES (file names), READELF_PROGRAM, STRIP_PROGRAM.
foreach(name IN LISTS JITSCOPE_TORCH_NAMES)
  set(lib "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/jitscope/${name}")
  execute_process(COMMAND ${READELF_PROGRAM} -S ${lib} OUTPUT_VARIABLE sections)
  if(CMAKE_INSTALL_DO_STRIP AND sections MATCHES "\\.symtab")
    execute_process(COMMAND ${STRIP_PROGRAM} --strip-unneeded --remove-section=.comment ${lib} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${STRIP_PROGRAM} ${lib} failed")
    endif()
  endif()
  execute_process(COMMAND ${READELF_PROGRAM} -d ${lib} OUTPUT_VARIABLE dynamic)
  if(dynamic MATCHES "\\((RPATH|RUNPATH)\\)[^[]*\\[([^]]*)\\]" AND NOT CMAKE_MATCH_2 STREQUAL "$ORIGIN")
    file(RPATH_CHANGE FILE ${lib} OLD_RPATH "${CMAKE_MATCH_2}" NEW_RPATH "$ORIGIN")
  endif()
endforeach()

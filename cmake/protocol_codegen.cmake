# The protocol codec, generated at build time from the message specs.
#
# Every engine/protocol/specs/NAME.yaml becomes generated/protocol/NAME.h and NAME.cpp under
# ${CMAKE_BINARY_DIR}/generated-root (one generator run per spec, so an edited spec recompiles only
# its own messages); all specs together give api_table.cpp (Kafka's versions of every API) and the
# test support samples.h/.cpp (a library of its own, gregor_protocol_samples, for the tests).
# Sources include the generated headers as "generated/protocol/NAME.h".
function(gregor_protocol_codegen target)
  set(root "${CMAKE_BINARY_DIR}/generated-root")
  set(out "${root}/generated/protocol")
  file(MAKE_DIRECTORY "${out}")
  file(GLOB specs CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/engine/protocol/specs/*.yaml")
  list(SORT specs)
  set(generated)
  foreach(spec ${specs})
    get_filename_component(stem "${spec}" NAME_WE)
    add_custom_command(
      OUTPUT "${out}/${stem}.h" "${out}/${stem}.cpp"
      COMMAND gregor_protogen spec "${out}" "${spec}"
      DEPENDS gregor_protogen "${spec}"
      COMMENT "Generating the protocol codec of ${stem}.yaml"
      VERBATIM)
    list(APPEND generated "${out}/${stem}.h" "${out}/${stem}.cpp")
  endforeach()
  add_custom_command(
    OUTPUT "${out}/api_table.cpp" "${out}/samples.h" "${out}/samples.cpp"
    COMMAND gregor_protogen index "${out}" ${specs}
    DEPENDS gregor_protogen ${specs}
    COMMENT "Generating the protocol's api table and test samples"
    VERBATIM)
  target_sources(${target} PRIVATE ${generated} "${out}/api_table.cpp")
  target_include_directories(${target} PUBLIC "${root}")

  add_library(gregor_protocol_samples STATIC "${out}/samples.cpp" "${out}/samples.h")
  # Test support only (sample values for the round trips; the codec under test is the engine's,
  # built -O2): unoptimized, it compiles in half the time.
  set_source_files_properties("${out}/samples.cpp" PROPERTIES COMPILE_OPTIONS "-O0")
  target_link_libraries(gregor_protocol_samples PUBLIC ${target} PRIVATE gregor_flags)
endfunction()

# Layers and their include roots.
#
# Every layer folder (each folder of engine/, and sim/, trace/, net/, gui/, app/) is one library
# target. Sources include
# each other as "engine/core/types.h", "sim/world.h", ... but a target does not see the repository
# root: each layer gets an include root of its own in the build tree holding only a link to its
# folder, and a target sees only the roots of the layers it links. So an include against the layer
# direction (engine including sim/, sim including gui/) fails to compile, not just to link.

add_library(gregor_flags INTERFACE)
target_compile_options(gregor_flags INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpedantic -Werror
  # g++ 12 reports false "may be used uninitialized" for std::variant held in std::optional
  # (GCC bug 105562 and friends) at -O2; the code is valid and the warning unactionable.
  -Wno-maybe-uninitialized
  # -Wconversion is left off: the byte codecs would drown in casts that add no safety over the
  # bounds-checked ByteReader/ByteWriter they already go through.
)

# The layers (the product's code, not the tests) are built at -O3 in the optimized build types: the
# simulator spends 2 to 8 % less CPU than at -O2 (docs/simulator.md, twelfth round), with the same
# fingerprints. The tests keep the -O2 of CMAKE_CXX_FLAGS_RELEASE: they compile faster, and -O3 buys
# them nothing.
add_library(gregor_layer_flags INTERFACE)
target_compile_options(gregor_layer_flags INTERFACE
  $<$<CONFIG:Release,RelWithDebInfo>:-O3>
  # g++ 12's -O3 inlines deep enough into std::string to report false overlaps of its own copies
  # (-Wrestrict, inside libstdc++'s char_traits; GCC bug 105329 and kin, gone in g++ 13).
  $<$<CONFIG:Release,RelWithDebInfo>:-Wno-restrict>
)

function(gregor_layer target folder)
  # The root is named after the folder ("engine/core" -> include-roots/engine-core) and holds the
  # folder's path, with a link at its end: include-roots/engine-core/engine/core -> engine/core.
  string(REPLACE "/" "-" root_name "${folder}")
  set(root "${CMAKE_BINARY_DIR}/include-roots/${root_name}")
  get_filename_component(parent "${root}/${folder}" DIRECTORY)
  file(MAKE_DIRECTORY "${parent}")
  if(NOT EXISTS "${root}/${folder}")
    file(CREATE_LINK "${CMAKE_SOURCE_DIR}/${folder}" "${root}/${folder}" SYMBOLIC)
  endif()
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/${folder}/*.cpp")
  if(NOT srcs)
    # A layer whose folder holds no source yet still gets a library, so the targets above it link
    # the same way before and after it grows.
    set(srcs "${CMAKE_BINARY_DIR}/include-roots/${root_name}.empty.cpp")
    file(WRITE "${srcs}" "// ${folder}/ has no sources yet\n")
  endif()
  add_library(${target} STATIC ${srcs})
  target_include_directories(${target} PUBLIC "${root}")
  target_link_libraries(${target} PRIVATE gregor_flags gregor_layer_flags)
endfunction()

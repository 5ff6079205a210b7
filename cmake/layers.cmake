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

# Profile-guided optimization of the simulator's layers (GCC's -fprofile-generate / -fprofile-use).
# The Makefile's build drives it (PGO=1, the default): the first build of a build folder configures
# `generate`, builds gregor, runs the simulator's workloads with it (cmake/pgo-train.sh writes the
# counts into pgo/profile), then configures `use` and builds everything. Both steps build in the same
# folder: the counts are filed under each object's path, and they check each function's shape, which
# includes the paths of the headers it inlines (seen through the build folder's include roots). A
# plain `cmake -B build` build is `off`. A layer the simulator never runs is declared UNTRAINED
# (gregor_layer below): its counts would be empty, and with its flags the same in both steps it
# compiles once.
set(GREGOR_PGO "off" CACHE STRING "Profile-guided optimization of the layers: off, generate or use")
set_property(CACHE GREGOR_PGO PROPERTY STRINGS off generate use)
set(GREGOR_PGO_PROFILE "${CMAKE_BINARY_DIR}/pgo/profile")
add_library(gregor_pgo_flags INTERFACE)
if(GREGOR_PGO STREQUAL "generate")
  target_compile_options(gregor_pgo_flags INTERFACE -fprofile-generate=${GREGOR_PGO_PROFILE})
  add_link_options(-fprofile-generate=${GREGOR_PGO_PROFILE})
elseif(GREGOR_PGO STREQUAL "use")
  target_compile_options(gregor_pgo_flags INTERFACE
    -fprofile-use=${GREGOR_PGO_PROFILE}
    # What the training never ran (error paths, rare requests) is optimized as without a profile,
    # not as cold code; an object file gregor does not link has no counts at all.
    -fprofile-partial-training -Wno-missing-profile)
  # A source edited since the training fails to compile ("the profile data may be out of date"):
  # the Makefile trains again whenever a source is newer than the counts.
elseif(NOT GREGOR_PGO STREQUAL "off")
  message(FATAL_ERROR "GREGOR_PGO is '${GREGOR_PGO}': it must be off, generate or use")
endif()

# gregor_layer(TARGET FOLDER [UNTRAINED]): the library of one layer folder. UNTRAINED leaves it out
# of profile-guided optimization.
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
  if(NOT "UNTRAINED" IN_LIST ARGN)
    target_link_libraries(${target} PRIVATE gregor_pgo_flags)
    if(NOT GREGOR_PGO STREQUAL "off")
      # A compiler launcher (ccache) may hand the compiler relative paths in one step and absolute
      # ones in the other, and the counts check the paths: both steps call the compiler directly.
      set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "")
    endif()
  endif()
endfunction()
